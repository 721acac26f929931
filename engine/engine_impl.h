// EngineImpl: the engine's state and the helpers its operations share. Internal. Its
// members are implemented in engine.cc (~EngineImpl, beside Engine::Open), write_path.cc (the
// write core: AddWrite, Commit, Mutate, PutWithoutIndexes, Write), capacity_accounting.cc
// (admission and charges in the partition model, item collection metrics), table_updates.cc
// (Backfill, MarkBackfilled), delete_table.cc (DeleteTable's steps), time_to_live.cc (TTL's
// expiry, the TTL record and its backfill), housekeeping.cc (the background jobs' list) and
// stream_operations.cc (OpenStream, CloseStream). The Engine operations that use it are in
// engine.cc (tables, single-item operations), delete_table.cc (DeleteTable), read_path.cc
// (Query, Scan), batch_operations.cc, transactions.cc, partiql.cc (on the public API only),
// table_updates.cc (UpdateTable), table_settings.cc (TTL, tags, continuous backups) and
// stream_operations.cc; docs/ARCHITECTURE.md's file map lists every file.
// Thread safety: all members may be used concurrently.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ddb/engine.h"
#include "ddb/limits.h"
#include "ddb/stored_item.h"
#include "engine/backup/backup_registry.h"
#include "engine/backup/history.h"
#include "engine/capacity/contributor_insights.h"
#include "engine/capacity/partition_model.h"
#include "engine/capacity/write_capacity.h"
#include "engine/catalog.h"
#include "engine/change_log.h"
#include "engine/expression/expression.h"
#include "engine/housekeeping.h"
#include "engine/import_export/exports.h"
#include "engine/import_export/imports.h"
#include "engine/index_maintenance.h"
#include "engine/kinesis/kinesis_streams.h"
#include "engine/request_tokens.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/storage.h"
#include "engine/streams/streams.h"
#include "engine/table_holds.h"
#include "engine/transaction_claims.h"
#include "engine/ttl/ttl_index.h"
#include "engine/vector/vector_index.h"
#include "engine/write_path.h"
#include "util/arn.h"

namespace ddb {

// Writers of one item serialise on a striped lock (item key hash -> stripe) so that the
// old item read, the new item written and the counter deltas agree.
inline constexpr size_t kLockStripes = 1024;
// Entries of the Time to Live record ExpireTtlItems reads at a time (it loops while there are
// more), and the items a TTL backfill reads at a time.
inline constexpr size_t kTtlChunk = 1000;

// The projection of a read: a ProjectionExpression (placeholders from "names", all of which
// must be used) or legacy AttributesToGet (top-level names), never both; nullopt when
// neither is given. Errors: kValidation. (read_path.cc)
Result<std::optional<Projection>> CompileReadProjection(
    const std::optional<std::string>& projection_expression,
    const std::vector<std::string>& attributes_to_get,
    const std::map<std::string, std::string>* names);

// The ARN of `table` in the caller's region and account (util/arn.h).
inline std::string TableArnOf(const RequestContext& ctx, std::string_view table) {
  return util::TableArn(ctx.region, ctx.account_id, table);
}

// Milliseconds since the epoch by the system clock. What ages with the calendar reads
// EngineImpl::NowMs instead, which a test can set (EngineOptions::clock_for_testing).
inline uint64_t WallClockMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// CreateTable's ResourcePolicy with its first revision (resource_policies.cc); and the
// 20480-byte limit of a policy document (kValidation).
std::optional<ResourcePolicy> NewTablePolicy(const std::optional<std::string>& policy);
Status CheckResourcePolicySize(const std::string& policy);

inline const Error& TableNotFound() {
  static const Error e = Error::NotFound("Requested resource not found");
  return e;
}

class EngineImpl {
 public:
  EngineOptions options;
  std::unique_ptr<Storage> storage;
  // The engine's messages go to EngineOptions::logger, through the store. LogIfFailed logs
  // "<what>: <error>" when `s` failed: for a failure nothing else reports (a background
  // job's, or a clean-up's after another error).
  void Log(LogSeverity severity, std::string_view message) const {
    storage->Log(severity, message);
  }
  void LogIfFailed(const Status& s, std::string_view what) const {
    if (!s.ok()) Log(LogSeverity::kError, std::string(what) + ": " + s.error().message());
  }
  std::unique_ptr<Catalog> catalog;
  std::unique_ptr<ChangeSequencer> sequencer;
  std::unique_ptr<PartitionModel> partitions;
  std::unique_ptr<StreamRegistry> streams;
  std::unique_ptr<KinesisRegistry> kinesis;  // Kinesis Data Streams (kinesis_streams.h)
  std::unique_ptr<TableHolds> table_holds;   // EngineOptions::table_status_hold_ms
  std::unique_ptr<Imports> imports;          // ImportTable's jobs and records (imports.h)
  std::unique_ptr<Exports> exports;          // exports' jobs and records (exports.h)
  ContributorTracker contributors;           // keys of tables/GSIs with contributor insights
  // Tracks what the catalog says has contributor insights enabled (at open).
  void StartContributorTracking();
  // GetMetrics' view of them (contributor_insights.cc).
  std::vector<ContributorRanking> ContributorRankings();
  std::array<std::mutex, kLockStripes> stripes;
  // The vector indexes' in-memory contents (vector_index.h): rebuilt from the items at open
  // (LoadVectorIndexes), kept in step by AddWrite through Batch::after_commit, filled by
  // BackfillVectorIndex for an index added by UpdateTable (vector_search.cc).
  std::unique_ptr<VectorIndexes> vectors;
  Status LoadVectorIndexes();
  void BackfillVectorIndex(uint32_t table_id, std::string table_name, std::string index_name);
  void MarkVectorBackfilled(const std::string& table_name, const std::string& index_name);
  // The index's contents, filled now when the table has none yet (a restored table).
  std::shared_ptr<VectorIndex> VectorIndexOf(const TableInfo& table,
                                             const VectorIndexDefinition& def);
  // AddWrite's part: the vector indexes of `table` learn of the write once it commits.
  // The applier's part under simulated lag: the change record's new image, once applied.
  void ApplyVectorChange(const TableInfo& table, const ChangeRecord& record);
  void AddVectorUpdates(const TableInfo& table, const std::string& key,
                        const std::optional<Item>& updated, Storage::Batch* batch);
  std::atomic<uint64_t> vector_searches{0};
  // Declared last: destroyed (stopped) first, while storage and catalog still exist.
  std::unique_ptr<GsiApplier> gsi_applier;
  // Backfills of GSIs added by UpdateTable (table_updates.cc); joined by ~EngineImpl.
  std::mutex backfill_mu;
  std::vector<std::thread> backfills;  // guarded by backfill_mu
  std::atomic<bool> stopping{false};
  // Set once any table or stream of this engine has had a resource-based policy (at Open,
  // CreateTable, PutResourcePolicy); never cleared, so false means none has one.
  std::atomic<bool> policies_seen{false};
  // ClientRequestTokens of TransactWriteItems calls of the last 10 minutes, durable with
  // the commits they answer (transactions.cc).
  RequestTokens request_tokens;
  // Items held by transactions in flight (transaction_claims.h).
  TransactionClaims transaction_claims;

  // Housekeeping (housekeeping.h): the background jobs, one named task each, on one thread
  // started by Engine::Open and stopped by ~EngineImpl. HousekeepingTasks lists them
  // (housekeeping.cc); each is one round of its job:
  //   ExpireTtlItems       Time to Live's deletes (time_to_live.cc)
  //   TrimStreamRecords    stream records past the retention, disabled streams (streams.cc)
  //   TrimKinesisRecords   Kinesis records past the retention (kinesis_operations.cc)
  //   ExpireSystemBackups  the SYSTEM backups past their expiry (backups.cc)
  //   TrimHistory          item history nothing needs any more (backups.cc)
  //   ExpireRequestTokens  ClientRequestTokens past 10 minutes (request_tokens.cc)
  std::unique_ptr<Housekeeping> housekeeping;
  std::vector<Housekeeping::Task> HousekeepingTasks();
  Status TrimStreamRecords();
  Status ExpireRequestTokens();

  // Time to Live (time_to_live.cc; the record's format in ttl_index.h). Deletes items whose
  // expiry lies in the past, found through the record (housekeeping task expire_ttl_items).
  Status ExpireTtlItems();
  TtlWriteNotes ttl_notes;
  // Per table, the expiry below which ExpireTtlItems has processed every entry (its next seek
  // starts there, or lower when ttl_notes say so). Housekeeping thread only.
  std::map<uint32_t, uint64_t> ttl_swept_to;
  std::atomic<uint64_t> ttl_deleted_items{0};
  std::atomic<uint64_t> ttl_delete_errors{0};
  std::atomic<uint64_t> ttl_examined_entries{0};
  // Serialises a TTL backfill's commits with dropping the record (TTL disabled): a
  // backfill commits only while its generation is the table's current one.
  std::mutex ttl_build_mu;
  std::map<uint32_t, uint64_t> ttl_generation;  // guarded by ttl_build_mu
  uint64_t ttl_next_generation = 1;             // guarded by ttl_build_mu
  // Starts building the record of a table whose TTL was just enabled (or that has no built
  // marker on open): a thread in "backfills" that walks the table once. Errors: kInternal.
  Status StartTtlBackfill(uint32_t table_id);
  // Drops a table's record and marker (TTL disabled) once writers that saw it enabled are
  // done. Errors: kInternal.
  Status DropTtlRecord(uint32_t table_id);
  // One round's work on one table: deletes the items of entries with an expiry in
  // [from, now) and returns the expiry the next round may start from. A failure is counted
  // (ttl_delete_errors) and the first one kept in *first_error.
  uint64_t SweepTtlTable(const TableInfo& table, uint64_t from, uint64_t now, Status* first_error);
  // Deletes a record entry whose item does not have its expiry (checked under the item's
  // lock when "expiry" is given; a malformed entry is deleted unchecked). Returns false when
  // that failed.
  bool RemoveStaleTtlEntry(uint32_t table_id, const std::string& entry,
                           std::optional<uint64_t> expiry, const std::string& item_key);
  // Returns once every writer holding an item lock now has released it.
  void WaitForItemWriters() {
    for (std::mutex& m : stripes) {
      m.lock();
      m.unlock();
    }
  }

  // Backups, restores and history (backups.cc; history.h for the record format).
  HistoryClock history_clock;
  // Now (ms since the epoch) as everything that ages with the calendar sees it: streams,
  // Time to Live, history, exports (EngineOptions::clock_for_testing).
  uint64_t NowMs() const {
    return options.clock_for_testing ? options.clock_for_testing() : WallClockMillis();
  }
  // The same in microseconds (a test clock's milliseconds, times 1000).
  uint64_t NowMicros() const {
    using namespace std::chrono;
    if (options.clock_for_testing) return options.clock_for_testing() * 1000;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
  }
  // Kinesis streaming destinations (kinesis_destinations.cc): the record of a table's change
  // in its ACTIVE destination's stream, added to the item's batch under `sequence`; false
  // when the table has no such destination or its stream is gone.
  bool AddKinesisChange(const TableInfo& table, std::string_view item_key,
                        const std::optional<Item>& old, const std::optional<Item>& updated,
                        WriteOrigin origin, uint64_t sequence, Storage::Batch* batch);
  // The ACTIVE destination's stream of a table, or null.
  std::shared_ptr<const KinesisStreamState> KinesisStreamOf(const TableDescription& d) const;
  Status TrimKinesisRecords();
  std::unique_ptr<BackupRegistry> backups;
  // Serialises the control-plane steps that pin, unpin, keep or release a table's items and
  // history: CreateBackup, DeleteBackup, the restores' start and end, DeleteTable's choice to
  // keep a table's items, system backups' expiry.
  std::mutex backups_mu;
  // Tables that may have history records, each with the time up to which the trimmer has
  // removed them (its next seek starts there); guarded by history_mu.
  std::mutex history_mu;
  std::map<uint32_t, uint64_t> history_tables;
  std::atomic<uint64_t> history_trimmed_records{0};
  bool KeepsHistory(const TableInfo& t) const {
    return t.keep_history || t.description.pitr_enabled_since.has_value();
  }
  // Adds one change's history record (old image as stored; null: there was none) and its
  // counter to *batch. REQUIRES: the item's stripe is locked until the batch is committed.
  void AddHistory(uint32_t table_id, std::string_view item_key, const std::string* old_encoded,
                  Storage::Batch* batch) {
    if (!batch->history_ms) batch->history_ms = history_clock.Next();
    std::string record = EncodeHistory(item_key, old_encoded);
    batch->AddToStats(HistoryStatsKey(table_id), 1, static_cast<int64_t>(record.size()));
    batch->Put(Cf::kHistory, HistoryKey(table_id, batch->history_ms, history_clock.NextSeq()),
               record);
  }
  void NoteHistoryTable(uint32_t id) {
    std::lock_guard lock(history_mu);
    history_tables.emplace(id, 0);
  }
  // The point-in-time recovery window of a table (ms), nullopt when PITR is off.
  struct PitrWindow {
    uint64_t earliest_ms = 0;
    uint64_t latest_ms = 0;
  };
  std::optional<PitrWindow> PitrWindowOf(const TableInfo& table);
  // Deletes the SYSTEM backups (those DeleteTable takes) past their expiry, and what they
  // alone kept (housekeeping task expire_system_backups).
  Status ExpireSystemBackups();
  // One round of history trimming: per table with history, the records nothing needs any
  // more, at most kTrimPerRound (housekeeping task trim_history).
  Status TrimHistory();
  // Once nothing pins table `id` any more: a live table stops keeping history for backups, a
  // deleted one loses its kept items and history. REQUIRES: backups_mu held.
  Status ReleaseIfUnpinned(uint32_t id);
  // Starts (or, after a restart, redoes) the restore that fills table `target_id`.
  void StartRestore(uint32_t target_id, bool redo);
  void RunRestore(uint32_t target_id, bool redo);
  // Pins a restore job's source at open (and at its start).
  void PinRestoreJob(const TableInfo::RestoreJob& job);
  // Loads backups, pins and history tables, releases what nothing pins, restarts restores.
  Status OpenBackups();
  Status RaiseHistoryClock();  // backups.cc: at open, above every time the store holds
  // DeleteTable's part: a SYSTEM backup of a table with point-in-time recovery; returns
  // whether the table's items must stay (something pins them). REQUIRES: backups_mu held.
  Result<bool> BackupOnDelete(const TableInfo& table);
  std::atomic<uint64_t> restores_completed{0};

  // DeleteTable's steps on the store (delete_table.cc; an import that fails drops its table
  // with the first two too). DropTableRecord removes the table's catalog record, in one
  // write with its counters (the table's and its indexes') and, with keep_items (backups
  // need them), the marker that keeps its items and history (RetainedKey) until
  // ReleaseIfUnpinned. RemoveTableData then removes the items and history (unless kept) and
  // the index entries, one range deletion each. ReleaseTableState closes the table's stream
  // (kept, closed, for the retention period), drops its TTL record and forgets its
  // partitions and vector indexes. Errors: kResourceNotFound (DropTableRecord), kInternal.
  Result<std::shared_ptr<const TableInfo>> DropTableRecord(const std::string& name,
                                                           bool keep_items);
  Status RemoveTableData(const TableInfo& table, bool keep_items);
  Status ReleaseTableState(const TableInfo& table);

  ~EngineImpl();
  // CreateTable (engine.cc), also for ImportTable's new table.
  Result<TableDescription> CreateTable(const RequestContext& ctx, const CreateTableRequest& req);
  // Fills a new GSI from the table's items, then marks it ACTIVE.
  // A GSI's backfill and its end, for the index of that name with `index_id` only: a
  // deleted index's walk must not fill, or mark ACTIVE, a new index of the same name.
  void Backfill(uint32_t table_id, std::string table_name, std::string index_name,
                uint32_t index_id);
  void MarkBackfilled(const std::string& table_name, const std::string& index_name,
                      uint32_t index_id);
  // Writes the TTL record entry of every item of the table, then the built marker; stops
  // when the table's TTL changes (generation) or the engine stops (time_to_live.cc).
  void BackfillTtl(uint32_t table_id, uint64_t generation);

  std::mutex& StripeFor(const std::string& item_key) {
    return stripes[std::hash<std::string>{}(item_key) % kLockStripes];
  }

  // `name` may be the table's ARN.
  // A table held CREATING is not found, as the service answers data-plane calls.
  Result<std::shared_ptr<const TableInfo>> FindTable(const std::string& name) {
    const std::string table_name(TableNameOf(name));
    auto info = catalog->Find(table_name);
    if (!info || info->restore_job || table_holds->StatusOf(table_name) == TableStatus::kCreating) {
      return TableNotFound();
    }
    return info;
  }

  std::string ItemKeyOf(const TableInfo& table, const Item& item_or_key) {
    const TableDescription& d = table.description;
    const AttributeValue& pk = item_or_key.at(d.hash_key());
    const std::string* range = d.range_key();
    return EncodeItemKey(table.id, table.key_format, pk, range ? &item_or_key.at(*range) : nullptr);
  }

  Result<std::optional<Item>> ReadItem(const std::string& key) {
    DDB_ASSIGN_OR_RETURN(std::optional<std::string> raw, storage->Get(Cf::kItems, key));
    if (!raw) return std::optional<Item>();
    Item item;
    if (!DecodeItem(*raw, &item)) return Error::Internal("unreadable item");
    return std::optional<Item>(std::move(item));
  }

  // The single-item write path: under the item's stripe lock, reads the old item, asks
  // "compute" for the new one (nullopt deletes; an error, e.g. a failed condition, aborts
  // without writing), and commits the item and the table counters in one WriteBatch.
  // Returns the old item. Errors: those of compute, kInternal.
  using ComputeNewItem =
      std::function<Result<std::optional<Item>>(const std::optional<Item>& old_item)>;
  // When new_item is given, the new item is moved there after the write. "sync" kDeferred:
  // the caller syncs later (Storage::Sync) or needs no sync (a background job's write).
  // A multi-Region strongly consistent table's write goes through the replication layer's
  // hooks (Engine::StrongWriteHooks) around it.
  Result<std::optional<Item>> Mutate(const TableInfo& table, const std::string& key,
                                     const ComputeNewItem& compute,
                                     std::optional<Item>* new_item = nullptr,
                                     WriteOrigin origin = WriteOrigin::kRequest,
                                     WriteSync sync = WriteSync::kAsOpened);
  // Mutate's write in this engine; `committed` (may be null) gets the change's stamp (0 when
  // nothing was written), commit time and new image.
  Result<std::optional<Item>> MutateHere(const TableInfo& table, const std::string& key,
                                         const ComputeNewItem& compute,
                                         std::optional<Item>* new_item, WriteOrigin origin,
                                         WriteSync sync, ReplicatedChange* committed);
  // The hooks of STRONG tables' writes (Engine::SetStrongWriteHooks); null when none.
  std::shared_ptr<const Engine::StrongWriteHooks> StrongHooks() {
    std::lock_guard lock(strong_hooks_mu);
    return strong_hooks;
  }
  std::mutex strong_hooks_mu;
  std::shared_ptr<const Engine::StrongWriteHooks> strong_hooks;  // guarded by strong_hooks_mu

  // Adds one item's write (nullopt deletes) with its counters, LSI entries, change-log
  // record (tables with GSIs), stream record (tables with an enabled stream, unless the
  // item does not change) and Time to Live record entries (tables with TTL) to *batch;
  // appends the change sequence taken (if any) to *sequences, which the caller must pass to
  // Commit. REQUIRES: the item's stripe is locked until the batch is committed (or dropped).
  // A global table's write is stamped (global_tables.cc): `stamp` is the one of the change
  // ApplyReplicated applies (origin kReplicated); the other writes take a new one.
  Status AddWrite(uint32_t table_id, const std::string& key, const std::optional<Item>& old,
                  const std::optional<Item>& updated, Storage::Batch* batch,
                  std::vector<uint64_t>* sequences, WriteOrigin origin = WriteOrigin::kRequest,
                  uint64_t stamp = 0);
  // Global tables (global_tables.cc): the item's last-writer-wins stamp, nullopt when it has
  // none; a new stamp greater than `floor` and than every stamp this process issued.
  Result<std::optional<uint64_t>> ReplicationStampOf(const std::string& item_key);
  uint64_t NextReplicationStamp(uint64_t floor);

  // Streams of table lifecycle events (stream_operations.cc): a new stream for a table whose
  // description just gained a label (start: the first sequence it may hold), and closing
  // the stream "label" of "table".
  Status OpenStream(const TableInfo& table, uint64_t start_sequence);
  Status CloseStream(const std::string& table, const std::string& label);
  // Writes the batch and ends its change sequences (also when the write failed).
  Status Commit(Storage::Batch& batch, const std::vector<uint64_t>& sequences,
                WriteSync sync = WriteSync::kAsOpened);
  // GSI entries are written in the item's own batch (AddWrite), so an index read right
  // after a write sees it (as with DynamoDB Local), unless GSI lag is simulated: then they
  // come from the change log through the applier and no write waits for them.
  bool GsisInline() const { return options.gsi_propagation_delay_ms == 0; }

  // Runs a prepared single-item write under the item's lock. Returns the old item and,
  // when new_item is given, stores the new one there.
  Result<std::optional<Item>> Write(const PreparedWrite& write, std::optional<Item>* new_item);

  // An unconditional put that needs the old item only for its size: when the table (as of
  // now, under the item's lock) has no index, no stream and no TTL (nothing logs changes or
  // needs the old item's TTL entry), writes "item"
  // and the counters without decoding the old item and returns its size (-1: there was none).
  // Returns nullopt, having written nothing, when the table needs the full write path.
  Result<std::optional<int64_t>> PutWithoutIndexes(uint32_t table_id, const std::string& key,
                                                   const Item& item, int64_t item_size);

  // The partition model's view of requests (capacity_accounting.cc). Admit* answer
  // whether a request may run (only throttles when simulating); Charge* record its cost.
  Status AdmitKey(const TableInfo& table, const Item& item_or_key, bool write);
  // "sizes" are the items' (AddWriteCapacity's answer); "item_key" (key_codec.h), when the
  // caller has it, saves hashing the partition key again.
  void ChargeWrite(const TableInfo& table, const Item& item_or_key,
                   const std::optional<Item>& old_item, const std::optional<Item>& new_item,
                   const ConsumedCapacity& cost, WriteSizes sizes, std::string_view item_key = {});
  // The table's share of ChargeWrite, from item sizes (-1: no item).
  void ChargeTableWrite(const TableInfo& table, const Item& item_or_key, int64_t old_size,
                        int64_t new_size, double units, std::string_view item_key = {});
  void ChargeRead(const TableInfo& table, const IndexSchema* index, uint64_t token,
                  const std::string& key, double units);
  // A read of the table (index null) or a GSI at "token".
  Status AdmitRead(const TableInfo& table, const IndexSchema* index, uint64_t token);

  // ReturnItemCollectionMetrics=SIZE for a write of "item_or_key" (tables with LSIs only).
  std::optional<ItemCollectionMetrics> CollectionMetrics(const TableInfo& table,
                                                         const Item& item_or_key, bool requested);

  // Sleeps `ms` (EngineOptions::index_status_hold_ms) unless the engine stops meanwhile;
  // false when it does.
  bool HoldIndexStatus() {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options.index_status_hold_ms);
    while (!stopping && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return !stopping;
  }
  // After the hold (when `hold`), the DELETING index `index_name` leaves the table's
  // description.
  void RemoveDeletingIndex(std::string table_name, std::string index_name, bool hold);

  TableDescription Describe(const RequestContext& ctx, const TableInfo& table) {
    TableDescription d = table.description;
    if (std::optional<TableStatus> held = table_holds->StatusOf(d.table_name)) {
      d.table_status = *held;
    }
    if (table.restore_job) d.table_status = TableStatus::kCreating;
    d.table_arn = TableArnOf(ctx, d.table_name);
    if (d.latest_stream_label) {
      d.latest_stream_arn = StreamArn(ctx, d.table_name, *d.latest_stream_label);
    }
    auto stats = [&](uint32_t id) {
      auto v = storage->GetStats(StatsKey(id));
      return v.ok() ? v.value() : std::pair<int64_t, int64_t>{0, 0};
    };
    std::tie(d.item_count, d.table_size_bytes) = stats(table.id);
    for (auto* list : {&d.local_secondary_indexes, &d.global_secondary_indexes}) {
      for (auto& def : *list) {
        if (const IndexSchema* index = table.FindIndex(def.index_name)) {
          std::tie(def.item_count, def.size_bytes) = stats(index->index_id);
        }
      }
    }
    // Vector indexes: their live entries; the size is that of their float32 vectors.
    for (auto& def : d.vector_indexes) {
      if (auto index = vectors->Find(table.id, def.index_name)) {
        def.item_count = static_cast<int64_t>(index->Size());
        def.size_bytes = def.item_count * def.dimensions * static_cast<int64_t>(sizeof(float));
      }
    }
    return d;
  }
};

// Locks the stripes of "keys" in ascending order (a fixed global order, so two holders of
// several cannot deadlock) and unlocks them on destruction: transactions, replicated batches.
class StripeLocks {
 public:
  StripeLocks(EngineImpl& impl, const std::vector<std::string>& keys) {
    std::set<std::mutex*> stripes;
    for (const auto& k : keys) stripes.insert(&impl.StripeFor(k));
    // The address order of an array's elements is their index order: a fixed global order.
    for (std::mutex* m : stripes) {
      m->lock();
      held_.push_back(m);
    }
  }
  ~StripeLocks() {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) (*it)->unlock();
  }
  StripeLocks(const StripeLocks&) = delete;
  StripeLocks& operator=(const StripeLocks&) = delete;

 private:
  std::vector<std::mutex*> held_;
};

}  // namespace ddb
