// ExportTableToPointInTime, DescribeExport, ListExports (exports.h): validation, the job that
// writes the service's output layout into local S3, records, and TableReaderAt.
#include "engine/exports.h"

#include <cmath>

#include "ddb/stored_item.h"
#include "engine/dynamodb_json.h"
#include "engine/engine_impl.h"
#include "engine/imports.h"
#include "engine/ion_text.h"
#include "engine/key_codec.h"
#include "engine/local_s3.h"
#include "engine/store_format.h"
#include "engine/text_coding.h"

namespace ddb {
namespace {

// The service allows 300 exports in progress per account (LimitExceededException); the
// message is a guess.
constexpr size_t kMaxRunningExports = 300;
// Items per data file (the service writes at least one file per partition).
constexpr int64_t kItemsPerFile = 100000;
constexpr std::string_view kExportKeyPrefix = "export/";

double NowSeconds() { return static_cast<double>(WallClockMillis()) / 1000.0; }
AttributeValue Str(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue Num(int64_t n) { return AttributeValue::N(std::to_string(n)); }
int64_t NumOf(const Item& r, const char* f, int64_t otherwise = 0) {
  auto it = r.find(f);
  return it == r.end() ? otherwise : std::stoll(it->second.scalar());
}
std::optional<std::string> StrOf(const Item& r, const char* f) {
  auto it = r.find(f);
  if (it == r.end()) return std::nullopt;
  return it->second.scalar();
}
std::optional<double> TimeOf(const Item& r, const char* f) {
  auto it = r.find(f);
  if (it == r.end()) return std::nullopt;
  return std::stoll(it->second.scalar()) / 1000.0;
}
AttributeValue Ms(double t) { return Num(static_cast<int64_t>(std::llround(t * 1000))); }

class SnapshotReader : public TableReader {
 public:
  SnapshotReader(Storage* storage, uint32_t table_id)
      : storage_(storage), table_id_(table_id), snapshot_(storage->TakeSnapshot()) {}
  Status ForEachItem(const std::function<bool(std::string_view, std::string_view)>& fn) override {
    return storage_->ForEach(Cf::kItems, TablePrefix(table_id_), TablePrefixEnd(table_id_), fn,
                             /*reverse=*/false, snapshot_.get());
  }

 private:
  Storage* storage_;
  uint32_t table_id_;
  std::shared_ptr<const Storage::Snapshot> snapshot_;
};

Error OutsideWindow() {
  // The exception's documented meaning; the service's exact text is not recorded.
  return Error(ErrorCode::kInvalidExportTime,
               "The specified ExportTime is outside of the point in time recovery window");
}

bool SameRequest(const ExportDescription& a, const ExportTableRequest& b) {
  auto same_spec = [](const std::optional<IncrementalExportSpecification>& x,
                      const std::optional<IncrementalExportSpecification>& y) {
    if (x.has_value() != y.has_value()) return false;
    if (!x) return true;
    return x->from_time == y->from_time && x->to_time == y->to_time && x->view_type == y->view_type;
  };
  return a.s3_bucket == b.s3_bucket && a.s3_bucket_owner == b.s3_bucket_owner &&
         a.s3_prefix == b.s3_prefix && a.s3_sse_algorithm == b.s3_sse_algorithm &&
         a.s3_sse_kms_key_id == b.s3_sse_kms_key_id &&
         a.export_format == b.export_format.value_or(ExportFormat::kDynamoDbJson) &&
         a.export_type == b.export_type && same_spec(a.incremental, b.incremental);
}

}  // namespace

Result<std::unique_ptr<TableReader>> TableReaderAt(EngineImpl& impl, const TableInfo& table,
                                                   std::optional<double> time) {
  if (time) return OutsideWindow();  // no point-in-time history in this build
  return std::unique_ptr<TableReader>(new SnapshotReader(impl.storage.get(), table.id));
}

struct Exports::Job {
  std::string id;
  std::string table_name;
  uint32_t table_id = 0;
  std::string table_arn;  // as of the request (for the manifest)
  ExportDescription d;    // ARNs are filled when described (they name the caller's account)
};

namespace {

Item ToRecord(const std::string& id, uint32_t table_id, const std::string& table,
              const std::string& table_arn, const ExportDescription& d) {
  Item r;
  r["TableArn"] = Str(table_arn);
  r["Format"] = Num(kExportRecordFormat);
  r["Id"] = Str(id);
  r["Table"] = Str(table);
  r["TableNum"] = Num(table_id);
  r["TableId"] = Str(d.table_id);
  r["Status"] = Num(static_cast<int>(d.status));
  r["Start"] = Ms(d.start_time);
  if (d.end_time) r["End"] = Ms(*d.end_time);
  if (d.export_manifest) r["Manifest"] = Str(*d.export_manifest);
  r["ExportTime"] = Ms(d.export_time);
  r["Token"] = Str(d.client_token);
  r["Bucket"] = Str(d.s3_bucket);
  if (d.s3_bucket_owner) r["Owner"] = Str(*d.s3_bucket_owner);
  if (d.s3_prefix) r["Prefix"] = Str(*d.s3_prefix);
  if (d.s3_sse_algorithm) r["Sse"] = Str(*d.s3_sse_algorithm);
  if (d.s3_sse_kms_key_id) r["SseKey"] = Str(*d.s3_sse_kms_key_id);
  if (d.failure_code) r["FailureCode"] = Str(*d.failure_code);
  if (d.failure_message) r["FailureMessage"] = Str(*d.failure_message);
  r["ExportFormat"] = Num(static_cast<int>(d.export_format));
  if (d.billed_size_bytes) r["Billed"] = Num(*d.billed_size_bytes);
  if (d.item_count) r["Items"] = Num(*d.item_count);
  if (d.export_type) r["Type"] = Num(static_cast<int>(*d.export_type));
  if (d.incremental) {
    AttributeMap m;
    if (d.incremental->from_time) m["From"] = Ms(*d.incremental->from_time);
    if (d.incremental->to_time) m["To"] = Ms(*d.incremental->to_time);
    if (d.incremental->view_type) m["View"] = Num(static_cast<int>(*d.incremental->view_type));
    r["Incremental"] = AttributeValue::M(std::move(m));
  }
  return r;
}

Result<ExportDescription> FromRecord(const Item& r, std::string* id, uint32_t* table_id,
                                     std::string* table, std::string* table_arn) {
  if (int64_t f = NumOf(r, "Format", 1); f > kExportRecordFormat) {
    return NewerFormat("an export record", f, kExportRecordFormat);
  }
  ExportDescription d;
  *id = r.at("Id").scalar();
  *table = r.at("Table").scalar();
  *table_arn = r.at("TableArn").scalar();
  *table_id = static_cast<uint32_t>(NumOf(r, "TableNum"));
  d.table_id = r.at("TableId").scalar();
  d.status = static_cast<ExportStatus>(NumOf(r, "Status"));
  d.start_time = *TimeOf(r, "Start");
  d.end_time = TimeOf(r, "End");
  d.export_manifest = StrOf(r, "Manifest");
  d.export_time = *TimeOf(r, "ExportTime");
  d.client_token = r.at("Token").scalar();
  d.s3_bucket = r.at("Bucket").scalar();
  d.s3_bucket_owner = StrOf(r, "Owner");
  d.s3_prefix = StrOf(r, "Prefix");
  d.s3_sse_algorithm = StrOf(r, "Sse");
  d.s3_sse_kms_key_id = StrOf(r, "SseKey");
  d.failure_code = StrOf(r, "FailureCode");
  d.failure_message = StrOf(r, "FailureMessage");
  d.export_format = static_cast<ExportFormat>(NumOf(r, "ExportFormat"));
  if (r.count("Billed")) d.billed_size_bytes = NumOf(r, "Billed");
  if (r.count("Items")) d.item_count = NumOf(r, "Items");
  if (r.count("Type")) d.export_type = static_cast<ExportType>(NumOf(r, "Type"));
  if (auto it = r.find("Incremental"); it != r.end()) {
    IncrementalExportSpecification spec;
    spec.from_time = TimeOf(it->second.map(), "From");
    spec.to_time = TimeOf(it->second.map(), "To");
    if (it->second.map().count("View")) {
      spec.view_type = static_cast<ExportViewType>(NumOf(it->second.map(), "View"));
    }
    d.incremental = spec;
  }
  return d;
}

}  // namespace

Exports::Exports(EngineImpl* impl) : impl_(impl) {}
Exports::~Exports() = default;

Status Exports::Persist(const Job& job) {
  std::string value;
  EncodeItem(ToRecord(job.id, job.table_id, job.table_name, job.table_arn, job.d), &value);
  Storage::Batch batch(*impl_->storage);
  batch.Put(Cf::kMeta, std::string(kExportKeyPrefix) + job.id, value);
  return impl_->storage->Write(batch);
}

Status Exports::Load() {
  std::vector<std::shared_ptr<Job>> interrupted;
  Status decoded = Status::Ok();
  std::string end(kExportKeyPrefix);
  end.back() = static_cast<char>(end.back() + 1);
  DDB_RETURN_IF_ERROR(impl_->storage->ForEach(
      Cf::kMeta, kExportKeyPrefix, end, [&](std::string_view, std::string_view value) {
        Item r;
        if (!DecodeItem(value, &r)) {
          decoded = Error::Internal("unreadable export record");
          return false;
        }
        auto job = std::make_shared<Job>();
        Result<ExportDescription> d =
            FromRecord(r, &job->id, &job->table_id, &job->table_name, &job->table_arn);
        if (!d.ok()) {
          decoded = d.error();
          return false;
        }
        job->d = std::move(d).value();
        if (job->d.status == ExportStatus::kInProgress) interrupted.push_back(job);
        std::lock_guard lock(mu_);
        jobs_[job->id] = job;
        tokens_[job->d.client_token] = job->id;
        return true;
      }));
  DDB_RETURN_IF_ERROR(decoded);
  for (auto& job : interrupted) {
    std::shared_ptr<const TableInfo> table = impl_->catalog->FindById(job->table_id);
    Result<std::unique_ptr<TableReader>> reader =
        table ? TableReaderAt(*impl_, *table, job->d.export_time)
              : Result<std::unique_ptr<TableReader>>(TableNotFound());
    if (reader.ok()) {
      std::shared_ptr<TableReader> shared(std::move(reader).value());
      std::lock_guard threads(impl_->backfill_mu);
      impl_->backfills.emplace_back(&Exports::Run, this, job, shared);
      continue;
    }
    // ddb's own code and text: the snapshot the export read died with the last run.
    job->d.status = ExportStatus::kFailed;
    job->d.failure_code = "ExportInterrupted";
    job->d.failure_message =
        "The export was interrupted by a restart, and the table as of ExportTime is no longer "
        "available";
    job->d.end_time = NowSeconds();
    DDB_RETURN_IF_ERROR(Persist(*job));
  }
  return Status::Ok();
}

Result<ExportDescription> Exports::Start(const RequestContext& ctx, const ExportTableRequest& req) {
  std::string table_name;
  if (!TableNameOfArn(req.table_arn, &table_name)) {
    return Error::Validation("Invalid TableArn: " + req.table_arn);
  }
  std::shared_ptr<const TableInfo> table = impl_->catalog->Find(table_name);
  if (!table || impl_->table_holds->StatusOf(table_name) == TableStatus::kCreating) {
    return Error(ErrorCode::kTableNotFound, "Table not found: " + table_name);
  }
  const TableDescription& td = table->description;
  if (!td.pitr_enabled_since) {
    // Guess at the text (the service's is not recorded).
    return Error(ErrorCode::kPointInTimeRecoveryUnavailable,
                 "Point in time recovery is not enabled for table '" + table_name + "'");
  }
  const double now = NowSeconds();
  const double earliest =
      std::max(*td.pitr_enabled_since, now - 86400.0 * td.pitr_recovery_period_days);
  const bool incremental = req.export_type == ExportType::kIncrementalExport;
  if (incremental && (!req.incremental || !req.incremental->from_time)) {
    return Error::Validation(
        "IncrementalExportSpecification with ExportFromTime is required for "
        "INCREMENTAL_EXPORT");  // guess at the text
  }
  if (!incremental && req.incremental) {
    return Error::Validation(
        "IncrementalExportSpecification is only valid with ExportType INCREMENTAL_EXPORT");
  }
  std::optional<double> at;  // nullopt: now
  if (req.export_time) {
    if (incremental) {
      return Error::Validation("ExportTime is not valid for an INCREMENTAL_EXPORT");
    }
    if (*req.export_time > now + kExportNowSlackSeconds || *req.export_time < earliest - 1) {
      return OutsideWindow();
    }
    if (*req.export_time < now - kExportNowSlackSeconds) at = *req.export_time;
  }
  if (incremental) {
    const double from = *req.incremental->from_time;
    const double to = req.incremental->to_time.value_or(now);
    if (to - from < 15 * 60) {
      // The prefix is the service's (scylladb test_export.py); the rest is a guess.
      return Error(ErrorCode::kInvalidExportTime,
                   "Difference between export period start time and end time should be at "
                   "least 15 minutes");
    }
    if (from < earliest - 1 || to > now + kExportNowSlackSeconds) return OutsideWindow();
    // Incremental exports read the change history between the two times, which this build
    // does not keep: the window that history would give is empty.
    return OutsideWindow();
  }
  const std::string token = req.client_token.value_or(NewUuid());
  std::lock_guard lock(mu_);
  if (auto t = tokens_.find(token); t != tokens_.end()) {
    const Job& prior = *jobs_.at(t->second);
    if (SameRequest(prior.d, req) && prior.table_name == table_name) {
      return DescribeJob(ctx, prior);
    }
    // The service's opening words (scylladb test_export.py); the rest is a guess.
    return Error(ErrorCode::kExportConflict,
                 "Duplicate request detected with conflicting parameters");
  }
  size_t running = 0;
  for (const auto& [id, job] : jobs_) running += job->d.status == ExportStatus::kInProgress;
  if (running >= kMaxRunningExports) {
    return Error(ErrorCode::kLimitExceeded,
                 "Cannot have more than 300 exports in progress at a time");
  }
  DDB_ASSIGN_OR_RETURN(std::unique_ptr<TableReader> reader, TableReaderAt(*impl_, *table, at));
  auto job = std::make_shared<Job>();
  job->id = NewTaskId();
  job->table_name = table_name;
  job->table_id = table->id;
  job->table_arn = "arn:aws:dynamodb:" + ctx.region + ":" + ctx.account_id + ":table/" + table_name;
  ExportDescription& d = job->d;
  d.status = ExportStatus::kInProgress;
  d.start_time = now;
  d.export_time = at.value_or(now);
  d.table_id = td.table_id;
  d.client_token = token;
  d.s3_bucket = req.s3_bucket;
  d.s3_bucket_owner = req.s3_bucket_owner;
  d.s3_prefix = req.s3_prefix;
  d.s3_sse_algorithm = req.s3_sse_algorithm;
  d.s3_sse_kms_key_id = req.s3_sse_kms_key_id;
  d.export_format = req.export_format.value_or(ExportFormat::kDynamoDbJson);
  d.export_type = req.export_type;
  d.incremental = req.incremental;
  DDB_RETURN_IF_ERROR(Persist(*job));
  jobs_[job->id] = job;
  tokens_[token] = job->id;
  std::shared_ptr<TableReader> shared(std::move(reader));
  {
    std::lock_guard threads(impl_->backfill_mu);
    impl_->backfills.emplace_back(&Exports::Run, this, job, shared);
  }
  return DescribeJob(ctx, *job);
}

ExportDescription Exports::DescribeJob(const RequestContext& ctx, const Job& job) {
  ExportDescription d = job.d;
  d.table_arn =
      "arn:aws:dynamodb:" + ctx.region + ":" + ctx.account_id + ":table/" + job.table_name;
  d.export_arn = d.table_arn + "/export/" + job.id;
  return d;
}

Result<ExportDescription> Exports::Describe(const RequestContext& ctx, const std::string& arn) {
  std::string table, id;
  // "Invalid Export ARN" as the service answers a malformed one (scylladb test_export.py).
  if (!ParseTaskArn(arn, "export", &table, &id)) return Error::Validation("Invalid Export ARN");
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->table_name != table) {
    return Error(ErrorCode::kExportNotFound, "Export not found: " + arn);  // guess at the text
  }
  return DescribeJob(ctx, *it->second);
}

Result<ListExportsResult> Exports::List(const RequestContext& ctx, const ListExportsRequest& req) {
  std::optional<std::string> table;
  if (req.table_arn) {
    std::string name;
    if (!TableNameOfArn(*req.table_arn, &name)) return Error::Validation("Invalid TableArn");
    table = name;
  }
  std::string after;
  if (req.next_token) {
    // NextToken: the hex of the last export id returned.
    const std::string& t = *req.next_token;
    bool ok = t.size() == 46 && t.find_first_not_of("0123456789abcdef") == std::string::npos;
    for (size_t i = 0; ok && i < t.size(); i += 2) {
      after.push_back(static_cast<char>(std::stoi(t.substr(i, 2), nullptr, 16)));
    }
    if (!ok) {
      // The service names the operation (scylladb test_export.py); the rest is a guess.
      return Error::Validation("Invalid NextToken for ListExports");
    }
  }
  ListExportsResult out;
  std::lock_guard lock(mu_);
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {
    if (!after.empty() && it->first >= after) continue;
    if (table && it->second->table_name != *table) continue;
    if (out.exports.size() == static_cast<size_t>(req.max_results)) {
      const std::string& last = out.exports.back().export_arn;
      out.next_token = Hex(last.substr(last.size() - 23));
      break;
    }
    out.exports.push_back(DescribeJob(ctx, *it->second));
  }
  return out;
}

void Exports::Run(std::shared_ptr<Job> job, std::shared_ptr<TableReader> reader) {
  LocalS3 s3(impl_->options.s3_dir);
  ExportDescription d;
  {
    std::lock_guard lock(mu_);
    d = job->d;
  }
  std::optional<std::string> failure_code, failure_message;
  int64_t items = 0, billed = 0;
  std::string manifest_key;
  Status status = Status::Ok();
  if (!s3.BucketExists(d.s3_bucket)) {
    failure_code = kNoSuchBucketCode;
    failure_message = kNoSuchBucketMessage;
  } else {
    std::string base = d.s3_prefix.value_or("");
    if (!base.empty() && base.back() != '/') base.push_back('/');
    base += "AWSDynamoDB/" + job->id + "/";
    const std::string bucket = d.s3_bucket;
    status = s3.Put(bucket, base + "_started", "");
    const bool ion = d.export_format == ExportFormat::kIon;
    std::string manifest_files;
    auto gz = std::make_unique<GzipWriter>();
    int64_t file_items = 0;
    std::string line;
    auto finish_file = [&]() -> Status {
      std::string data = gz->Finish();
      gz = std::make_unique<GzipWriter>();
      // A random 26-character name, as the service's data files.
      std::string name = NewUuid();
      std::erase(name, '-');
      name = name.substr(0, 26) + (ion ? ".ion.gz" : ".json.gz");
      const std::string key = base + "data/" + name;
      DDB_RETURN_IF_ERROR(s3.Put(bucket, key, data));
      std::string md5 = Md5(data);
      std::string b64;
      AppendBase64(&b64, md5);
      manifest_files += "{\"itemCount\":" + std::to_string(file_items) + ",\"md5Checksum\":";
      AppendJsonString(&manifest_files, b64);
      manifest_files += ",\"etag\":";
      AppendJsonString(&manifest_files, Hex(md5));
      manifest_files += ",\"dataFileS3Key\":";
      AppendJsonString(&manifest_files, key);
      manifest_files += "}\n";
      file_items = 0;
      return Status::Ok();
    };
    Item item;
    if (status.ok()) {
      status = reader->ForEachItem([&](std::string_view, std::string_view value) {
        if (impl_->stopping) return false;
        if (!DecodeItem(value, &item)) {
          status = Error::Internal("unreadable item");
          return false;
        }
        line.clear();
        if (ion) {
          AppendIonItem(&line, item);
        } else {
          AppendDynamoDbJsonItem(&line, item);
        }
        line.push_back('\n');
        gz->Append(line);
        ++items;
        billed += static_cast<int64_t>(ItemSize(item));
        if (++file_items >= kItemsPerFile) {
          Status written = finish_file();
          if (!written.ok()) {
            status = written;
            return false;
          }
        }
        return true;
      });
    }
    if (impl_->stopping) return;  // IN_PROGRESS on disk: Load decides at the next open
    if (status.ok() && (file_items > 0 || manifest_files.empty())) status = finish_file();
    if (status.ok()) {
      const double end = NowSeconds();
      const std::string files_key = base + "manifest-files.json";
      std::string summary = "{\"version\":\"2020-06-30\",\"exportArn\":";
      const std::string& table_arn = job->table_arn;
      AppendJsonString(&summary, table_arn + "/export/" + job->id);
      summary += ",\"startTime\":\"" + IsoTime(d.start_time) + "\",\"endTime\":\"" + IsoTime(end) +
                 "\",\"tableArn\":";
      AppendJsonString(&summary, table_arn);
      summary += ",\"tableId\":";
      AppendJsonString(&summary, d.table_id);
      summary += ",\"exportTime\":\"" + IsoTime(d.export_time) + "\",\"s3Bucket\":";
      AppendJsonString(&summary, bucket);
      summary += ",\"s3Prefix\":";
      if (d.s3_prefix) {
        AppendJsonString(&summary, *d.s3_prefix);
      } else {
        summary += "null";
      }
      summary += ",\"s3SseAlgorithm\":";
      AppendJsonString(&summary, d.s3_sse_algorithm.value_or("AES256"));
      summary += ",\"s3SseKmsKeyId\":";
      if (d.s3_sse_kms_key_id) {
        AppendJsonString(&summary, *d.s3_sse_kms_key_id);
      } else {
        summary += "null";
      }
      summary += ",\"manifestFilesS3Key\":";
      AppendJsonString(&summary, files_key);
      summary += ",\"billedSizeBytes\":" + std::to_string(billed) +
                 ",\"itemCount\":" + std::to_string(items) + ",\"outputFormat\":\"" +
                 std::string(EnumName(d.export_format)) + "\",\"exportType\":\"" +
                 std::string(EnumName(d.export_type.value_or(ExportType::kFullExport))) + "\"}";
      auto checksum = [](std::string_view bytes) {
        std::string b64;
        AppendBase64(&b64, Md5(bytes));
        return b64;
      };
      // The checksum files as observed on the service (manifest-*.md5: the base64 MD5).
      manifest_key = base + "manifest-summary.json";
      status = s3.Put(bucket, files_key, manifest_files);
      if (status.ok())
        status = s3.Put(bucket, base + "manifest-files.md5", checksum(manifest_files));
      if (status.ok()) status = s3.Put(bucket, manifest_key, summary);
      if (status.ok()) status = s3.Put(bucket, base + "manifest-summary.md5", checksum(summary));
    }
  }
  if (!status.ok()) {
    failure_code = "InternalError";
    failure_message = status.error().message();
  }
  std::lock_guard lock(mu_);
  job->d.status = failure_code ? ExportStatus::kFailed : ExportStatus::kCompleted;
  job->d.end_time = NowSeconds();
  job->d.failure_code = failure_code;
  job->d.failure_message = failure_message;
  if (!failure_code) {
    job->d.item_count = items;
    job->d.billed_size_bytes = billed;
    job->d.export_manifest = manifest_key;
  }
  Status persisted = Persist(*job);
  if (!persisted.ok()) {
    impl_->storage->Log(LogSeverity::kError,
                        "cannot record export " + job->id + ": " + persisted.error().message());
  }
}

Result<ExportDescription> Engine::ExportTableToPointInTime(const RequestContext& ctx,
                                                           const ExportTableRequest& req) {
  return impl_->exports->Start(ctx, req);
}

Result<ExportDescription> Engine::DescribeExport(const RequestContext& ctx,
                                                 const std::string& arn) {
  return impl_->exports->Describe(ctx, arn);
}

Result<ListExportsResult> Engine::ListExports(const RequestContext& ctx,
                                              const ListExportsRequest& req) {
  return impl_->exports->List(ctx, req);
}

}  // namespace ddb
