// ExportTableToPointInTime, DescribeExport, ListExports (exports.h): validation, the job that
// writes the service's output layout into local S3 (full and incremental), records, and the
// readers (TableReaderAt, ChangeReaderAt).
#include "engine/import_export/exports.h"

#include <cmath>

#include "ddb/stored_item.h"
#include "engine/engine_impl.h"
#include "engine/import_export/dynamodb_json.h"
#include "engine/import_export/imports.h"
#include "engine/import_export/ion_text.h"
#include "engine/import_export/local_s3.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/store_format.h"
#include "util/arn.h"
#include "util/base64.h"
#include "util/digest.h"
#include "util/hex.h"
#include "util/iso8601.h"
#include "util/json_escape.h"
#include "util/uuid.h"

namespace ddb {
namespace {

// The service allows 300 exports in progress per account (LimitExceededException); the
// message is a guess.
constexpr size_t kMaxRunningExports = 300;
// Items per data file (the service writes at least one file per partition).
constexpr int64_t kItemsPerFile = 100000;
constexpr std::string_view kExportKeyPrefix = "export/";

double NowSeconds() { return static_cast<double>(WallClockMillis()) / 1000.0; }
// "2020-11-04T07:28:34.028Z" for epoch seconds (the manifests' times).
std::string IsoTime(double epoch_seconds) {
  return util::FormatIso8601Millis(std::llround(epoch_seconds * 1000));
}
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

uint64_t MillisOf(double seconds) {
  return seconds <= 0 ? 0 : static_cast<uint64_t>(std::floor(seconds * 1000.0 + 1e-6));
}

Error OutsideWindow() {
  // The service's words for an ExportTime outside the recovery window (scylladb
  // test_export.py, test_export_table_invalid_export_time).
  return Error(ErrorCode::kInvalidExportTime, "Export Time is invalid");
}

// A full export's reader: the snapshot alone for "now", or the history undone as of an
// earlier time.
class ItemsReader : public TableReader {
 public:
  ItemsReader(EngineImpl* impl, uint32_t table_id, uint64_t as_of_ms, bool now)
      : TableReader(impl, table_id, as_of_ms), as_of_ms_(as_of_ms), now_(now) {}
  uint64_t as_of_ms() const override { return as_of_ms_; }
  Status ForEachItem(const std::function<bool(std::string_view, std::string_view)>& fn) override {
    if (now_) {
      return impl_->storage->ForEach(Cf::kItems, TablePrefix(table_id_), TablePrefixEnd(table_id_),
                                     fn, /*reverse=*/false, snapshot_.get());
    }
    return ItemsAsOf(*impl_->storage, snapshot_.get(), table_id_, as_of_ms_, fn);
  }

 private:
  uint64_t as_of_ms_;
  bool now_;
};

class ChangeReader : public ExportReader {
 public:
  ChangeReader(EngineImpl* impl, const TableInfo& table, uint64_t from_ms, uint64_t to_ms,
               ExportViewType view)
      // Changes at from_ms are in the window: the history after from_ms - 1 is needed.
      : ExportReader(impl, table.id, from_ms - 1),
        from_ms_(from_ms),
        to_ms_(to_ms),
        view_(view),
        hash_(table.description.hash_key()) {
    if (const std::string* range = table.description.range_key()) range_ = *range;
  }
  Status ForEachRecord(ExportFormat format,
                       const std::function<bool(std::string_view, int64_t)>& fn) override {
    const bool ion = format == ExportFormat::kIon;
    Status status = Status::Ok();
    Item before, after, keys;
    std::string line;
    DDB_RETURN_IF_ERROR(ChangesBetween(
        *impl_->storage, snapshot_.get(), table_id_, from_ms_, to_ms_,
        [&](std::string_view, uint64_t last_ms, const std::optional<std::string>& old_image,
            const std::optional<std::string>& new_image) {
          // An item created and deleted in the window leaves nothing (as the service's
          // compacted output).
          if (!old_image && !new_image) return true;
          before.clear();
          after.clear();
          if ((old_image && !DecodeItem(*old_image, &before)) ||
              (new_image && !DecodeItem(*new_image, &after))) {
            status = Error::Internal("unreadable item");
            return false;
          }
          const Item& some = new_image ? after : before;
          keys.clear();
          if (auto h = some.find(hash_); h != some.end()) keys.insert(*h);
          if (!range_.empty()) {
            if (auto r = some.find(range_); r != some.end()) keys.insert(*r);
          }
          const bool with_old = old_image && view_ == ExportViewType::kNewAndOldImages;
          const std::string micros = std::to_string(last_ms * 1000);
          line.clear();
          if (ion) {
            // The Ion form of an incremental record is a guess: the developer guide shows the
            // DYNAMODB_JSON one; the timestamp is written as an Ion integer.
            line += "$ion_1_0 {Metadata:{WriteTimestampMicros:" + micros + "},Keys:";
            AppendIonMap(&line, keys);
            if (new_image) {
              line += ",NewImage:";
              AppendIonMap(&line, after);
            }
            if (with_old) {
              line += ",OldImage:";
              AppendIonMap(&line, before);
            }
            line += "}";
          } else {
            line += "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"" + micros + "\"}},\"Keys\":";
            AppendDynamoDbJsonMap(&line, keys);
            if (new_image) {
              line += ",\"NewImage\":";
              AppendDynamoDbJsonMap(&line, after);
            }
            if (with_old) {
              line += ",\"OldImage\":";
              AppendDynamoDbJsonMap(&line, before);
            }
            line += "}";
          }
          int64_t billed = new_image ? static_cast<int64_t>(ItemSize(after)) : 0;
          if (with_old) billed += static_cast<int64_t>(ItemSize(before));
          return fn(line, billed);
        }));
    return status;
  }

 private:
  uint64_t from_ms_, to_ms_;
  ExportViewType view_;
  std::string hash_, range_;
};

// Pins the table's history at `pin_ms`, waits for item writers and takes the snapshot, then
// checks that the table's recovery window still covers `pin_ms` (the trimmer may have taken
// history before the pin). Errors: kInvalidExportTime.
Status CheckCovered(EngineImpl& impl, const TableInfo& table, uint64_t pin_ms) {
  std::shared_ptr<const TableInfo> now = impl.catalog->FindById(table.id);
  std::optional<EngineImpl::PitrWindow> w = now ? impl.PitrWindowOf(*now) : std::nullopt;
  // (No upper bound: the request checked it, and a Mark() may run ahead of the wall clock
  // by a millisecond per Mark within one millisecond.)
  if (!w || pin_ms < w->earliest_ms) return OutsideWindow();
  return Status::Ok();
}

bool SameRequest(const ExportDescription& a, const ExportTableRequest& b) {
  auto same_spec = [](const std::optional<IncrementalExportSpecification>& x,
                      const std::optional<IncrementalExportSpecification>& y) {
    if (x.has_value() != y.has_value()) return false;
    if (!x) return true;
    // x is as described (ExportToTime and the view type filled in), y as asked.
    return x->from_time == y->from_time && (!y->to_time || x->to_time == y->to_time) &&
           x->view_type.value_or(ExportViewType::kNewAndOldImages) ==
               y->view_type.value_or(ExportViewType::kNewAndOldImages);
  };
  return a.s3_bucket == b.s3_bucket && a.s3_bucket_owner == b.s3_bucket_owner &&
         a.s3_prefix == b.s3_prefix && a.s3_sse_algorithm == b.s3_sse_algorithm &&
         a.s3_sse_kms_key_id == b.s3_sse_kms_key_id &&
         a.export_format == b.export_format.value_or(ExportFormat::kDynamoDbJson) &&
         a.export_type == b.export_type && same_spec(a.incremental, b.incremental);
}

}  // namespace

ExportReader::ExportReader(EngineImpl* impl, uint32_t table_id, uint64_t pin_ms)
    : impl_(impl), table_id_(table_id), pin_ms_(pin_ms) {
  impl_->backups->Pin(table_id_, pin_ms_);
  // Every change committed with a time up to now is in the snapshot.
  impl_->WaitForItemWriters();
  snapshot_ = impl_->storage->TakeSnapshot();
}

ExportReader::~ExportReader() {
  snapshot_.reset();
  std::lock_guard lock(impl_->backups_mu);
  impl_->backups->Unpin(table_id_, pin_ms_);
  Status released = impl_->ReleaseIfUnpinned(table_id_);
  if (!released.ok()) {
    impl_->storage->Log(LogSeverity::kError,
                        "cannot release the history an export kept: " + released.error().message());
  }
}

Status TableReader::ForEachRecord(ExportFormat format,
                                  const std::function<bool(std::string_view, int64_t)>& fn) {
  const bool ion = format == ExportFormat::kIon;
  Item item;
  std::string line;
  Status status = Status::Ok();
  DDB_RETURN_IF_ERROR(ForEachItem([&](std::string_view, std::string_view value) {
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
    return fn(line, static_cast<int64_t>(ItemSize(item)));
  }));
  return status;
}

Result<std::unique_ptr<TableReader>> TableReaderAt(EngineImpl& impl, const TableInfo& table,
                                                   std::optional<uint64_t> as_of_ms) {
  if (!as_of_ms) {
    // Every later commit gets a later time, and the reader's snapshot (after the writers
    // that took earlier times) holds every earlier one.
    const uint64_t mark = impl.history_clock.Mark();
    auto reader = std::make_unique<ItemsReader>(&impl, table.id, mark, /*now=*/true);
    DDB_RETURN_IF_ERROR(CheckCovered(impl, table, mark));
    return std::unique_ptr<TableReader>(std::move(reader));
  }
  auto reader = std::make_unique<ItemsReader>(&impl, table.id, *as_of_ms, /*now=*/false);
  DDB_RETURN_IF_ERROR(CheckCovered(impl, table, *as_of_ms));
  return std::unique_ptr<TableReader>(std::move(reader));
}

Result<std::unique_ptr<ExportReader>> ChangeReaderAt(EngineImpl& impl, const TableInfo& table,
                                                     uint64_t from_ms, uint64_t* to_ms,
                                                     ExportViewType view) {
  const uint64_t mark = impl.history_clock.Mark();
  *to_ms = std::min(*to_ms, mark + 1);
  auto reader = std::make_unique<ChangeReader>(&impl, table, from_ms, *to_ms, view);
  DDB_RETURN_IF_ERROR(CheckCovered(impl, table, from_ms - 1));
  return std::unique_ptr<ExportReader>(std::move(reader));
}

struct Exports::Job {
  std::string id;
  std::string table_name;
  uint32_t table_id = 0;
  std::string table_arn;  // as of the request (for the manifest)
  ExportDescription d;    // ARNs are filled when described (they name the caller's account)
  // An incremental export's window as read: [from_ms, to_ms) (to_ms cut to the request).
  uint64_t from_ms = 0, to_ms = 0;
};

namespace {

Item ToRecord(const std::string& id, uint32_t table_id, const std::string& table,
              const std::string& table_arn, const ExportDescription& d, uint64_t from_ms,
              uint64_t to_ms) {
  Item r;
  if (to_ms) {
    r["FromMs"] = Num(static_cast<int64_t>(from_ms));
    r["ToMs"] = Num(static_cast<int64_t>(to_ms));
  }
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
  EncodeItem(
      ToRecord(job.id, job.table_id, job.table_name, job.table_arn, job.d, job.from_ms, job.to_ms),
      &value);
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
        job->from_ms = static_cast<uint64_t>(NumOf(r, "FromMs"));
        job->to_ms = static_cast<uint64_t>(NumOf(r, "ToMs"));
        if (job->d.status == ExportStatus::kInProgress) interrupted.push_back(job);
        std::lock_guard lock(mu_);
        jobs_[job->id] = job;
        tokens_[job->d.client_token] = job->id;
        return true;
      }));
  DDB_RETURN_IF_ERROR(decoded);
  for (auto& job : interrupted) {
    std::shared_ptr<const TableInfo> table = impl_->catalog->FindById(job->table_id);
    Result<std::shared_ptr<ExportReader>> reader = Error(TableNotFound());
    if (table && job->d.export_type == ExportType::kIncrementalExport) {
      uint64_t to_ms = job->to_ms;
      auto r =
          ChangeReaderAt(*impl_, *table, job->from_ms, &to_ms,
                         job->d.incremental->view_type.value_or(ExportViewType::kNewAndOldImages));
      if (r.ok())
        reader = std::shared_ptr<ExportReader>(std::move(r).value());
      else
        reader = r.error();
    } else if (table) {
      auto r = TableReaderAt(*impl_, *table, MillisOf(job->d.export_time));
      if (r.ok())
        reader = std::shared_ptr<ExportReader>(std::move(r).value());
      else
        reader = r.error();
    }
    if (reader.ok()) {
      // The table as of ExportTime is still in its history: the export starts over from
      // there (data files of the cut-short run stay, unlisted, as objects of a failed upload
      // would).
      impl_->storage->Log(LogSeverity::kInfo,
                          "export " + job->id + " was cut short by a restart: it starts again");
      std::lock_guard threads(impl_->backfill_mu);
      impl_->backfills.emplace_back(&Exports::Run, this, job, std::move(reader).value());
      continue;
    }
    // ddb's own code and text: the history the export read is gone.
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

namespace {

// What ExportTableToPointInTime reads: the table as of `at` (nullopt: now), or an
// incremental export's changes in [from_ms, to_ms).
struct ExportTimes {
  std::optional<uint64_t> at;
  uint64_t from_ms = 0;
  uint64_t to_ms = 0;
};

// ExportTime, or an incremental export's period, checked against the table's recovery
// window at `now_ms`. Errors: kValidation, kInvalidExportTime.
Result<ExportTimes> CheckExportTimes(const ExportTableRequest& req,
                                     const EngineImpl::PitrWindow& window, uint64_t now_ms) {
  const uint64_t slack_ms = static_cast<uint64_t>(kExportNowSlackSeconds * 1000);
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
  ExportTimes times;
  if (req.export_time) {
    if (incremental) {
      return Error::Validation("ExportTime is not valid for an INCREMENTAL_EXPORT");
    }
    const uint64_t t = MillisOf(*req.export_time);
    // A second of slack before the window's start (a client's rounding of
    // EarliestRestorableDateTime); such a time reads the window's start.
    if (t > now_ms + slack_ms || t + 1000 < window.earliest_ms) return OutsideWindow();
    if (t + slack_ms < now_ms) {
      if (t > window.latest_ms) return OutsideWindow();
      times.at = std::max(t, window.earliest_ms);
    }
  }
  if (incremental) {
    // ExportFromTime is inclusive and ExportToTime exclusive (API_IncrementalExportSpecification);
    // without ExportToTime, "the latest time with data available": LatestRestorableDateTime.
    times.from_ms = MillisOf(*req.incremental->from_time);
    times.to_ms = req.incremental->to_time ? MillisOf(*req.incremental->to_time) : window.latest_ms;
    constexpr uint64_t kMinPeriodMs = 15 * 60 * 1000, kMaxPeriodMs = 24 * 60 * 60 * 1000;
    if (times.from_ms >= times.to_ms) {
      // A guess at the text.
      return Error(ErrorCode::kInvalidExportTime,
                   "ExportFromTime must be earlier than ExportToTime");
    }
    if (times.to_ms - times.from_ms < kMinPeriodMs) {
      // The prefix is the service's (scylladb test_export.py); the rest is a guess.
      return Error(ErrorCode::kInvalidExportTime,
                   "Difference between export period start time and end time should be at "
                   "least 15 minutes");
    }
    if (times.to_ms - times.from_ms > kMaxPeriodMs) {
      // The service's limit (an export period of 15 minutes up to 24 hours); the text is a
      // guess modelled on the minimum's.
      return Error(ErrorCode::kInvalidExportTime,
                   "Difference between export period start time and end time should be at "
                   "most 24 hours");
    }
    if (times.from_ms + 1000 < window.earliest_ms || times.to_ms > now_ms + slack_ms) {
      // A guess at the text (the exception's documented meaning).
      return Error(ErrorCode::kInvalidExportTime,
                   "The export period must lie within the point in time recovery window");
    }
    // The history holds every change after the window's start.
    times.from_ms = std::max(times.from_ms, window.earliest_ms + 1);
  }
  return times;
}

}  // namespace

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
  // Not null: point-in-time recovery is on.
  DDB_ASSIGN_OR_RETURN(const ExportTimes times,
                       CheckExportTimes(req, *impl_->PitrWindowOf(*table), impl_->NowMs()));
  const bool incremental = req.export_type == ExportType::kIncrementalExport;
  std::optional<uint64_t> at = times.at;  // nullopt: now
  uint64_t from_ms = times.from_ms, to_ms = times.to_ms;
  const std::string token = req.client_token.value_or(util::NewUuid());
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
  std::shared_ptr<ExportReader> reader;
  double export_time = now;
  if (incremental) {
    const ExportViewType view =
        req.incremental->view_type.value_or(ExportViewType::kNewAndOldImages);
    DDB_ASSIGN_OR_RETURN(reader, ChangeReaderAt(*impl_, *table, from_ms, &to_ms, view));
    export_time = static_cast<double>(to_ms) / 1000.0;
  } else {
    DDB_ASSIGN_OR_RETURN(std::unique_ptr<TableReader> items, TableReaderAt(*impl_, *table, at));
    export_time = static_cast<double>(items->as_of_ms()) / 1000.0;
    reader = std::move(items);
  }
  auto job = std::make_shared<Job>();
  job->from_ms = from_ms;
  job->to_ms = to_ms;
  job->id = NewTaskId();
  job->table_name = table_name;
  job->table_id = table->id;
  job->table_arn = TableArnOf(ctx, table_name);
  ExportDescription& d = job->d;
  d.status = ExportStatus::kInProgress;
  d.start_time = now;
  d.export_time = export_time;
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
  if (incremental) {
    // Described with the window read: ExportToTime when it was left out, and the view type.
    if (!d.incremental->to_time) d.incremental->to_time = static_cast<double>(to_ms) / 1000.0;
    if (!d.incremental->view_type) d.incremental->view_type = ExportViewType::kNewAndOldImages;
  }
  DDB_RETURN_IF_ERROR(Persist(*job));
  jobs_[job->id] = job;
  tokens_[token] = job->id;
  {
    std::lock_guard threads(impl_->backfill_mu);
    impl_->backfills.emplace_back(&Exports::Run, this, job, std::move(reader));
  }
  return DescribeJob(ctx, *job);
}

ExportDescription Exports::DescribeJob(const RequestContext& ctx, const Job& job) {
  ExportDescription d = job.d;
  d.table_arn = TableArnOf(ctx, job.table_name);
  d.export_arn = util::ExportArn(d.table_arn, job.id);
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
    if (t.size() != 46 || !util::DecodeHex(t, &after)) {
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
      out.next_token = util::Hex(last.substr(last.size() - 23));
      break;
    }
    out.exports.push_back(DescribeJob(ctx, *it->second));
  }
  return out;
}

void Exports::Run(std::shared_ptr<Job> job, std::shared_ptr<ExportReader> reader) {
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
    // An incremental export's data files go to a folder its prefix's exports share, its
    // manifests to its own (the developer guide's incremental export output).
    const bool incremental = d.export_type == ExportType::kIncrementalExport;
    const std::string data_base =
        base + (incremental ? "AWSDynamoDB/" : "AWSDynamoDB/" + job->id + "/");
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
      std::string name = util::NewUuid();
      std::erase(name, '-');
      name = name.substr(0, 26) + (ion ? ".ion.gz" : ".json.gz");
      const std::string key = data_base + "data/" + name;
      DDB_RETURN_IF_ERROR(s3.Put(bucket, key, data));
      std::string md5 = util::Md5(data);
      manifest_files += "{\"itemCount\":" + std::to_string(file_items) + ",\"md5Checksum\":";
      util::AppendJsonString(&manifest_files, util::Base64(md5));
      manifest_files += ",\"etag\":";
      util::AppendJsonString(&manifest_files, util::Hex(md5));
      manifest_files += ",\"dataFileS3Key\":";
      util::AppendJsonString(&manifest_files, key);
      manifest_files += "}\n";
      file_items = 0;
      return Status::Ok();
    };
    if (status.ok()) {
      Status written = Status::Ok();
      status = reader->ForEachRecord(d.export_format, [&](std::string_view record, int64_t size) {
        if (impl_->stopping) return false;
        line.assign(record);
        line.push_back('\n');
        gz->Append(line);
        ++items;
        billed += size;
        if (++file_items >= kItemsPerFile) {
          written = finish_file();
          if (!written.ok()) return false;
        }
        return true;
      });
      if (status.ok()) status = written;
    }
    if (impl_->stopping) return;  // IN_PROGRESS on disk: Load decides at the next open
    if (status.ok() && (file_items > 0 || manifest_files.empty())) status = finish_file();
    if (status.ok()) {
      const double end = NowSeconds();
      const std::string files_key = base + "manifest-files.json";
      std::string summary = "{\"version\":\"2020-06-30\",\"exportArn\":";
      const std::string& table_arn = job->table_arn;
      util::AppendJsonString(&summary, util::ExportArn(table_arn, job->id));
      summary += ",\"startTime\":\"" + IsoTime(d.start_time) + "\",\"endTime\":\"" + IsoTime(end) +
                 "\",\"tableArn\":";
      util::AppendJsonString(&summary, table_arn);
      summary += ",\"tableId\":";
      util::AppendJsonString(&summary, d.table_id);
      if (incremental) {
        // The incremental manifest's window fields (as read: ExportToTime cut to the
        // request).
        summary += ",\"exportFromTime\":\"" +
                   util::FormatIso8601Millis(static_cast<int64_t>(job->from_ms)) +
                   "\",\"exportToTime\":\"" +
                   util::FormatIso8601Millis(static_cast<int64_t>(job->to_ms)) + "\"";
      } else {
        summary += ",\"exportTime\":\"" + IsoTime(d.export_time) + "\"";
      }
      summary += ",\"s3Bucket\":";
      util::AppendJsonString(&summary, bucket);
      summary += ",\"s3Prefix\":";
      if (d.s3_prefix) {
        util::AppendJsonString(&summary, *d.s3_prefix);
      } else {
        summary += "null";
      }
      summary += ",\"s3SseAlgorithm\":";
      util::AppendJsonString(&summary, d.s3_sse_algorithm.value_or("AES256"));
      summary += ",\"s3SseKmsKeyId\":";
      if (d.s3_sse_kms_key_id) {
        util::AppendJsonString(&summary, *d.s3_sse_kms_key_id);
      } else {
        summary += "null";
      }
      summary += ",\"manifestFilesS3Key\":";
      util::AppendJsonString(&summary, files_key);
      summary += ",\"billedSizeBytes\":" + std::to_string(billed) +
                 ",\"itemCount\":" + std::to_string(items) + ",\"outputFormat\":\"" +
                 std::string(EnumName(d.export_format)) + "\",\"exportType\":\"" +
                 std::string(EnumName(d.export_type.value_or(ExportType::kFullExport))) + "\"";
      if (incremental) {
        summary += ",\"outputView\":\"" +
                   std::string(EnumName(
                       d.incremental->view_type.value_or(ExportViewType::kNewAndOldImages))) +
                   "\"";
      }
      summary += "}";
      auto checksum = [](std::string_view bytes) { return util::Base64(util::Md5(bytes)); };
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
