// Engine: DynamoDB tables stored in one RocksDB instance. This header and the others of
// include/ddb/ are the embedding API: types.h (requests and results), attribute_value.h,
// number.h, error.h, capacity.h, limits.h, enum_names.h, metrics.h (GetMetrics),
// import_export.h, logger.h (EngineOptions::logger) and stored_item.h (the stored item
// format). protocol/, server/ and cli/ use nothing else of the engine, and an in-process
// caller gets the wire API's semantics.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ddb/error.h"
#include "ddb/import_export.h"
#include "ddb/logger.h"
#include "ddb/metrics.h"
#include "ddb/types.h"

namespace ddb {
class EngineImpl;  // the engine's state; private to the library (and not exported)
}  // namespace ddb

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// What an acknowledged write survives (docs/architecture/storage.md, "Durability").
enum class Durability : uint8_t {
  // In RocksDB's write-ahead log, not synced: survives a crash of the process, not of the
  // machine (a power cut loses the writes since the OS last wrote its cache back).
  kProcess,
  // Synced to stable storage before the write is acknowledged; concurrent writers share
  // an fsync (RocksDB's group commit). Survives a power cut.
  kFsync,
};

struct EngineOptions {
  // Directory of the RocksDB store; created when missing. Ignored when in_memory.
  // Default: "./data"
  std::string data_dir = "./data";
  // Keep everything in memory; nothing is written to disk. Default: false
  bool in_memory = false;
  // What an acknowledged write survives. Ignored when in_memory. Default: kProcess
  Durability durability = Durability::kProcess;
  // The block cache shared by every store of the process (data blocks, index and filter
  // blocks): what reads from a data directory keep in memory. Default: 256 MiB
  size_t block_cache_bytes = size_t{256} << 20;
  // Minimum age of a change before the GSI applier applies it, to make GSI lag visible on
  // purpose in experiments. Default: 0 (as fast as the machine allows)
  int gsi_propagation_delay_ms = 0;
  // Throttle requests by the partition model (partition_model.h). Default: false
  bool simulate_capacity = false;
  // Item bytes at which a partition splits. Default: 10 GB
  int64_t partition_split_bytes = int64_t{10} * 1024 * 1024 * 1024;
  // How long stream records (and disabled streams) are kept. Default: 24 hours
  int64_t stream_retention_ms = int64_t{24} * 60 * 60 * 1000;
  // How often every background job runs, not only Time to Live's: each of the engine's
  // housekeeping tasks (engine/housekeeping.h) runs one round this long after its last one
  // ended: expired items deleted (TTL), stream records past stream_retention_ms and disabled
  // streams trimmed, expired SYSTEM backups deleted, item history nothing needs trimmed,
  // TransactWriteItems' ClientRequestTokens past 10 minutes forgotten. Default: 1000
  int ttl_sweep_interval_ms = 1000;
  // How long a new GSI stays CREATING before its backfill and after it, and a deleted GSI
  // DELETING before it goes (DynamoDB Local's -delayTransientStatuses holds them 15 s).
  // Default: 0 (at once)
  int index_status_hold_ms = 0;
  // How long a table is shown CREATING after CreateTable, UPDATING after UpdateTable and
  // DELETING after DeleteTable, with the service's refusals meanwhile (data-plane calls to a
  // CREATING table: ResourceNotFoundException; changes: ResourceInUseException).
  // Default: 0 (ACTIVE at once, as DynamoDB Local)
  int table_status_hold_ms = 0;
  // Compact the store before Open returns (DynamoDB Local's -optimizeDbBeforeStartup).
  // Default: false
  bool compact_on_open = false;
  // How far LatestRestorableDateTime lags behind now for point-in-time recovery (the service
  // lags about 5 minutes). Default: 1000
  int pitr_lag_ms = 1000;
  // The most history (old images of changed items) a table with point-in-time recovery
  // keeps, in bytes; past it the oldest goes and EarliestRestorableDateTime moves up. History
  // that an on-demand backup or a restore in progress needs is never dropped for it.
  // Default: 1 GiB
  int64_t pitr_history_max_bytes = int64_t{1} << 30;
  // The directory standing in for Amazon S3 (ImportTable's source, exports' destination):
  // bucket = subdirectory, object key = path inside it (engine/import_export/local_s3.h). Import
  // error records go to <s3_dir>/.logs/aws-dynamodb/imports/<import id>.log (where the service
  // writes them to CloudWatch Logs). Default: "" (<data_dir>/s3; in memory, a directory
  // under the system's temporary directory)
  std::string s3_dir;
  // Tests only: the engine's idea of now, in ms since the epoch, for everything that ages
  // with the calendar: stream records and their 24-hour retention, shard iterators, Time to
  // Live expiry, GSI propagation delay, point-in-time history (commit times, the recovery
  // window), exports and table creation times. A test moves time forward past the service's
  // 15-minute minimum of an incremental export without waiting, or opens a fixture store as
  // of the day it was made (the server's --clock-start-ms). Must be safe to call from any
  // thread. Default: null (the system clock)
  std::function<uint64_t()> clock_for_testing;
  // Receives every message the engine has (storage errors, skipped change records, failed
  // background work); see ddb/logger.h. Default: null, meaning StderrLogger()
  Logger logger{};
};

class Engine {
 public:
  // Opens or creates the store. Errors: kInternal (RocksDB could not open it).
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);

  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // Flushes and closes RocksDB.
  ~Engine();

  // Errors: kValidation (bad schema, name, throughput), kResourceInUse (exists).
  Result<TableDescription> CreateTable(const RequestContext& ctx, const CreateTableRequest& req);
  // Errors: kResourceNotFound.
  Result<TableDescription> DescribeTable(const RequestContext& ctx, const std::string& name);
  // Deletes the table: its catalog record and counters, its items, index entries, item
  // history and Time to Live record. Items and history a backup or a restore still needs stay
  // (under the table's id, never reused) until it no longer does; a table with point-in-time
  // recovery first gets a SYSTEM backup, "<table>$DeletedTableBackup", kept 35 days. Its
  // stream is closed and kept for stream_retention_ms. The table is gone when this returns;
  // for table_status_hold_ms DescribeTable and ListTables still show it DELETING and
  // CreateTable refuses its name. Returns the description with status DELETING.
  // Errors: kResourceNotFound, kResourceInUse (held CREATING, UPDATING or DELETING, or being
  // filled by a restore), kValidation (deletion protection), kInternal.
  Result<TableDescription> DeleteTable(const RequestContext& ctx, const std::string& name);
  // Changes throughput, billing mode, streams, table class, deletion protection, and adds
  // (with an online backfill), updates or deletes GSIs. Returns the description with status
  // UPDATING. Errors: kResourceNotFound, kValidation.
  Result<TableDescription> UpdateTable(const RequestContext& ctx, const UpdateTableRequest& req);
  // Enables or disables Time to Live on an attribute; expired items (a number of epoch
  // seconds in the past) are then deleted in the background, through the normal write path.
  // Errors: kResourceNotFound, kValidation ("TimeToLive is already enabled", ...).
  Result<TimeToLiveSpecification> UpdateTimeToLive(const std::string& table,
                                                   const TimeToLiveSpecification& spec);
  // Errors: kResourceNotFound.
  Result<std::optional<std::string>> DescribeTimeToLive(const std::string& table);
  // Replica auto scaling settings of the table in this engine's Region (kept, described by
  // DescribeTable's auto_scaling; nothing scales). Errors: kResourceNotFound (the table, one
  // of its GSIs), kValidation (PAY_PER_REQUEST, minimum above maximum).
  Result<TableDescription> UpdateAutoScaling(const RequestContext& ctx, const std::string& table,
                                             const TableAutoScalingUpdate& update);
  // Point-in-time recovery settings. `recovery_period_days` (1..35) only when enabling.
  // Errors: kTableNotFound ("Table not found: <name>").
  Result<ContinuousBackupsDescription> UpdateContinuousBackups(
      const std::string& table, bool enabled, std::optional<int> recovery_period_days);
  Result<ContinuousBackupsDescription> DescribeContinuousBackups(const std::string& table);

  // On-demand backups (docs/architecture/backup.md). A backup
  // is the table as of the request; it outlives the table and costs what changed since.
  // Errors: kTableNotFound ("Table not found: <name>"), kContinuousBackupsUnavailable (the
  // table is still being created or restored).
  Result<BackupDescription> CreateBackup(const RequestContext& ctx, const std::string& table,
                                         const std::string& backup_name);
  // Errors: kBackupNotFound ("Backup not found: <arn>").
  Result<BackupDescription> DescribeBackup(const RequestContext& ctx, const std::string& arn);
  // Errors: kValidation (limit out of 1..100).
  Result<ListBackupsResult> ListBackups(const RequestContext& ctx, const ListBackupsRequest& req);
  // Returns the backup with status DELETED. Errors: kBackupNotFound, kBackupInUse (a restore
  // from it is in progress).
  Result<BackupDescription> DeleteBackup(const RequestContext& ctx, const std::string& arn);
  // Creates the target table (CREATING, with a RestoreSummary) and fills it in the
  // background; it becomes ACTIVE when done. Errors: kBackupNotFound, kTableAlreadyExists,
  // kTableInUse (target being deleted), kValidation (overrides).
  Result<TableDescription> RestoreTableFromBackup(const RequestContext& ctx,
                                                  const RestoreTableFromBackupRequest& req);
  // As RestoreTableFromBackup, from the source table as it was at a time of its
  // point-in-time recovery window. Errors: kTableNotFound, kPointInTimeRecoveryUnavailable,
  // kInvalidRestoreTime, kTableAlreadyExists, kTableInUse, kValidation.
  Result<TableDescription> RestoreTableToPointInTime(const RequestContext& ctx,
                                                     const RestoreTableToPointInTimeRequest& req);
  // Tags of a table: add/replace, remove, list. Errors: kResourceNotFound, kValidation.
  Status TagResource(const std::string& table, const std::vector<Tag>& tags);
  Status UntagResource(const std::string& table, const std::vector<std::string>& keys);
  Result<std::vector<Tag>> ListTagsOfResource(const std::string& table);

  // Resource-based policies of a table or of one of its streams (req.resource: a table
  // name, a table ARN or a stream ARN). The document is stored as given: validating and
  // canonicalising it is the caller's (protocol/resource_policy.h). An equivalent document
  // (the same text) keeps its revision. Returns the revision id.
  // Errors: kValidation (over 20480 bytes, not a table or stream ARN), kResourceNotFound
  // (no such table or stream), kPolicyNotFound (expected_revision_id does not match).
  Result<std::string> PutResourcePolicy(const RequestContext& ctx,
                                        const PutResourcePolicyRequest& req);
  // False when no table or stream of this engine has a policy, nor has had one since it
  // opened: a cheap check for a caller that enforces them on every request.
  bool MayHaveResourcePolicies() const;
  // Errors: kValidation, kResourceNotFound, kPolicyNotFound (none attached).
  Result<ResourcePolicy> GetResourcePolicy(const RequestContext& ctx, const std::string& resource);
  // Removes the policy; returns the removed revision id, or nullopt when there was none (not
  // an error, as in the service, unless a revision was expected).
  // Errors: kValidation, kResourceNotFound, kPolicyNotFound (expected_revision_id does not match).
  Result<std::optional<std::string>> DeleteResourcePolicy(
      const RequestContext& ctx, const std::string& resource,
      const std::optional<std::string>& expected_revision_id);

  // Table names in ascending order. Errors: kValidation (limit out of 1..100).
  Result<ListTablesResult> ListTables(const ListTablesRequest& req);

  // Errors: kResourceNotFound, kValidation (key missing or mistyped, item too large, bad
  // expression), kConditionalCheckFailed ("The conditional request failed").
  Result<PutItemResult> PutItem(const PutItemRequest& req);
  // Errors: kResourceNotFound, kValidation (key does not match the schema).
  Result<GetItemResult> GetItem(const GetItemRequest& req);
  // Errors: kResourceNotFound, kValidation (key does not match the schema),
  // kConditionalCheckFailed.
  Result<DeleteItemResult> DeleteItem(const DeleteItemRequest& req);
  // Applies an UpdateExpression to the item (creating it when missing, unless the
  // condition fails). Errors: kResourceNotFound, kValidation (expressions, key updates,
  // operand types, item too large, or what the update writes too large by UpdateItem's own
  // rule unless req.finished_item_size_only), kConditionalCheckFailed.
  Result<UpdateItemResult> UpdateItem(const UpdateItemRequest& req);

  // Up to 100 writes and condition checks over one or more tables, all or nothing: one
  // WriteBatch after every condition held. Serializable with other transactions and
  // single-item writes (items are locked in a fixed order, so no deadlock is possible).
  // A ClientRequestToken makes a retry within 10 minutes return the first outcome.
  // Errors: kResourceNotFound, kValidation, kTransactionCanceled (detail: one reason per
  // action), kIdempotentParameterMismatch.
  Result<TransactWriteItemsResult> TransactWriteItems(const TransactWriteItemsRequest& req);
  // Up to 100 reads seen at one instant, isolated from concurrent transactions.
  // Errors: kResourceNotFound, kValidation.
  Result<TransactGetItemsResult> TransactGetItems(const TransactGetItemsRequest& req);

  // PartiQL (engine/partiql/partiql_parser.h for the statements understood), compiled to the
  // operations above: SELECT to GetItem/Query/Scan (Query when the WHERE clause fixes the
  // partition key), INSERT to a PutItem that refuses an existing key (kDuplicateItem),
  // UPDATE/DELETE to UpdateItem/DeleteItem on the key the WHERE clause fixes.
  Result<ExecuteStatementResult> ExecuteStatement(const RequestContext& ctx,
                                                  const ExecuteStatementRequest& req);
  Result<BatchExecuteStatementResult> BatchExecuteStatement(
      const RequestContext& ctx, const BatchExecuteStatementRequest& req);
  Result<ExecuteTransactionResult> ExecuteTransaction(const RequestContext& ctx,
                                                      const ExecuteTransactionRequest& req);

  // ImportTable: creates the table (TableCreationParameters, CreateTable's checks) and fills
  // it in the background from the S3 objects under the prefix (DYNAMODB_JSON, ION or CSV;
  // GZIP, ZSTD or none). The table is CREATING until the import ends: COMPLETED, or FAILED
  // with ItemValidationError (items that did not parse or fit the schema are skipped, the
  // rest of their object too, and logged; the table keeps what was imported) or
  // S3NoSuchBucket (the table is deleted). An import interrupted by a restart starts over.
  // Errors: kValidation, kResourceInUse ("Table already exists: T"), kImportConflict (the
  // ClientToken names an import of another table), kLimitExceeded (50 imports running).
  Result<ImportDescription> ImportTable(const RequestContext& ctx, const ImportTableRequest& req);
  // Errors: kValidation ("Invalid Import ARN"), kImportNotFound.
  Result<ImportDescription> DescribeImport(const RequestContext& ctx, const std::string& arn);
  // Newest first; NextToken is opaque. Errors: kValidation (page size, token).
  Result<ListImportsResult> ListImports(const RequestContext& ctx, const ListImportsRequest& req);
  // ExportTableToPointInTime: writes the table as of ExportTime (default now: a consistent
  // snapshot taken before this returns) under s3://bucket/prefix/AWSDynamoDB/<export id>/ in
  // the background, in the service's layout. Errors: kValidation, kTableNotFound,
  // kPointInTimeRecoveryUnavailable, kInvalidExportTime (outside the recovery window; without
  // point-in-time history, any time but about now, and every incremental export),
  // kExportConflict (the ClientToken names another export), kLimitExceeded (300 running).
  Result<ExportDescription> ExportTableToPointInTime(const RequestContext& ctx,
                                                     const ExportTableRequest& req);
  // Errors: kValidation ("Invalid Export ARN"), kExportNotFound.
  Result<ExportDescription> DescribeExport(const RequestContext& ctx, const std::string& arn);
  // Errors: kValidation (max results, token).
  Result<ListExportsResult> ListExports(const RequestContext& ctx, const ListExportsRequest& req);

  // Contributor insights of a table or GSI: enabled, the partition keys (and partition +
  // sort keys) that consume the most capacity and are throttled most are tracked (and shown
  // at /metrics). Persisted with the table. Errors: kResourceNotFound (table or index).
  Result<ContributorInsightsDescription> UpdateContributorInsights(
      const RequestContext& ctx, const UpdateContributorInsightsRequest& req);
  Result<ContributorInsightsDescription> DescribeContributorInsights(
      const RequestContext& ctx, const std::string& table, const std::optional<std::string>& index);
  // Every table's (or one table's) table and GSI entries. Errors: kResourceNotFound,
  // kValidation (token).
  Result<ListContributorInsightsResult> ListContributorInsights(
      const RequestContext& ctx, const ListContributorInsightsRequest& req);

  // SearchVectors: the TopK items of the vector index nearest to the search vector, best
  // first. Errors: kResourceNotFound (table, index), kValidation (the request, an index
  // still backfilling: the service's messages, docs/architecture/vector.md).
  Result<SearchVectorsResult> SearchVectors(const RequestContext& ctx,
                                            const SearchVectorsRequest& req);

  // Global tables, version 2019.11.21 (docs/global-tables.md). The engine keeps one Region's
  // replica; the replication layer above the engines (replication/) coordinates the Regions
  // with these calls.
  //
  // Sets the table's replicas in the other Regions (replaces the list). A non-empty list
  // turns the stream on (NEW_AND_OLD_IMAGES when there was none, as the service does), refuses
  // to turn it off, and stamps every write of the table for last-writer-wins; an empty list
  // ends that. Errors: kResourceNotFound.
  Result<TableDescription> SetReplicas(const RequestContext& ctx, const std::string& table,
                                       std::vector<ReplicaDescription> replicas);
  // Multi-Region strong consistency: the table STRONG with these witnesses, or not (strong
  // false). A STRONG table refuses transactions and Time to Live. Errors: kResourceNotFound.
  Result<TableDescription> SetStrongConsistency(const RequestContext& ctx, const std::string& table,
                                                bool strong,
                                                std::vector<WitnessDescription> witnesses);
  // What the replication layer does around each item write of a STRONG table (none set:
  // such writes are replicated like any other). `item_id` names the item the same way in
  // every Region (its key attributes, encoded). claim: before the write, may refuse it
  // (kReplicatedWriteConflict: the item is being written in another Region); then exactly
  // one of replicate (the write committed here: applied in the other Regions before the
  // write is acknowledged; an error is the write's answer) and release (nothing committed).
  // Called without any of the engine's locks held.
  struct StrongWriteHooks {
    std::function<Status(const std::string& table, const std::string& item_id)> claim;
    std::function<Status(const std::string& table, const std::string& item_id,
                         const ReplicatedChange& change)>
        replicate;
    std::function<void(const std::string& table, const std::string& item_id)> release;
  };
  void SetStrongWriteHooks(StrongWriteHooks hooks);
  // Shows the table CREATING (data-plane calls answer ResourceNotFoundException) while it is
  // filled as a new replica (`filling`), then as it is. ApplyReplicated ignores it.
  // Errors: kResourceNotFound.
  Status SetFilling(const std::string& table, bool filling);
  // The table's changes after position `after` (0: from the oldest its stream keeps), at
  // most `limit` of them, in commit order. Errors: kResourceNotFound, kValidation (the table
  // has no replicas).
  Result<ReplicationLogPage> ReadReplicationLog(const std::string& table, uint64_t after,
                                                size_t limit);
  // The position of the table's newest change (where a replica filled from a snapshot taken
  // now starts reading). Errors: kResourceNotFound.
  Result<uint64_t> ReplicationLogEnd(const std::string& table);
  // One page (at most `limit` entries) of the table's items with their stamps, as of the
  // call, for a new replica's fill: the items, then the stamps of deleted items (so that an
  // older change arriving later cannot bring one back there). `cursor`: "" for the first
  // page, then the last page's. Errors: kResourceNotFound, kValidation (no replicas, or a
  // cursor this engine did not give).
  Result<ReplicaSnapshotPage> ReadReplicaSnapshot(const std::string& table,
                                                  const std::string& cursor, size_t limit);
  // Applies another Region's change when its stamp is greater than the item's (the
  // service's last-writer-wins), with the item's indexes, Time to Live entry and stream
  // record; a stamp of 0 (a replica's fill) applies only to an item never stamped. Returns
  // whether it applied. Errors: kResourceNotFound, kTransactionConflict (a transaction holds
  // the item: try again).
  Result<bool> ApplyReplicated(const std::string& table, const ReplicatedChange& change);
  // The same for a run of changes, in one write: it takes the changes from the first on up
  // to (not including) the first whose item an earlier one of the run has, or a transaction
  // holds, and returns how many it took (each applied or not newer); the caller sends the
  // rest again. Errors: as ApplyReplicated (kTransactionConflict: the first change's item is
  // held).
  Result<size_t> ApplyReplicatedBatch(const std::string& table,
                                      const std::vector<ReplicatedChange>& changes);
  // How far this Region's changes of the table reached the replica in `region` (a position
  // of ReadReplicationLog), kept with the table across restarts; 0 when never saved.
  Result<uint64_t> ReplicationCheckpoint(const std::string& table, const std::string& region);
  Status SaveReplicationCheckpoint(const std::string& table, const std::string& region,
                                   uint64_t position);

  // Kinesis Data Streams (ddb/kinesis.h, docs/kinesis.md). Streams are named within this
  // engine (one account and Region); the protocol layer checks the requests' shapes.
  // Errors: kResourceInUse (exists), kLimitExceeded (the account's shards), kInvalidArgument.
  Status CreateKinesisStream(const RequestContext& ctx, const CreateKinesisStreamRequest& req);
  // Errors: kResourceNotFound.
  Status DeleteKinesisStream(const RequestContext& ctx, const std::string& name);
  Result<KinesisStreamInfo> DescribeKinesisStream(const RequestContext& ctx,
                                                  const std::string& name);
  // Every stream, by name (at most kMaxKinesisShardsPerAccount of them).
  std::vector<KinesisStreamInfo> ListKinesisStreams(const RequestContext& ctx);
  // Errors: kResourceNotFound (stream, shard), kInvalidArgument (sequence numbers).
  Result<std::string> GetKinesisShardIterator(const RequestContext& ctx,
                                              const KinesisShardIteratorRequest& req);
  // At most `limit` records and kMaxKinesisGetRecordsBytes of data from the iterator on.
  // Errors: kInvalidArgument (not an iterator), kExpiredIterator, kResourceNotFound.
  Result<KinesisGetRecordsResult> GetKinesisRecords(const RequestContext& ctx,
                                                    const std::string& iterator, int limit);
  // The entries in one write, each to the shard its hash key falls in; results in order.
  // Errors: kResourceNotFound, kInvalidArgument (an explicit hash key out of range).
  Result<std::vector<KinesisPutResult>> PutKinesisRecords(const RequestContext& ctx,
                                                          const std::string& stream,
                                                          const std::vector<KinesisPutEntry>& e);

  // DynamoDB's Kinesis streaming destinations of a table (`table`: its name or ARN). Each
  // call answers the destination as it now is; the service's transitions (ENABLING,
  // DISABLING, UPDATING) are instant here. Errors: kResourceNotFound (the table),
  // kValidation (the state machine's refusals, in the service's words).
  Result<KinesisDestination> EnableKinesisStreamingDestination(
      const RequestContext& ctx, const std::string& table, const std::string& stream_arn,
      std::optional<KinesisTimePrecision> precision);
  Result<KinesisDestination> DisableKinesisStreamingDestination(const RequestContext& ctx,
                                                                const std::string& table,
                                                                const std::string& stream_arn);
  Result<KinesisDestination> UpdateKinesisStreamingDestination(const RequestContext& ctx,
                                                               const std::string& table,
                                                               const std::string& stream_arn,
                                                               KinesisTimePrecision precision);
  // The table's name and its destinations, newest first.
  Result<std::pair<std::string, std::vector<KinesisDestination>>>
  DescribeKinesisStreamingDestination(const RequestContext& ctx, const std::string& table);

  // The partition model's figures (consumed units, throttles, sizes, hot keys) per table
  // and index, item counts, and the background jobs' counters (ddb/metrics.h).
  EngineMetrics GetMetrics();

  // One page of a Query: the items of one partition key in sort-key order (reversed when
  // !scan_index_forward), at most `limit` items read and about 1 MB of data read per page.
  // Errors: kResourceNotFound, kValidation (expressions, start key, select, limit).
  Result<QueryResult> Query(const QueryRequest& req);
  // One page of a Scan (of a segment when total_segments is set), in key-hash order.
  // Errors: kResourceNotFound, kValidation.
  Result<ScanResult> Scan(const ScanRequest& req);

  // Up to 100 keys over several tables; at most 16 MB of items per response, the rest in
  // unprocessed_keys. Errors: kResourceNotFound, kValidation (limits, duplicate keys).
  Result<BatchGetItemResult> BatchGetItem(const BatchGetItemRequest& req);
  // Up to 25 puts and deletes over several tables, each applied on its own; nothing is
  // written when any request is invalid. Errors: kResourceNotFound, kValidation.
  Result<BatchWriteItemResult> BatchWriteItem(const BatchWriteItemRequest& req);

  // DynamoDB Streams. A table's stream (StreamSpecification on CreateTable/UpdateTable)
  // records every item change in commit order for 24 hours, with the images its view type
  // asks for; one shard per stream. Disabled streams (and those of deleted tables) stay
  // readable for 24 hours.
  //
  // Streams ordered by table name, then label. Errors: kValidation (malformed start ARN).
  Result<ListStreamsResult> ListStreams(const RequestContext& ctx, const ListStreamsRequest& req);
  // Errors: kValidation (malformed ARN), kResourceNotFound.
  Result<StreamDescription> DescribeStream(const RequestContext& ctx,
                                           const DescribeStreamRequest& req);
  // Returns an opaque iterator, valid for 15 minutes. Errors: kValidation (malformed ARN,
  // sequence number missing, superfluous or out of the shard), kResourceNotFound (stream,
  // shard), kTrimmedDataAccess (a sequence number past the retention).
  Result<std::string> GetShardIterator(const RequestContext& ctx,
                                       const GetShardIteratorRequest& req);
  // Up to `limit` records (and about 1 MB) from the iterator's position, and the iterator
  // of what follows (none once a closed shard is read to its end). Errors: kValidation
  // (not an iterator), kExpiredIterator, kTrimmedDataAccess, kResourceNotFound (the stream
  // has aged out).
  Result<GetRecordsResult> GetRecords(const RequestContext& ctx, const GetRecordsRequest& req);

 private:
  explicit Engine(std::unique_ptr<EngineImpl> impl);
  std::unique_ptr<EngineImpl> impl_;
};

}  // namespace ddb

#pragma GCC visibility pop
