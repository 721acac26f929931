// On-demand backups (CreateBackup, DescribeBackup, ListBackups, DeleteBackup), restores
// (RestoreTableFromBackup, RestoreTableToPointInTime) and their background work: the restore
// jobs, history trimming, system backups' expiry. The formats are in history.h and
// backup_registry.h; docs/architecture/backup.md has the design.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <random>

#include "ddb/limits.h"
#include "ddb/stored_item.h"
#include "engine/engine_impl.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/sorted_chunk.h"
#include "engine/table_validation.h"
#include "util/arn.h"
#include "util/uuid.h"

namespace ddb {
namespace {

constexpr uint64_t kDayMs = 86400000;
// System backups of deleted tables are kept this long (the service keeps them 35 days).
constexpr uint64_t kSystemBackupLifetimeMs = 35 * kDayMs;
// History records the trimmer deletes per table and round.
constexpr size_t kTrimPerRound = 10000;
// A restore looks whether the engine is stopping every this many items.
constexpr size_t kRestoreBatch = 1000;
// Index entries a restore collects (about, in bytes) before it sorts and writes them.
constexpr size_t kRestoreEntryBytes = 64 << 20;

std::string PitrFloorKey(uint32_t id) {
  std::string k = "pitr_floor/";
  PutFixed32BE(&k, id);
  return k;
}

std::string NewBackupId(uint64_t ms) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%014" PRIu64 "-%08x", ms, static_cast<unsigned>(rng()));
  return buf;
}

std::string BackupArn(const RequestContext& ctx, const BackupRecord& b) {
  return util::BackupArn(TableArnOf(ctx, b.table_name), b.id);
}

// The backup id an ARN of this caller's account and region names; nullopt for anything else
// (then the service's answer is BackupNotFoundException: an ARN that is well formed but not
// one of its backups is not found; how it answers a malformed one is a guess).
std::optional<std::string> BackupIdOf(const RequestContext& ctx, std::string_view arn) {
  const std::string prefix = TableArnOf(ctx, "");
  if (arn.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = arn.substr(prefix.size());
  size_t slash = rest.find("/backup/");
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  return std::string(rest.substr(slash + 8));
}

Error BackupNotFound(std::string_view arn) {
  return Error(ErrorCode::kBackupNotFound, "Backup not found: " + std::string(arn));
}

Error TableNotFoundNamed(const std::string& table) {
  return Error(ErrorCode::kTableNotFound, "Table not found: " + table);
}

double Seconds(uint64_t ms) { return static_cast<double>(ms) / 1000.0; }

uint64_t Millis(double seconds) {
  return seconds <= 0 ? 0 : static_cast<uint64_t>(std::floor(seconds * 1000.0 + 1e-6));
}

}  // namespace

// --- What the operations answer ---

namespace {

BackupDetails DetailsOf(const RequestContext& ctx, const BackupRecord& b, BackupStatus status) {
  BackupDetails d;
  d.backup_arn = BackupArn(ctx, b);
  d.backup_name = b.name;
  d.backup_size_bytes = b.size_bytes;
  d.backup_status = status;
  d.backup_type = b.type;
  d.backup_creation_date_time = Seconds(b.created_ms);
  if (b.expiry_ms) d.backup_expiry_date_time = Seconds(*b.expiry_ms);
  d.table_name = b.table_name;
  d.table_arn = TableArnOf(ctx, b.table_name);
  return d;
}

Result<BackupDescription> DescriptionOf(const RequestContext& ctx, const BackupRecord& b,
                                        BackupStatus status) {
  BackupDescription out;
  out.details = DetailsOf(ctx, b, status);
  DDB_ASSIGN_OR_RETURN(TableInfo source, DecodeTableRecord(b.table_record));
  out.source_table = std::move(source.description);
  out.source_table.table_arn = out.details.table_arn;
  out.source_table.item_count = b.item_count;
  out.source_table.table_size_bytes = b.size_bytes;
  out.details.table_id = out.source_table.table_id;
  return out;
}

}  // namespace

Result<BackupDescription> Engine::CreateBackup(const RequestContext& ctx, const std::string& table,
                                               const std::string& backup_name) {
  EngineImpl& impl = *impl_;
  std::lock_guard lock(impl.backups_mu);
  auto info = impl.catalog->Find(table);
  if (!info) return TableNotFoundNamed(table);
  if (info->restore_job || impl.table_holds->StatusOf(table) == TableStatus::kCreating) {
    // The service's words for a table whose backups are not ready yet.
    return Error(ErrorCode::kContinuousBackupsUnavailable,
                 "Backups are being enabled for the table: " + table + ". Please retry later");
  }
  // From here on every write to the table keeps its old image; writers that decided before
  // that have committed once every item lock has been free once, and every later write gets
  // a commit time after the backup's.
  impl.catalog->SetKeepHistory(info->id, true);
  impl.NoteHistoryTable(info->id);
  impl.WaitForItemWriters();
  BackupRecord b;
  b.created_ms = impl.history_clock.Mark();
  b.id = NewBackupId(b.created_ms);
  b.name = backup_name;
  b.type = BackupType::kUser;
  info = impl.catalog->FindById(info->id);
  if (!info) return TableNotFoundNamed(table);
  b.table_id = info->id;
  b.table_name = info->description.table_name;
  b.table_record = EncodeTableRecord(*info);
  DDB_ASSIGN_OR_RETURN(auto stats, impl.storage->GetStats(StatsKey(info->id)));
  std::tie(b.item_count, b.size_bytes) = stats;
  Status added = impl.backups->Add(b);
  if (!added.ok()) {
    impl.LogIfFailed(
        impl.ReleaseIfUnpinned(info->id),
        "cannot release table " + info->description.table_name + " after a failed CreateBackup");
    return added.error();
  }
  // The backup is usable at once (it is a restore point, nothing is copied), so it is
  // AVAILABLE already; the service answers CREATING and becomes AVAILABLE within minutes.
  return DescriptionOf(ctx, b, BackupStatus::kAvailable);
}

Result<BackupDescription> Engine::DescribeBackup(const RequestContext& ctx,
                                                 const std::string& arn) {
  std::optional<std::string> id = BackupIdOf(ctx, arn);
  std::optional<BackupRecord> b = id ? impl_->backups->Find(*id) : std::nullopt;
  if (!b) return BackupNotFound(arn);
  return DescriptionOf(ctx, *b, BackupStatus::kAvailable);
}

Result<ListBackupsResult> Engine::ListBackups(const RequestContext& ctx,
                                              const ListBackupsRequest& req) {
  if (req.limit && (*req.limit < 1 || *req.limit > 100)) {
    return ValidationErrors(
        {"Value '" + std::to_string(*req.limit) +
         "' at 'limit' failed to satisfy constraint: Member must have value " +
         (*req.limit < 1 ? "greater than or equal to 1" : "less than or equal to 100")});
  }
  std::optional<std::string> start;
  if (req.exclusive_start_backup_arn) {
    start = BackupIdOf(ctx, *req.exclusive_start_backup_arn);
    if (!start) start = *req.exclusive_start_backup_arn;  // matches nothing: lists from the top
  }
  ListBackupsResult result;
  std::vector<BackupRecord> all = impl_->backups->List();
  for (size_t i = 0; i < all.size(); ++i) {
    const BackupRecord& b = all[i];
    if (start && b.id <= *start) continue;
    if (req.table_name && b.table_name != *req.table_name) continue;
    if (req.backup_type && b.type != *req.backup_type) continue;
    const double created = Seconds(b.created_ms);
    if (req.time_range_lower_bound && created < *req.time_range_lower_bound) continue;
    if (req.time_range_upper_bound && created >= *req.time_range_upper_bound) continue;
    if (req.limit && result.backup_summaries.size() == static_cast<size_t>(*req.limit)) {
      result.last_evaluated_backup_arn = result.backup_summaries.back().backup_arn;
      break;
    }
    BackupDetails d = DetailsOf(ctx, b, BackupStatus::kAvailable);
    if (Result<TableInfo> source = DecodeTableRecord(b.table_record); source.ok()) {
      d.table_id = source.value().description.table_id;
    }
    result.backup_summaries.push_back(std::move(d));
  }
  return result;
}

Result<BackupDescription> Engine::DeleteBackup(const RequestContext& ctx, const std::string& arn) {
  EngineImpl& impl = *impl_;
  std::lock_guard lock(impl.backups_mu);
  std::optional<std::string> id = BackupIdOf(ctx, arn);
  std::optional<BackupRecord> b = id ? impl.backups->Find(*id) : std::nullopt;
  if (!b) return BackupNotFound(arn);
  if (impl.backups->RestoringFrom(b->id)) {
    // A guess at the service's words (BackupInUseException: "the backup is either being
    // created, deleted or restored to a table").
    return Error(ErrorCode::kBackupInUse, "Backup is being restored to a table: " + arn);
  }
  DDB_ASSIGN_OR_RETURN(BackupDescription out, DescriptionOf(ctx, *b, BackupStatus::kDeleted));
  DDB_RETURN_IF_ERROR(impl.backups->Remove(b->id));
  DDB_RETURN_IF_ERROR(impl.ReleaseIfUnpinned(b->table_id));
  return out;
}

// --- Restores ---

namespace {

// Whether a key schema of the table or of one of its indexes names attribute `name`.
bool KeyAttributeOf(const CreateTableRequest& req, const std::string& name) {
  for (const auto& k : req.key_schema) {
    if (k.attribute_name == name) return true;
  }
  for (const auto* list : {&req.local_secondary_indexes, &req.global_secondary_indexes}) {
    for (const auto& idx : *list) {
      for (const auto& k : idx.key_schema) {
        if (k.attribute_name == name) return true;
      }
    }
  }
  return false;
}

// The restored table as a CreateTable request (what a restore is checked as): the source's
// key schema and indexes (or the overrides), ACTIVE and empty, with throughput that fits the
// billing mode, and the attribute definitions the remaining keys use.
CreateTableRequest RestoreRequest(const TableDescription& src, const std::string& target,
                                  const RestoreOverrides& o) {
  CreateTableRequest req;
  req.table_name = target;
  req.key_schema = src.key_schema;
  req.billing_mode = o.billing_mode_override.value_or(src.billing_mode);
  const bool on_demand = *req.billing_mode == BillingMode::kPayPerRequest;
  req.local_secondary_indexes =
      o.local_secondary_index_override.value_or(src.local_secondary_indexes);
  if (o.global_secondary_index_override) {
    req.global_secondary_indexes = *o.global_secondary_index_override;
  } else {
    for (const auto& g : src.global_secondary_indexes) {
      if (g.index_status != IndexStatus::kDeleting) req.global_secondary_indexes.push_back(g);
    }
  }
  if (o.provisioned_throughput_override) {
    req.provisioned_throughput = o.provisioned_throughput_override;
  } else if (!on_demand) {
    req.provisioned_throughput = src.billing_mode == BillingMode::kProvisioned
                                     ? std::optional(src.provisioned_throughput)
                                     : std::nullopt;
  }
  for (auto* list : {&req.local_secondary_indexes, &req.global_secondary_indexes}) {
    for (auto& idx : *list) {
      idx.index_status = IndexStatus::kActive;
      idx.backfilling = false;
      idx.item_count = 0;
      idx.size_bytes = 0;
    }
  }
  for (auto& g : req.global_secondary_indexes) {
    if (on_demand && !o.global_secondary_index_override) g.provisioned_throughput.reset();
    // A source on demand restored as provisioned: its indexes get the table's throughput (a
    // guess: the service's documentation does not say).
    if (!on_demand && !g.provisioned_throughput && req.provisioned_throughput &&
        !o.global_secondary_index_override) {
      g.provisioned_throughput = req.provisioned_throughput;
    }
  }
  if (o.on_demand_throughput_override) {
    req.on_demand_throughput = o.on_demand_throughput_override;
  } else if (on_demand && src.on_demand_throughput) {
    req.on_demand_throughput = src.on_demand_throughput;
  }
  for (const auto& a : src.attribute_definitions) {
    if (KeyAttributeOf(req, a.attribute_name)) req.attribute_definitions.push_back(a);
  }
  return req;
}

// The restored table's description from its checked request: CREATING, with the source's
// encryption (or the override's) and table class.
TableDescription RestoredTableDescription(const CreateTableRequest& req,
                                          const TableDescription& src, const RestoreOverrides& o) {
  TableDescription d;
  d.table_name = req.table_name;
  d.table_id = util::NewUuid();
  d.table_status = TableStatus::kCreating;
  d.creation_date_time = Seconds(WallClockMillis());
  d.attribute_definitions = req.attribute_definitions;
  d.key_schema = req.key_schema;
  d.local_secondary_indexes = req.local_secondary_indexes;
  d.global_secondary_indexes = req.global_secondary_indexes;
  d.billing_mode = *req.billing_mode;
  if (d.billing_mode == BillingMode::kPayPerRequest) {
    d.last_update_to_pay_per_request = d.creation_date_time;
  }
  if (req.provisioned_throughput) d.provisioned_throughput = *req.provisioned_throughput;
  if (req.on_demand_throughput) {
    d.on_demand_throughput = MergeOnDemand(std::nullopt, *req.on_demand_throughput);
  }
  if (o.sse_specification_override) {
    if (o.sse_specification_override->enabled) {
      d.sse_kms_key = SseKmsKey(*o.sse_specification_override, util::NewUuid());
    }
  } else {
    d.sse_kms_key = src.sse_kms_key;
  }
  d.table_class = src.table_class;
  return d;
}

// The restored table's description: the source's key schema and indexes (or the overrides),
// throughput, billing mode and encryption (or the overrides); no stream, Time to Live,
// point-in-time recovery, tags or policy, which the service leaves to be set up again.
// Checked as CreateTable would check it. Errors: kValidation.
Result<TableDescription> RestoredDescription(const TableDescription& src, const std::string& target,
                                             const RestoreOverrides& o) {
  const CreateTableRequest req = RestoreRequest(src, target, o);
  DDB_RETURN_IF_ERROR(ValidateCreateTable(req));
  return RestoredTableDescription(req, src, o);
}

Error TargetExists(const std::string& target) {
  return Error(ErrorCode::kTableAlreadyExists, "Table already exists: " + target);
}

}  // namespace

// Creates the target table with its restore job and starts filling it. The target takes the
// source's key format: its items are the source's, copied key by key. REQUIRES: backups_mu
// held.
static Result<TableDescription> BeginRestore(EngineImpl& impl, const RequestContext& ctx,
                                             TableDescription d, TableInfo::RestoreJob job,
                                             int key_format) {
  if (impl.catalog->Find(d.table_name)) return TargetExists(d.table_name);
  if (impl.table_holds->Deleting(d.table_name)) {
    // A guess at the service's words for a target "being created or deleted".
    return Error(ErrorCode::kTableInUse, "Table is being deleted: " + d.table_name);
  }
  impl.PinRestoreJob(job);
  const std::string target = d.table_name;
  Result<std::shared_ptr<const TableInfo>> info =
      impl.catalog->Create(std::move(d), job, key_format);
  if (!info.ok()) {
    impl.backups->Unpin(job.source_id, job.as_of_ms);
    if (!job.backup_id.empty()) impl.backups->EndRestoreFrom(job.backup_id);
    impl.LogIfFailed(impl.ReleaseIfUnpinned(job.source_id),
                     "cannot release the source of failed restore " + target);
    if (info.error().code() == ErrorCode::kResourceInUse) return TargetExists(target);
    return info.error();
  }
  impl.StartRestore(info.value()->id, /*redo=*/false);
  return impl.Describe(ctx, *info.value());
}

Result<TableDescription> Engine::RestoreTableFromBackup(const RequestContext& ctx,
                                                        const RestoreTableFromBackupRequest& req) {
  EngineImpl& impl = *impl_;
  std::lock_guard lock(impl.backups_mu);
  std::optional<std::string> id = BackupIdOf(ctx, req.backup_arn);
  std::optional<BackupRecord> b = id ? impl.backups->Find(*id) : std::nullopt;
  if (!b) return BackupNotFound(req.backup_arn);
  if (impl.catalog->Find(req.target_table_name)) return TargetExists(req.target_table_name);
  DDB_ASSIGN_OR_RETURN(TableInfo source, DecodeTableRecord(b->table_record));
  DDB_ASSIGN_OR_RETURN(TableDescription d,
                       RestoredDescription(source.description, req.target_table_name, req));
  d.restore_summary =
      TableDescription::RestoreSummary{.source_backup_arn = BackupArn(ctx, *b),
                                       .source_table_arn = TableArnOf(ctx, b->table_name),
                                       .restore_date_time = Seconds(b->created_ms),
                                       .restore_in_progress = true};
  return BeginRestore(impl, ctx, std::move(d),
                      TableInfo::RestoreJob{b->table_id, b->created_ms, b->id}, source.key_format);
}

Result<TableDescription> Engine::RestoreTableToPointInTime(
    const RequestContext& ctx, const RestoreTableToPointInTimeRequest& req) {
  EngineImpl& impl = *impl_;
  // The source by name or ARN (a guess at the service's words when both or neither are given).
  if (req.source_table_name && req.source_table_arn) {
    return Error::Validation("Only one of SourceTableArn or SourceTableName can be specified");
  }
  if (!req.source_table_name && !req.source_table_arn) {
    return Error::Validation("Either SourceTableArn or SourceTableName must be specified");
  }
  if (req.restore_date_time && req.use_latest_restorable_time) {
    return Error::Validation(
        "Only one of RestoreDateTime or UseLatestRestorableTime can be specified");
  }
  if (!req.restore_date_time && !req.use_latest_restorable_time) {
    return Error::Validation("Either RestoreDateTime or UseLatestRestorableTime must be specified");
  }
  const std::string source_name(
      TableNameOf(req.source_table_name ? *req.source_table_name : *req.source_table_arn));
  std::lock_guard lock(impl.backups_mu);
  auto info = impl.catalog->Find(source_name);
  if (!info || info->restore_job) return TableNotFoundNamed(source_name);
  std::optional<EngineImpl::PitrWindow> window = impl.PitrWindowOf(*info);
  if (!window) {
    // A guess at the service's words.
    return Error(ErrorCode::kPointInTimeRecoveryUnavailable,
                 "Point in time recovery is not enabled for table '" + source_name + "'");
  }
  const uint64_t at =
      req.use_latest_restorable_time ? window->latest_ms : Millis(*req.restore_date_time);
  if (at < window->earliest_ms || at > window->latest_ms) {
    // A guess at the service's words (the exception's documented meaning).
    return Error(ErrorCode::kInvalidRestoreTime,
                 "RestoreDateTime must be between EarliestRestorableDateTime and "
                 "LatestRestorableDateTime");
  }
  if (impl.catalog->Find(req.target_table_name)) return TargetExists(req.target_table_name);
  // The source's settings as they are now, as the service restores them.
  DDB_ASSIGN_OR_RETURN(TableDescription d,
                       RestoredDescription(info->description, req.target_table_name, req));
  d.restore_summary =
      TableDescription::RestoreSummary{.source_backup_arn = std::nullopt,
                                       .source_table_arn = TableArnOf(ctx, source_name),
                                       .restore_date_time = Seconds(at),
                                       .restore_in_progress = true};
  return BeginRestore(impl, ctx, std::move(d), TableInfo::RestoreJob{info->id, at, ""},
                      info->key_format);
}

// --- Background work and the engine's state ---

void EngineImpl::PinRestoreJob(const TableInfo::RestoreJob& job) {
  backups->Pin(job.source_id, job.as_of_ms);
  if (!job.backup_id.empty()) backups->BeginRestoreFrom(job.backup_id);
  NoteHistoryTable(job.source_id);
  if (catalog->FindById(job.source_id)) catalog->SetKeepHistory(job.source_id, true);
}

void EngineImpl::StartRestore(uint32_t target_id, bool redo) {
  std::lock_guard lock(backfill_mu);
  backfills.emplace_back(&EngineImpl::RunRestore, this, target_id, redo);
}

namespace {

// RunRestore's steps.

// What an interrupted run of the restore wrote: the target's items and index entries.
Status ClearRestoreTarget(Storage& storage, const TableInfo& target) {
  DDB_RETURN_IF_ERROR(
      storage.DeleteRange(Cf::kItems, TablePrefix(target.id), TablePrefixEnd(target.id)));
  for (const IndexSchema& index : target.indexes) {
    DDB_RETURN_IF_ERROR(storage.DeleteRange(Cf::kIndexes, TablePrefix(index.index_id),
                                            TablePrefixEnd(index.index_id)));
  }
  return Status::Ok();
}

// The target's counters once its items are written.
struct RestoredCounts {
  int64_t items = 0;
  int64_t bytes = 0;
  IndexStatsDeltas index_stats;  // per index: entries, bytes
};

// Writes the items of the job's source as of its time, read in `snapshot`, into `target`,
// with their index entries. The items come in key order, re-keyed in the same order: they
// are written as SST files ingested into the store (Storage::SortedWriter), around the
// memtable and the WAL. Index entries come in random order: they are kept aside, sorted and
// ingested a chunk at a time (inserted one by one into a large memtable they cost most of a
// restore, in skip-list searches). Stops early, unfinished, once `stopping` is set.
// Errors: kInternal.
Result<RestoredCounts> WriteRestoredItems(Storage& storage, const Storage::Snapshot* snapshot,
                                          const TableInfo& target, const TableInfo::RestoreJob& job,
                                          const std::atomic<bool>& stopping) {
  const bool indexed = !target.indexes.empty();
  RestoredCounts counts;
  Status status = Status::Ok();
  std::string new_key;
  std::unique_ptr<Storage::SortedWriter> item_writer = storage.NewSortedWriter(Cf::kItems);
  std::unique_ptr<Storage::SortedWriter> entry_writer;
  SortedChunk entries;
  auto write_entries = [&]() -> Status {
    if (!entry_writer) entry_writer = storage.NewSortedWriter(Cf::kIndexes);
    DDB_RETURN_IF_ERROR(entries.WriteTo(entry_writer.get()));
    return entry_writer->Finish();
  };
  // Adds one item's index entries to those kept aside, and its size to the counts.
  Item item;
  auto add_entries = [&](std::string_view value) -> Status {
    if (!DecodeItem(value, &item)) return Error::Internal("unreadable item");
    counts.bytes += static_cast<int64_t>(ItemSize(item));
    for (const IndexSchema& index : target.indexes) {
      std::optional<IndexEntryData> e = IndexEntry(index, item);
      if (!e) continue;
      auto& [n, b] = counts.index_stats[index.index_id];
      ++n;
      b += e->size;
      entries.Add(e->key, e->value);
    }
    if (entries.bytes() > kRestoreEntryBytes) return write_entries();
    return Status::Ok();
  };
  Status read = ItemsAsOf(storage, snapshot, job.source_id, job.as_of_ms,
                          [&](std::string_view key, std::string_view value) {
                            new_key.clear();
                            PutFixed32BE(&new_key, target.id);
                            new_key.append(key.substr(4));
                            status = item_writer->Add(new_key, value);
                            if (!status.ok()) return false;
                            if (indexed) {
                              status = add_entries(value);
                              if (!status.ok()) return false;
                            } else {
                              std::optional<size_t> size = EncodedItemSize(value);
                              if (!size) {
                                status = Error::Internal("unreadable item");
                                return false;
                              }
                              counts.bytes += static_cast<int64_t>(*size);
                            }
                            ++counts.items;
                            return counts.items % kRestoreBatch != 0 || !stopping;
                          });
  if (read.ok() && status.ok() && !stopping) status = item_writer->Finish();
  if (read.ok() && status.ok() && !stopping && !entries.empty()) status = write_entries();
  if (!read.ok()) return read.error();
  if (!status.ok()) return status.error();
  return counts;
}

// The target's counters (the table's and its indexes'), set to what was written.
Status WriteRestoredCounts(Storage& storage, const TableInfo& target,
                           const RestoredCounts& counts) {
  auto batch = std::make_unique<Storage::Batch>(storage);
  batch->SetStats(StatsKey(target.id), counts.items, counts.bytes);
  for (const IndexSchema& index : target.indexes) {
    auto it = counts.index_stats.find(index.index_id);
    auto [n, b] = it == counts.index_stats.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
    batch->SetStats(StatsKey(index.index_id), n, b);
  }
  return storage.Write(*batch, WriteSync::kDeferred);
}

}  // namespace

void EngineImpl::RunRestore(uint32_t target_id, bool redo) {
  std::shared_ptr<const TableInfo> target = catalog->FindById(target_id);
  if (!target || !target->restore_job) return;
  const TableInfo::RestoreJob job = *target->restore_job;
  auto fail = [&](const Error& e) {
    storage->Log(LogSeverity::kError, "restore of table " + target->description.table_name +
                                          " failed: " + e.message() +
                                          " (it is done again at the next open)");
  };
  if (redo) {
    if (Status cleared = ClearRestoreTarget(*storage, *target); !cleared.ok()) {
      return fail(cleared.error());
    }
  }
  // Every writer of a change up to now has committed (their commit times came before).
  WaitForItemWriters();
  std::shared_ptr<const Storage::Snapshot> snapshot = storage->TakeSnapshot();
  Result<RestoredCounts> counts =
      WriteRestoredItems(*storage, snapshot.get(), *target, job, stopping);
  if (!counts.ok()) return fail(counts.error());
  if (stopping) return;  // the record still holds the job: done again at the next open
  if (Status written = WriteRestoredCounts(*storage, *target, counts.value()); !written.ok()) {
    return fail(written.error());
  }
  snapshot.reset();
  std::lock_guard lock(backups_mu);
  // The synced catalog write that ends the job comes after the items and entries are
  // durable (ingested files) and the counters are in the WAL.
  Result<std::shared_ptr<const TableInfo>> done = catalog->Update(
      target->description.table_name,
      [](TableDescription* d) {
        if (d->restore_summary) d->restore_summary->restore_in_progress = false;
        d->table_status = TableStatus::kActive;
        return Status::Ok();
      },
      /*end_restore=*/true);
  if (!done.ok()) return fail(done.error());
  backups->Unpin(job.source_id, job.as_of_ms);
  if (!job.backup_id.empty()) backups->EndRestoreFrom(job.backup_id);
  if (Status released = ReleaseIfUnpinned(job.source_id); !released.ok()) fail(released.error());
  ++restores_completed;
}

Status EngineImpl::ReleaseIfUnpinned(uint32_t id) {
  if (backups->Pinned(id)) return Status::Ok();
  if (catalog->FindById(id)) {
    catalog->SetKeepHistory(id, false);  // the trimmer removes what is no longer needed
    return Status::Ok();
  }
  // A deleted table kept for backups: its items and history go now (one range deletion
  // each: rare).
  DDB_RETURN_IF_ERROR(storage->DeleteRange(Cf::kItems, TablePrefix(id), TablePrefixEnd(id)));
  DDB_RETURN_IF_ERROR(storage->DeleteRange(Cf::kHistory, HistoryPrefix(id, 0), HistoryEnd(id)));
  Storage::Batch batch(*storage);
  batch.Delete(Cf::kMeta, RetainedKey(id));
  batch.DeleteStats(HistoryStatsKey(id));
  batch.Delete(Cf::kMeta, PitrFloorKey(id));
  DDB_RETURN_IF_ERROR(storage->Write(batch));
  std::lock_guard lock(history_mu);
  history_tables.erase(id);
  return Status::Ok();
}

std::optional<EngineImpl::PitrWindow> EngineImpl::PitrWindowOf(const TableInfo& table) {
  const TableDescription& d = table.description;
  if (!d.pitr_enabled_since) return std::nullopt;
  const uint64_t now = NowMs();
  const uint64_t period = kDayMs * static_cast<uint64_t>(d.pitr_recovery_period_days);
  PitrWindow w;
  w.earliest_ms = std::max(Millis(*d.pitr_enabled_since), now > period ? now - period : 0);
  // History the size cap made the trimmer drop moved the window's start.
  Result<int64_t> floor = storage->GetCounter(PitrFloorKey(table.id));
  if (floor.ok()) w.earliest_ms = std::max(w.earliest_ms, static_cast<uint64_t>(floor.value()));
  const uint64_t lag = static_cast<uint64_t>(std::max(0, options.pitr_lag_ms));
  w.latest_ms = std::max(w.earliest_ms, now > lag ? now - lag : 0);
  return w;
}

Result<bool> EngineImpl::BackupOnDelete(const TableInfo& table) {
  if (table.description.pitr_enabled_since) {
    // The service keeps a system backup of a deleted table that had point-in-time recovery,
    // for 35 days (its name is a guess at the service's).
    WaitForItemWriters();
    BackupRecord b;
    b.created_ms = history_clock.Mark();
    b.id = NewBackupId(b.created_ms);
    b.name = table.description.table_name + "$DeletedTableBackup";
    b.type = BackupType::kSystem;
    b.expiry_ms = b.created_ms + kSystemBackupLifetimeMs;
    b.table_id = table.id;
    b.table_name = table.description.table_name;
    b.table_record = EncodeTableRecord(table);
    DDB_ASSIGN_OR_RETURN(auto stats, storage->GetStats(StatsKey(table.id)));
    std::tie(b.item_count, b.size_bytes) = stats;
    DDB_RETURN_IF_ERROR(backups->Add(b));
  }
  return backups->Pinned(table.id);
}

Status EngineImpl::ExpireSystemBackups() {
  const uint64_t now = NowMs();
  std::lock_guard lock(backups_mu);
  Status first = Status::Ok();  // the others are tried too; all again next round
  for (const BackupRecord& b : backups->List()) {
    if (!b.expiry_ms || *b.expiry_ms > now || backups->RestoringFrom(b.id)) continue;
    Status s = backups->Remove(b.id);
    if (s.ok()) s = ReleaseIfUnpinned(b.table_id);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status EngineImpl::TrimHistory() {
  const uint64_t now = NowMs();
  Status first = Status::Ok();  // the other tables are trimmed too; all again next round
  std::map<uint32_t, uint64_t> tables;
  {
    std::lock_guard lock(history_mu);
    tables = history_tables;
  }
  for (const auto& [id, from] : tables) {
    if (stopping) return first;
    std::shared_ptr<const TableInfo> info = catalog->FindById(id);
    const bool pitr = info && info->description.pitr_enabled_since;
    const std::optional<uint64_t> pin = backups->OldestPin(id);
    // Records at or before `limit` are needed by nothing pinned; at or before `cutoff` by
    // nothing at all, past it only while the table is under its size cap.
    const uint64_t limit = pin ? std::min(*pin, now) : now;
    uint64_t cutoff = limit;
    if (pitr) {
      const uint64_t period =
          kDayMs * static_cast<uint64_t>(info->description.pitr_recovery_period_days);
      cutoff = std::min(cutoff, now > period ? now - period : 0);
    }
    int64_t remaining = 0;
    if (pitr) {
      Result<std::pair<int64_t, int64_t>> stats = storage->GetStats(HistoryStatsKey(id));
      if (stats.ok()) remaining = stats.value().second;
    }
    const int64_t cap = pitr ? options.pitr_history_max_bytes : INT64_MAX;
    Storage::Batch batch(*storage);
    size_t n = 0;
    int64_t bytes = 0;
    uint64_t last = from, floor = 0;
    bool complete = true;
    Status read =
        storage->ForEach(Cf::kHistory, HistoryPrefix(id, from), HistoryPrefix(id, limit + 1),
                         [&](std::string_view key, std::string_view value) {
                           uint64_t t = 0;
                           if (!HistoryKeyTime(key, &t)) t = last;
                           if (t > cutoff && remaining <= cap) {
                             complete = false;
                             return false;
                           }
                           if (n == kTrimPerRound) {
                             complete = false;
                             return false;
                           }
                           batch.Delete(Cf::kHistory, key);
                           ++n;
                           bytes += static_cast<int64_t>(value.size());
                           remaining -= static_cast<int64_t>(value.size());
                           if (t > cutoff) floor = t;
                           last = t;
                           return true;
                         });
    if (!read.ok()) {
      if (first.ok()) first = read;
      continue;
    }
    if (n > 0) {
      batch.AddToStats(HistoryStatsKey(id), -static_cast<int64_t>(n), -bytes);
      if (floor) batch.SetCounter(PitrFloorKey(id), static_cast<int64_t>(floor));
      if (Status written = storage->Write(batch, WriteSync::kDeferred); !written.ok()) {
        if (first.ok()) first = written;
        continue;
      }
      history_trimmed_records += n;
    }
    std::lock_guard lock(history_mu);
    auto it = history_tables.find(id);
    if (it == history_tables.end()) continue;
    it->second = last;
    // Nothing keeps history any more and everything is gone: no more looks at this table.
    if (complete && !pitr && !pin && (!info || !info->keep_history)) history_tables.erase(it);
  }
  return first;
}

// The history clock starts above every time the store holds: each backup's restore point,
// each PITR window's start and each table's newest history record. A clock that restarts
// lower (a restart within the same millisecond, a wall clock stepped back, a test clock)
// would give new writes times at or before a backup's point, which its restore would then
// include, and history keys that an older record already has (found by the stateful fuzz
// campaign: a backup, a reopen, a write, a restore holding the write).
Status EngineImpl::RaiseHistoryClock() {
  uint64_t floor = 0;
  for (const BackupRecord& b : backups->List()) floor = std::max(floor, b.created_ms + 1);
  for (const std::string& name : catalog->Names()) {
    auto info = catalog->Find(name);
    if (info && info->description.pitr_enabled_since) {
      floor = std::max(floor,
                       static_cast<uint64_t>(*info->description.pitr_enabled_since * 1000.0) + 1);
    }
  }
  std::vector<uint32_t> ids;
  {
    std::lock_guard lock(history_mu);
    for (const auto& [id, last] : history_tables) ids.push_back(id);
  }
  for (uint32_t id : ids) {
    DDB_RETURN_IF_ERROR(storage->ForEach(
        Cf::kHistory, HistoryPrefix(id, 0), HistoryEnd(id),
        [&](std::string_view key, std::string_view) {
          std::string_view k = key.substr(std::min<size_t>(4, key.size()));
          uint64_t ms = 0;
          if (GetFixedBE(&k, 8, &ms)) floor = std::max(floor, ms + 1);
          return false;
        },
        /*reverse=*/true));
  }
  history_clock.AtLeast(floor);
  return Status::Ok();
}

Status EngineImpl::OpenBackups() {
  DDB_ASSIGN_OR_RETURN(backups, BackupRegistry::Load(storage.get()));
  std::lock_guard lock(backups_mu);
  std::vector<uint32_t> restoring;
  for (const std::string& name : catalog->Names()) {
    auto info = catalog->Find(name);
    if (!info) continue;
    if (info->restore_job) {
      PinRestoreJob(*info->restore_job);
      restoring.push_back(info->id);
    }
    if (info->description.pitr_enabled_since) NoteHistoryTable(info->id);
  }
  for (uint32_t id : backups->PinnedIds()) {
    NoteHistoryTable(id);
    if (catalog->FindById(id)) catalog->SetKeepHistory(id, true);
  }
  // Tables with history records left (PITR disabled, backups deleted before the trimmer got
  // to them): one seek per such table.
  std::string from;
  for (;;) {
    std::optional<uint32_t> id;
    DDB_RETURN_IF_ERROR(
        storage->ForEach(Cf::kHistory, from, "", [&](std::string_view key, std::string_view) {
          std::string_view k = key;
          uint64_t v = 0;
          if (GetFixedBE(&k, 4, &v)) id = static_cast<uint32_t>(v);
          return false;
        }));
    if (!id) break;
    NoteHistoryTable(*id);
    if (*id == UINT32_MAX) break;
    from = HistoryPrefix(*id + 1, 0);
  }
  // Deleted tables kept for backups that are gone by now.
  std::vector<uint32_t> retained;
  DDB_RETURN_IF_ERROR(storage->ForEach(Cf::kMeta, "retained/", "retained0",
                                       [&](std::string_view key, std::string_view) {
                                         std::string_view k = key.substr(9);
                                         uint64_t v = 0;
                                         if (GetFixedBE(&k, 4, &v)) {
                                           retained.push_back(static_cast<uint32_t>(v));
                                         }
                                         return true;
                                       }));
  for (uint32_t id : retained) DDB_RETURN_IF_ERROR(ReleaseIfUnpinned(id));
  DDB_RETURN_IF_ERROR(RaiseHistoryClock());
  for (uint32_t id : restoring) {
    if (auto info = catalog->FindById(id)) {
      storage->Log(LogSeverity::kInfo, "the restore of table " + info->description.table_name +
                                           " was cut short: it starts again");
    }
    StartRestore(id, /*redo=*/true);
  }
  return Status::Ok();
}

}  // namespace ddb
