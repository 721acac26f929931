// DeleteTable, in its steps: the refusals (a held table, one being restored into, deletion
// protection); a SYSTEM backup of a table with point-in-time recovery (BackupOnDelete,
// backups.cc), which decides whether the table's items and history stay for backups; the
// catalog record dropped with the table's counters (DropTableRecord); the table's data
// removed (RemoveTableData); what lives beside the data let go (ReleaseTableState: the
// stream closed, the TTL record dropped, the partition model and vector indexes forgotten);
// the DELETING hold.
//
// The record goes first: a crash before the data is removed leaves unreachable items (their
// table id is never reused), never a table whose items are half deleted.
#include "engine/engine_impl.h"
#include "engine/global_tables.h"

namespace ddb {
namespace {

// DeleteTable's refusals, before anything changes. `existing` may be null (not found: the
// record's drop answers that).
Status CheckDeletable(EngineImpl& impl, const std::string& name, const TableInfo* existing) {
  if (std::optional<TableStatus> held = impl.table_holds->StatusOf(name)) {
    return TableHolds::InUse(*held, name);
  }
  if (existing && existing->restore_job) return TableHolds::InUse(TableStatus::kCreating, name);
  if (existing && existing->description.deletion_protection_enabled) {
    return Error::Validation(
        "Resource cannot be deleted as it is currently protected against "
        "deletion. Disable deletion protection first.");
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const TableInfo>> EngineImpl::DropTableRecord(const std::string& name,
                                                                     bool keep_items) {
  return catalog->Drop(name, [keep_items](const TableInfo& table, Storage::Batch* batch) {
    batch->DeleteStats(StatsKey(table.id));
    for (const IndexSchema& index : table.indexes) {
      batch->DeleteStats(StatsKey(index.index_id));
    }
    if (keep_items) batch->Put(Cf::kMeta, RetainedKey(table.id), "");
  });
}

Status EngineImpl::RemoveTableData(const TableInfo& table, bool keep_items) {
  if (!keep_items) {
    DDB_RETURN_IF_ERROR(
        storage->DeleteRange(Cf::kItems, TablePrefix(table.id), TablePrefixEnd(table.id)));
    DDB_RETURN_IF_ERROR(
        storage->DeleteRange(Cf::kHistory, HistoryPrefix(table.id, 0), HistoryEnd(table.id)));
    Storage::Batch stats(*storage);
    stats.DeleteStats(HistoryStatsKey(table.id));
    DDB_RETURN_IF_ERROR(storage->Write(stats));
  }
  for (const IndexSchema& index : table.indexes) {
    DDB_RETURN_IF_ERROR(storage->DeleteRange(Cf::kIndexes, TablePrefix(index.index_id),
                                             TablePrefixEnd(index.index_id)));
  }
  return Status::Ok();
}

Status EngineImpl::ReleaseTableState(const TableInfo& table) {
  // The stream outlives the table, closed, for the retention period.
  const TableDescription& d = table.description;
  if (d.stream_specification && d.latest_stream_label) {
    DDB_RETURN_IF_ERROR(CloseStream(d.table_name, *d.latest_stream_label));
  }
  if (d.ttl_attribute) DDB_RETURN_IF_ERROR(DropTtlRecord(table.id));
  // A global table's replication stamps and checkpoints (global_tables.h).
  if (!d.replicas.empty()) {
    DDB_RETURN_IF_ERROR(storage->DeleteRange(Cf::kMeta, ReplicationStampPrefix(table.id),
                                             ReplicationStampPrefixEnd(table.id)));
    DDB_RETURN_IF_ERROR(storage->DeleteRange(Cf::kMeta, ReplicationCheckpointPrefix(table.id),
                                             ReplicationCheckpointPrefixEnd(table.id)));
  }
  partitions->Drop(table.id);
  vectors->DropTable(table.id);
  for (const IndexSchema& index : table.indexes) partitions->Drop(index.index_id);
  return Status::Ok();
}

Result<TableDescription> Engine::DeleteTable(const RequestContext& ctx, const std::string& name) {
  // Backups and restores decide, with their lock held, whether the table's items stay.
  std::unique_lock backups_lock(impl_->backups_mu);
  auto existing = impl_->catalog->Find(name);
  DDB_RETURN_IF_ERROR(CheckDeletable(*impl_, name, existing.get()));
  TableDescription before;
  bool keep_items = false;
  if (existing) {
    before = impl_->Describe(ctx, *existing);
    DDB_ASSIGN_OR_RETURN(keep_items, impl_->BackupOnDelete(*existing));
  }
  DDB_ASSIGN_OR_RETURN(auto info, impl_->DropTableRecord(name, keep_items));
  DDB_RETURN_IF_ERROR(impl_->RemoveTableData(*info, keep_items));
  backups_lock.unlock();
  DDB_RETURN_IF_ERROR(impl_->ReleaseTableState(*info));
  if (!existing || existing->id != info->id) before = impl_->Describe(ctx, *info);
  before.table_status = TableStatus::kDeleting;
  impl_->table_holds->Hold(name, TableStatus::kDeleting, before);
  return before;
}

}  // namespace ddb
