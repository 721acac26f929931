// ImportTable, DescribeImport, ListImports: the job that fills a new table from local-S3
// objects, its record, and the restart rule (imports.h).
#include "engine/import_export/imports.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <unordered_set>

#include "ddb/stored_item.h"
#include "engine/catalog.h"
#include "engine/engine_impl.h"
#include "engine/import_export/csv_reader.h"
#include "engine/import_export/dynamodb_json.h"
#include "engine/import_export/ion_text.h"
#include "engine/import_export/record_boundary.h"
#include "engine/index_maintenance.h"
#include "engine/item_validation.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/sorted_chunk.h"
#include "engine/storage/store_format.h"
#include "engine/table_validation.h"
#include "util/arn.h"
#include "util/hex.h"
#include "util/json_escape.h"
#include "util/uuid.h"

namespace ddb {
namespace {

// The service runs at most 50 import jobs at once per account (ImportTable's
// LimitExceededException); the message is a guess.
constexpr size_t kMaxRunningImports = 50;
// Decompressed bytes read at a time.
constexpr size_t kReadChunk = 1 << 20;
// The longest record an import reads: an item is at most 400 KB, which its text in any of the
// formats (type names, quotes, escapes) stays far below. A longer one is a bad item (its
// object is abandoned, as at any bad item) instead of a buffer that grows with it: a 300 KB
// gzip object of one 300 MB line held ~900 MB while it was read.
constexpr size_t kMaxRecordBytes = size_t{16} << 20;
constexpr const char* kRecordTooLong = "Item size has exceeded the maximum allowed size";
// The service stops logging an import's errors after 10,000 (it keeps counting them).
constexpr int64_t kMaxLoggedErrors = 10000;
constexpr std::string_view kImportKeyPrefix = "import/";

double NowSeconds() { return static_cast<double>(WallClockMillis()) / 1000.0; }

AttributeValue Str(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue Num(int64_t n) { return AttributeValue::N(std::to_string(n)); }
int64_t NumOf(const Item& r, const char* field, int64_t otherwise = 0) {
  auto it = r.find(field);
  return it == r.end() ? otherwise : std::stoll(it->second.scalar());
}
std::optional<std::string> StrOf(const Item& r, const char* field) {
  auto it = r.find(field);
  if (it == r.end()) return std::nullopt;
  return it->second.scalar();
}

}  // namespace

std::string NewTaskId() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  char text[32];
  std::snprintf(text, sizeof text, "%014llu-%08x",
                static_cast<unsigned long long>(WallClockMillis()), static_cast<unsigned>(rng()));
  return text;
}

bool TableNameOfArn(const std::string& arn, std::string* table) {
  if (!arn.starts_with("arn:")) {
    *table = arn;
    return !arn.empty();
  }
  // <anything>:table/<name>, of any partition and service (what the service says of others
  // is not known).
  const std::optional<util::ArnParts> parts = util::ParseArn(arn);
  if (!parts || !parts->resource.starts_with("table/")) return false;
  *table = std::string(parts->resource.substr(6));
  return !table->empty() && table->find('/') == std::string::npos;
}

bool ParseTaskArn(const std::string& arn, const std::string& kind, std::string* table,
                  std::string* id) {
  const std::optional<util::DynamoDbArnParts> parts = util::ParseDynamoDbArn(arn);
  if (!parts || parts->resource_type != "table" || parts->table.empty()) return false;
  const std::optional<std::string_view> task = parts->Child(kind);
  if (!task) return false;
  *table = std::string(parts->table);
  *id = std::string(*task);
  // 14 digits, '-', 8 hex digits.
  if (id->size() != 23 || (*id)[14] != '-') return false;
  for (size_t i = 0; i < id->size(); ++i) {
    char c = (*id)[i];
    if (i == 14) continue;
    bool ok = i < 14 ? (c >= '0' && c <= '9') : std::isxdigit(static_cast<unsigned char>(c)) != 0;
    if (!ok) return false;
  }
  return true;
}

// An import's live counters (DescribeImport shows them while it runs).
struct ImportCounters {
  std::atomic<int64_t> processed_bytes{0};
  std::atomic<int64_t> processed_items{0};
  std::atomic<int64_t> imported_items{0};
  std::atomic<int64_t> errors{0};
  std::atomic<bool> read_something{false};
};

struct Imports::Job : ImportCounters {
  std::string id;
  std::string table_name;
  uint32_t table_id = 0;
  // Fixed at the request, and the final outcome (guarded by Imports::mu_ once running).
  ImportDescription d;  // ARNs are filled when described (they name the caller's account)
};

namespace {

Item ToRecord(const std::string& id, uint32_t table_id, const ImportDescription& d,
              int64_t processed_bytes, bool read_something) {
  Item r;
  r["Format"] = Num(kImportRecordFormat);
  r["Id"] = Str(id);
  r["TableNum"] = Num(table_id);
  r["TableId"] = Str(d.table_id);
  r["Status"] = Num(static_cast<int>(d.status));
  r["Token"] = Str(d.client_token);
  r["Bucket"] = Str(d.source.bucket);
  if (d.source.bucket_owner) r["Owner"] = Str(*d.source.bucket_owner);
  if (d.source.key_prefix) r["Prefix"] = Str(*d.source.key_prefix);
  r["InputFormat"] = Num(static_cast<int>(d.input_format));
  r["Compression"] = Num(static_cast<int>(d.compression));
  if (d.csv) {
    AttributeMap csv;
    if (d.csv->delimiter) csv["Delimiter"] = Str(std::string(1, *d.csv->delimiter));
    std::vector<AttributeValue> headers;
    for (const auto& h : d.csv->header_list) headers.push_back(Str(h));
    csv["HeaderList"] = AttributeValue::L(std::move(headers));
    r["Csv"] = AttributeValue::M(std::move(csv));
  }
  r["Creation"] = AttributeValue::M(TableCreationRecord(d.table));
  r["Start"] = Num(static_cast<int64_t>(d.start_time * 1000));
  if (d.end_time) r["End"] = Num(static_cast<int64_t>(*d.end_time * 1000));
  if (read_something) r["ProcessedBytes"] = Num(processed_bytes);
  r["ProcessedItems"] = Num(d.processed_item_count);
  r["Imported"] = Num(d.imported_item_count);
  r["Errors"] = Num(d.error_count);
  if (d.failure_code) r["FailureCode"] = Str(*d.failure_code);
  if (d.failure_message) r["FailureMessage"] = Str(*d.failure_message);
  return r;
}

Result<ImportDescription> FromRecord(const Item& r, std::string* id, uint32_t* table_id) {
  if (int64_t f = NumOf(r, "Format", 1); f > kImportRecordFormat) {
    return NewerFormat("an import record", f, kImportRecordFormat);
  }
  ImportDescription d;
  *id = r.at("Id").scalar();
  *table_id = static_cast<uint32_t>(NumOf(r, "TableNum"));
  d.table_id = r.at("TableId").scalar();
  d.status = static_cast<ImportStatus>(NumOf(r, "Status"));
  d.client_token = r.at("Token").scalar();
  d.source.bucket = r.at("Bucket").scalar();
  d.source.bucket_owner = StrOf(r, "Owner");
  d.source.key_prefix = StrOf(r, "Prefix");
  d.input_format = static_cast<InputFormat>(NumOf(r, "InputFormat"));
  d.compression = static_cast<InputCompression>(NumOf(r, "Compression"));
  if (auto it = r.find("Csv"); it != r.end()) {
    CsvOptions csv;
    if (auto dl = it->second.map().find("Delimiter"); dl != it->second.map().end()) {
      csv.delimiter = dl->second.scalar()[0];
    }
    for (const auto& h : it->second.map().at("HeaderList").list()) {
      csv.header_list.push_back(h.scalar());
    }
    d.csv = csv;
  }
  d.table = TableCreationFrom(r.at("Creation").map());
  d.start_time = NumOf(r, "Start") / 1000.0;
  if (r.count("End")) d.end_time = NumOf(r, "End") / 1000.0;
  if (r.count("ProcessedBytes")) d.processed_size_bytes = NumOf(r, "ProcessedBytes");
  d.processed_item_count = NumOf(r, "ProcessedItems");
  d.imported_item_count = NumOf(r, "Imported");
  d.error_count = NumOf(r, "Errors");
  d.failure_code = StrOf(r, "FailureCode");
  d.failure_message = StrOf(r, "FailureMessage");
  return d;
}

// Writes items straight into a new table: the items, their GSI entries and the counters,
// with no per-item lock, log record or capacity charge (nothing else may write the table
// while it is CREATING). Items and GSI entries are kept aside, and every kChunkBytes (and
// at the end) sorted and written as SST files ingested into the store
// (Storage::SortedWriter), with one batch of counter merges: inserted into the memtable one
// by one, in their random key order (hash-prefixed keys), they cost most of an import in
// skip-list searches, and each was written twice (memtable, then flush). A key written
// before (a duplicate in the input, or a hash collision of the seen-set) first writes what
// is kept aside, then goes through a read of the old item and an ordinary batch, so
// counters and index entries stay exact (the last one wins).
class BulkWriter {
 public:
  BulkWriter(EngineImpl* impl, std::shared_ptr<const TableInfo> table)
      : impl_(impl), table_(std::move(table)) {
    for (const IndexSchema& index : table_->indexes) {
      if (index.global) gsis_.push_back(&index);
    }
    seen_.reserve(1 << 16);
  }

  Status Add(const Item& item) {
    std::string key = impl_->ItemKeyOf(*table_, item);
    if (!seen_.insert(std::hash<std::string>{}(key)).second) return Replace(std::move(key), item);
    value_.clear();
    EncodeItem(item, &value_);
    ++items_;
    bytes_ += static_cast<int64_t>(ItemSize(item));
    for (const IndexSchema* index : gsis_) {
      std::optional<IndexEntryData> e = IndexEntry(*index, item);
      if (!e) continue;
      auto& [n, b] = index_stats_[index->index_id];
      ++n;
      b += e->size;
      entries_.Add(e->key, e->value);
    }
    items_aside_.Add(key, value_);
    if (items_aside_.bytes() + entries_.bytes() >= kChunkBytes) return Flush();
    return Status::Ok();
  }

  // Writes everything kept aside, with its counters.
  Status Flush() {
    DDB_RETURN_IF_ERROR(WriteSorted(Cf::kItems, &items_aside_, &item_writer_));
    DDB_RETURN_IF_ERROR(WriteSorted(Cf::kIndexes, &entries_, &entry_writer_));
    Storage::Batch batch(*impl_->storage);
    if (items_ || bytes_) batch.AddToStats(StatsKey(table_->id), items_, bytes_);
    for (const auto& [id, delta] : index_stats_) {
      batch.AddToStats(StatsKey(id), delta.first, delta.second);
    }
    items_ = bytes_ = 0;
    index_stats_.clear();
    return impl_->storage->Write(batch, WriteSync::kUnlogged);
  }

 private:
  // Bytes kept aside (about) before they are sorted and written.
  static constexpr size_t kChunkBytes = 64 << 20;

  Status WriteSorted(Cf cf, SortedChunk* chunk, std::unique_ptr<Storage::SortedWriter>* writer) {
    if (chunk->empty()) return Status::Ok();
    if (!*writer) *writer = impl_->storage->NewSortedWriter(cf);
    DDB_RETURN_IF_ERROR(chunk->WriteTo(writer->get()));
    return (*writer)->Finish();
  }

  // A key written before: after what is kept aside, as an ordinary write of the item, its
  // index changes and counter deltas.
  Status Replace(std::string key, const Item& item) {
    DDB_RETURN_IF_ERROR(Flush());
    DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->ReadItem(key));
    std::string value;
    EncodeItem(item, &value);
    Storage::Batch batch(*impl_->storage);
    batch.Put(Cf::kItems, key, value);
    const int64_t size = static_cast<int64_t>(ItemSize(item));
    batch.AddToStats(StatsKey(table_->id), old ? 0 : 1,
                     size - (old ? static_cast<int64_t>(ItemSize(*old)) : 0));
    if (!gsis_.empty()) AddIndexUpdates(*table_, /*global=*/true, old, item, &batch);
    return impl_->storage->Write(batch, WriteSync::kUnlogged);
  }

  EngineImpl* impl_;
  std::shared_ptr<const TableInfo> table_;
  std::vector<const IndexSchema*> gsis_;
  std::unordered_set<size_t> seen_;
  // Kept aside, with the counter deltas they make.
  SortedChunk items_aside_, entries_;
  std::string value_;
  int64_t items_ = 0, bytes_ = 0;
  IndexStatsDeltas index_stats_;
  std::unique_ptr<Storage::SortedWriter> item_writer_, entry_writer_;
};

// One error record, as the service logs it to CloudWatch Logs (the shape is a guess from
// the developer guide's description: the object, the item's place in it, the reason).
std::string ErrorRecord(const std::string& import_arn, const std::string& bucket,
                        const std::string& key, int64_t line, const std::string& message) {
  std::string out = "{\"itemS3Pointer\":{\"bucket\":";
  util::AppendJsonString(&out, bucket);
  out += ",\"key\":";
  util::AppendJsonString(&out, key);
  out += ",\"itemIndex\":" + std::to_string(line) + "},\"importArn\":";
  util::AppendJsonString(&out, import_arn);
  out += ",\"errorMessages\":[";
  util::AppendJsonString(&out, message);
  out += "]}\n";
  return out;
}

// Imports::Run's steps.

// An import's error log, <s3_dir>/.logs/aws-dynamodb/imports/<id>.log (where the service
// writes to CloudWatch Logs), opened at the first error: the first kMaxLoggedErrors records.
class ImportErrorLog {
 public:
  ImportErrorLog(const std::string& s3_dir, const std::string& import_id,
                 const std::string& import_arn, const std::string& bucket)
      : s3_dir_(s3_dir), import_id_(import_id), import_arn_(import_arn), bucket_(bucket) {}
  ~ImportErrorLog() {
    if (file_) std::fclose(file_);
  }
  ImportErrorLog(const ImportErrorLog&) = delete;
  ImportErrorLog& operator=(const ImportErrorLog&) = delete;

  // Logs an item that did not import: line `line` of object `key` (0: the object itself).
  void Record(const std::string& key, int64_t line, const std::string& message) {
    if (logged_ >= kMaxLoggedErrors) return;
    if (!file_) {
      std::filesystem::path dir =
          std::filesystem::path(s3_dir_) / ".logs" / "aws-dynamodb" / "imports";
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      file_ = std::fopen((dir / (import_id_ + ".log")).c_str(), "a");
      if (!file_) return;
    }
    std::string record = ErrorRecord(import_arn_, bucket_, key, line, message);
    std::fwrite(record.data(), 1, record.size(), file_);
    ++logged_;
  }

 private:
  const std::string s3_dir_;
  const std::string import_id_;
  const std::string import_arn_;
  const std::string bucket_;
  std::FILE* file_ = nullptr;
  int64_t logged_ = 0;
};

// The lines of one object, read kReadChunk decompressed bytes at a time, each without its
// '\n' (the last one may have none).
class ObjectLines {
 public:
  ObjectLines(ObjectReader* reader, const std::atomic<bool>* stopping)
      : reader_(reader), stopping_(stopping) {}

  // The next line (valid until the next call), and whether it is the object's last; false
  // at the end of the object, or once the engine stops. With `pending` (the caller holds
  // the start of a record spanning lines), the end gives one more line, empty and last.
  // Errors: the reader's.
  Result<bool> Next(bool pending, std::string_view* line, bool* last) {
    for (;;) {
      const size_t nl = buf_.find('\n', pos_);
      if (nl == std::string::npos && !eof_) {
        if (*stopping_) return false;
        buf_.erase(0, pos_);
        pos_ = 0;
        if (buf_.size() > kMaxRecordBytes) return Error::Validation(kRecordTooLong);
        DDB_ASSIGN_OR_RETURN(bool more, reader_->Read(&buf_, kReadChunk));
        eof_ = !more;
        continue;
      }
      if (nl == std::string::npos && pos_ >= buf_.size() && !pending) return false;
      *last = nl == std::string::npos;
      *line = std::string_view(buf_.data() + pos_, (*last ? buf_.size() : nl) - pos_);
      pos_ = *last ? buf_.size() : nl + 1;
      ++line_no_;
      return true;
    }
  }
  // Lines given so far.
  int64_t line_no() const { return line_no_; }

 private:
  ObjectReader* reader_;
  const std::atomic<bool>* stopping_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_no_ = 0;
};

// A record's text in the import's format: kItem (*item), kNothing (a line without an item,
// or a CSV header), kIncomplete (a record continued on the next line), else *error.
class RecordParser {
 public:
  RecordParser(const ImportDescription& d, const TableDescription& table)
      : d_(d), delimiter_(d.csv && d.csv->delimiter ? *d.csv->delimiter : ',') {
    for (const auto& def : table.attribute_definitions) {
      key_types_[def.attribute_name] = def.attribute_type;
    }
  }

  // Each object starts over with the request's CSV header (or reads its own first line).
  void StartObject() {
    header_.clear();
    if (d_.input_format == InputFormat::kCsv && d_.csv) header_ = d_.csv->header_list;
  }

  InputFormat format() const { return d_.input_format; }

  ParseOutcome Parse(std::string_view text, Item* item, std::string* error) {
    switch (d_.input_format) {
      case InputFormat::kDynamoDbJson:
        return ParseDynamoDbJsonLine(text, item, error);
      case InputFormat::kIon:
        return ParseIonItem(text, item, error);
      case InputFormat::kCsv: {
        ParseOutcome outcome = SplitCsvRecord(text, delimiter_, &fields_, error);
        if (outcome != ParseOutcome::kItem) return outcome;
        if (!header_.empty()) return CsvItem(header_, fields_, key_types_, item, error);
        header_ = fields_;
        return ParseOutcome::kNothing;
      }
    }
    return ParseOutcome::kError;
  }

 private:
  const ImportDescription& d_;
  const char delimiter_;
  std::map<std::string, ScalarType> key_types_;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
};

// Logs an item that did not import, counting it as processed and as an error.
using ImportErrorSink =
    std::function<void(const std::string& key, int64_t line, const std::string& message)>;

// One object of the import: each record parsed, checked against the table and handed to
// `writer`. The service abandons the rest of an object at its first bad item (logged), and
// so does this. Errors: the writer's (kInternal).
Status ImportObject(ObjectReader* reader, const std::string& key, const TableInfo& table,
                    RecordParser* parser, BulkWriter* writer, ImportCounters* counters,
                    const ImportErrorSink& log_error, const std::atomic<bool>& stopping) {
  ObjectLines lines(reader, &stopping);
  parser->StartObject();
  std::string record;       // the start of a record spanning lines
  bool continuing = false;  // `record` holds one
  // Where such a record may end: it is parsed again only there, not at every line.
  RecordBoundary boundary(parser->format());
  Item item;
  std::string error;
  while (!stopping) {
    std::string_view line;
    bool last = false;
    Result<bool> got = lines.Next(continuing, &line, &last);
    if (!got.ok()) {
      log_error(key, lines.line_no(), got.error().message());
      return Status::Ok();
    }
    if (!got.value()) return Status::Ok();
    counters->processed_bytes += static_cast<int64_t>(line.size() + (last ? 0 : 1));
    counters->read_something = true;
    std::string_view text = line;
    if (continuing) {
      if (record.size() + 1 + line.size() > kMaxRecordBytes) {
        log_error(key, lines.line_no(), kRecordTooLong);
        return Status::Ok();
      }
      record.push_back('\n');
      record.append(line);
      boundary.Feed("\n");
      boundary.Feed(line);
      if (boundary.Open() && !last) continue;
      text = record;
    }
    const ParseOutcome outcome = parser->Parse(text, &item, &error);
    if (outcome == ParseOutcome::kIncomplete && !last) {
      if (!continuing) {
        record.assign(line);
        boundary.Reset();
        boundary.Feed(line);
      }
      continuing = true;
      continue;
    }
    continuing = false;
    if (outcome == ParseOutcome::kNothing) continue;
    if (outcome != ParseOutcome::kItem) {
      log_error(key, lines.line_no(), error);
      return Status::Ok();
    }
    Status valid = ValidateItem(table.description, item);
    if (valid.ok()) valid = ValidateIndexKeys(table.indexes, item);
    if (!valid.ok()) {
      log_error(key, lines.line_no(), valid.error().message());
      return Status::Ok();
    }
    Status added = writer->Add(item);
    counters->processed_items++;
    counters->imported_items++;
    if (!added.ok()) return added;
  }
  return Status::Ok();
}

// Every object under the import's prefix, in the order listed, into `table`; then what the
// writer keeps aside, and the store's memtables: the items went around the write-ahead log
// (a crash before this point starts the import over), so they are on disk before the
// record says COMPLETED. Item errors are counted and logged. Errors: kInternal.
Status ImportObjects(EngineImpl* impl, const ImportDescription& d, const std::string& import_id,
                     const std::string& import_arn, std::shared_ptr<const TableInfo> table,
                     ImportCounters* counters) {
  const LocalS3 s3(impl->options.s3_dir);
  ImportErrorLog log(impl->options.s3_dir, import_id, import_arn, d.source.bucket);
  const ImportErrorSink log_error = [&](const std::string& key, int64_t line,
                                        const std::string& message) {
    counters->errors++;
    counters->processed_items++;
    log.Record(key, line, message);
  };
  Result<std::vector<std::string>> keys =
      s3.List(d.source.bucket, d.source.key_prefix.value_or(""));
  Status status = Status::Ok();
  if (!keys.ok()) status = keys.error();
  BulkWriter writer(impl, table);
  RecordParser parser(d, table->description);
  for (size_t k = 0; status.ok() && keys.ok() && k < keys->size() && !impl->stopping; ++k) {
    const std::string& key = (*keys)[k];
    Result<std::unique_ptr<ObjectReader>> reader =
        OpenObject(s3.PathOf(d.source.bucket, key), d.compression);
    if (!reader.ok()) {
      log_error(key, 0, reader.error().message());
      continue;
    }
    status = ImportObject(reader.value().get(), key, *table, &parser, &writer, counters, log_error,
                          impl->stopping);
  }
  if (status.ok()) status = writer.Flush();
  if (status.ok() && !impl->stopping) status = impl->storage->FlushAll();
  return status;
}

// A failed import's table goes (S3NoSuchBucket): its record, then its data, and its
// partitions in the model. A failure is logged (the import fails anyway).
void DropImportedTable(EngineImpl* impl, const std::string& table_name,
                       const std::shared_ptr<const TableInfo>& table) {
  Result<std::shared_ptr<const TableInfo>> dropped =
      impl->DropTableRecord(table_name, /*keep_items=*/false);
  if (dropped.ok()) {
    impl->LogIfFailed(impl->RemoveTableData(*dropped.value(), /*keep_items=*/false),
                      "cannot remove the items of failed import table " + table_name);
  } else {
    impl->LogIfFailed(dropped.status(), "cannot drop failed import table " + table_name);
  }
  if (table) {
    impl->partitions->Drop(table->id);
    for (const IndexSchema& index : table->indexes) impl->partitions->Drop(index.index_id);
  }
}

}  // namespace

Imports::Imports(EngineImpl* impl) : impl_(impl) {}
Imports::~Imports() = default;

Status Imports::Persist(const Job& job) {
  Item record =
      ToRecord(job.id, job.table_id, job.d, job.processed_bytes.load(), job.read_something.load());
  std::string value;
  EncodeItem(record, &value);
  Storage::Batch batch(*impl_->storage);
  batch.Put(Cf::kMeta, std::string(kImportKeyPrefix) + job.id, value);
  return impl_->storage->Write(batch);
}

Status Imports::Load() {
  std::vector<std::shared_ptr<Job>> loaded, restart;
  Status decoded = Status::Ok();
  std::string end(kImportKeyPrefix);
  end.back() = static_cast<char>(end.back() + 1);
  DDB_RETURN_IF_ERROR(impl_->storage->ForEach(
      Cf::kMeta, kImportKeyPrefix, end, [&](std::string_view, std::string_view value) {
        Item r;
        if (!DecodeItem(value, &r)) {
          decoded = Error::Internal("unreadable import record");
          return false;
        }
        auto job = std::make_shared<Job>();
        Result<ImportDescription> d = FromRecord(r, &job->id, &job->table_id);
        if (!d.ok()) {
          decoded = d.error();
          return false;
        }
        job->d = std::move(d).value();
        job->table_name = job->d.table.table_name;
        job->processed_bytes = job->d.processed_size_bytes.value_or(0);
        job->read_something = job->d.processed_size_bytes.has_value();
        if (job->d.status == ImportStatus::kInProgress) {
          restart.push_back(job);
        } else {
          loaded.push_back(job);
        }
        return true;
      }));
  DDB_RETURN_IF_ERROR(decoded);
  std::lock_guard lock(mu_);
  // Finished imports stay listed and described (their records were read and then dropped:
  // ListImports was empty after every restart; found by a black-box probe).
  for (auto& job : loaded) jobs_[job->id] = job;
  for (auto& [id, job] : jobs_) tokens_[job->d.client_token] = id;
  for (auto& job : restart) DDB_RETURN_IF_ERROR(Launch(job, /*restart=*/true));
  return Status::Ok();
}

// REQUIRES: mu_ held. Registers the job and starts its thread; a restarted one first drops
// what its table holds.
Status Imports::Launch(std::shared_ptr<Job> job, bool restart) {
  jobs_[job->id] = job;
  tokens_[job->d.client_token] = job->id;
  impl_->table_holds->HoldForImport(job->table_name);
  if (restart) {
    std::shared_ptr<const TableInfo> table = impl_->catalog->FindById(job->table_id);
    if (table) {
      DDB_RETURN_IF_ERROR(impl_->storage->DeleteRange(Cf::kItems, TablePrefix(table->id),
                                                      TablePrefixEnd(table->id)));
      Storage::Batch batch(*impl_->storage);
      batch.SetStats(StatsKey(table->id), 0, 0);
      for (const IndexSchema& index : table->indexes) {
        DDB_RETURN_IF_ERROR(impl_->storage->DeleteRange(Cf::kIndexes, TablePrefix(index.index_id),
                                                        TablePrefixEnd(index.index_id)));
        batch.SetStats(StatsKey(index.index_id), 0, 0);
      }
      DDB_RETURN_IF_ERROR(impl_->storage->Write(batch));
    }
    job->processed_bytes = 0;
    job->read_something = false;
  }
  std::lock_guard threads(impl_->backfill_mu);
  impl_->backfills.emplace_back(&Imports::Run, this, job);
  return Status::Ok();
}

Result<ImportDescription> Imports::Start(const RequestContext& ctx, const ImportTableRequest& req) {
  DDB_RETURN_IF_ERROR(ValidateCreateTable(req.table));
  const std::string token = req.client_token.value_or(util::NewUuid());
  {
    std::lock_guard lock(mu_);
    if (auto t = tokens_.find(token); t != tokens_.end()) {
      const Job& prior = *jobs_.at(t->second);
      // As measured on the service (scylladb test_import.py, test_client_token_reuse): only
      // another table conflicts; a running import is returned as it is, whatever else
      // changed; a finished one has created its table, which CreateTable refuses below.
      if (prior.table_name != req.table.table_name) {
        return Error(ErrorCode::kImportConflict,
                     "Duplicate request detected with conflicting parameters");
      }
      if (prior.d.status == ImportStatus::kInProgress) return DescribeJob(ctx, prior);
    }
    size_t running = 0;
    for (const auto& [id, job] : jobs_) running += job->d.status == ImportStatus::kInProgress;
    if (running >= kMaxRunningImports) {
      return Error(ErrorCode::kLimitExceeded,
                   "Cannot have more than 50 import jobs in progress at a time");
    }
  }
  // CREATING from the start: no request may see the table half imported.
  impl_->table_holds->HoldForImport(req.table.table_name);
  CreateTableRequest create = req.table;
  create.billing_mode = req.table.billing_mode;
  Result<TableDescription> created = impl_->CreateTable(ctx, create);
  if (!created.ok()) {
    bool ours = false;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, job] : jobs_) {
        ours |=
            job->table_name == req.table.table_name && job->d.status == ImportStatus::kInProgress;
      }
    }
    if (!ours) impl_->table_holds->ReleaseImport(req.table.table_name);
    return created.error();
  }
  auto job = std::make_shared<Job>();
  job->id = NewTaskId();
  job->table_name = req.table.table_name;
  std::shared_ptr<const TableInfo> info = impl_->catalog->Find(req.table.table_name);
  if (!info) return Error::Internal("the imported table vanished");
  job->table_id = info->id;
  ImportDescription& d = job->d;
  d.status = ImportStatus::kInProgress;
  d.table_id = created->table_id;
  d.client_token = token;
  d.source = req.source;
  d.input_format = req.input_format;
  d.csv = req.csv;
  d.compression = req.compression.value_or(InputCompression::kNone);
  d.table = req.table;
  d.start_time = NowSeconds();
  DDB_RETURN_IF_ERROR(Persist(*job));
  std::lock_guard lock(mu_);
  DDB_RETURN_IF_ERROR(Launch(job, /*restart=*/false));
  return DescribeJob(ctx, *job);
}

ImportDescription Imports::DescribeJob(const RequestContext& ctx, const Job& job) {
  ImportDescription d = job.d;
  d.table_arn = TableArnOf(ctx, job.table_name);
  d.import_arn = util::ImportArn(d.table_arn, job.id);
  d.cloud_watch_log_group_arn =
      util::Arn("logs", ctx.region, ctx.account_id, "log-group:/aws-dynamodb/imports:*");
  if (d.status == ImportStatus::kInProgress) {
    // Live figures (the service shows its counters only once an import ends; ddb shows
    // progress, which no client relies on being zero).
    d.processed_item_count = job.processed_items.load();
    d.imported_item_count = job.imported_items.load();
    d.error_count = job.errors.load();
  }
  if (job.read_something.load()) d.processed_size_bytes = job.processed_bytes.load();
  return d;
}

Result<ImportDescription> Imports::Describe(const RequestContext& ctx, const std::string& arn) {
  std::string table, id;
  if (!ParseTaskArn(arn, "import", &table, &id)) return Error::Validation("Invalid Import ARN");
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->table_name != table) {
    // Guess at the text: the service's is not recorded.
    return Error(ErrorCode::kImportNotFound, "Import not found: " + arn);
  }
  return DescribeJob(ctx, *it->second);
}

Result<ListImportsResult> Imports::List(const RequestContext& ctx, const ListImportsRequest& req) {
  std::optional<std::string> table;
  if (req.table_arn) {
    std::string name;
    if (!TableNameOfArn(*req.table_arn, &name)) return Error::Validation("Invalid TableArn");
    table = name;
  }
  // NextToken: the hex of the last id returned, padded to the service's 112-character
  // minimum ([0-9a-f]{16})+.
  std::string after;
  if (req.next_token) {
    const std::string& t = *req.next_token;
    std::string raw;
    bool ok = t.size() >= 112 && t.size() % 16 == 0 && util::DecodeHex(t, &raw);
    if (ok) {
      size_t nul = raw.find('\0');
      after = raw.substr(0, nul);
      ok = after.size() == 23;
    }
    if (!ok) return Error::Validation("Invalid NextToken");
  }
  ListImportsResult out;
  std::lock_guard lock(mu_);
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {
    if (!after.empty() && it->first >= after) continue;
    if (table && it->second->table_name != *table) continue;
    if (out.imports.size() == static_cast<size_t>(req.page_size)) {
      std::string raw =
          out.imports.back().import_arn.substr(out.imports.back().import_arn.size() - 23);
      raw.resize(56, '\0');
      out.next_token = util::Hex(raw);
      break;
    }
    out.imports.push_back(DescribeJob(ctx, *it->second));
  }
  return out;
}

void Imports::Run(std::shared_ptr<Job> job) {
  std::shared_ptr<const TableInfo> table = impl_->catalog->FindById(job->table_id);
  LocalS3 s3(impl_->options.s3_dir);
  const std::string import_arn =
      util::ImportArn(util::TableArn("*", "*", job->table_name), job->id);
  std::optional<std::string> failure_code, failure_message;
  bool drop_table = false;
  Status status = Status::Ok();
  if (!table) {
    status = Error::Internal("the imported table is gone");
  } else if (!s3.BucketExists(job->d.source.bucket)) {
    failure_code = kNoSuchBucketCode;
    failure_message = kNoSuchBucketMessage;
    drop_table = true;
  } else {
    status = ImportObjects(impl_, job->d, job->id, import_arn, table, job.get());
  }
  if (impl_->stopping) return;  // IN_PROGRESS on disk: the next open starts it over
  if (!status.ok()) {
    failure_code = "InternalError";
    failure_message = status.error().message();
  } else if (!failure_code && job->errors.load() > 0) {
    // As the service reports items that did not import (its message, as observed).
    failure_code = "ItemValidationError";
    failure_message =
        "Some of the items failed validation checks and were not imported. Please check "
        "CloudWatch error logs for more details.";
  }
  if (drop_table) DropImportedTable(impl_, job->table_name, table);
  {
    std::lock_guard lock(mu_);
    job->d.status = failure_code ? ImportStatus::kFailed : ImportStatus::kCompleted;
    job->d.failure_code = failure_code;
    job->d.failure_message = failure_message;
    job->d.end_time = NowSeconds();
    job->d.processed_item_count = job->processed_items.load();
    job->d.imported_item_count = job->imported_items.load();
    job->d.error_count = job->errors.load();
    Status persisted = Persist(*job);
    if (!persisted.ok()) {
      impl_->storage->Log(LogSeverity::kError,
                          "cannot record import " + job->id + ": " + persisted.error().message());
    }
  }
  impl_->LogIfFailed(impl_->storage->Sync(), "cannot sync the record of import " + job->id);
  impl_->table_holds->ReleaseImport(job->table_name);
}

Result<ImportDescription> Engine::ImportTable(const RequestContext& ctx,
                                              const ImportTableRequest& req) {
  return impl_->imports->Start(ctx, req);
}

Result<ImportDescription> Engine::DescribeImport(const RequestContext& ctx,
                                                 const std::string& arn) {
  return impl_->imports->Describe(ctx, arn);
}

Result<ListImportsResult> Engine::ListImports(const RequestContext& ctx,
                                              const ListImportsRequest& req) {
  return impl_->imports->List(ctx, req);
}

}  // namespace ddb
