// What Engine::GetMetrics() reports: the partition model's figures per table and index
// (consumed units, throttles, splits, per-partition sizes, hot keys), item counts and sizes,
// and the background jobs' counters. /metrics renders exactly this; an embedder may read it
// directly. Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// A point-in-time copy of one partition's figures.
struct PartitionSnapshot {
  uint64_t start = 0;  // first partition-key token
  uint64_t end = 0;    // last token
  double consumed_read_units = 0;
  double consumed_write_units = 0;
  int64_t read_throttles = 0;
  int64_t write_throttles = 0;
  int64_t items = 0;
  int64_t bytes = 0;
  // Throttles by reason: the partition's hard ceiling (3,000 RCU / 1,000 WCU per second, the
  // service's *KeyRangeThroughputExceeded) or the table's capacity (provisioned or on-demand
  // maximum, *ProvisionedThroughputExceeded / *MaxOnDemandThroughputExceeded).
  int64_t read_key_range_throttles = 0;
  int64_t write_key_range_throttles = 0;
  // Units per second this partition may use: its share of the table's provisioned
  // throughput (on demand: the per-partition ceiling).
  double read_limit = 0;
  double write_limit = 0;
  // Units in the partition's buckets now, burst credit included (provisioned tables keep up
  // to 300 s of unused share). Only under simulated capacity; 0 otherwise.
  double read_tokens = 0;
  double write_tokens = 0;
};

// A partition key and the units it consumed (contributor-insights style).
struct HotKey {
  std::string key;
  double units = 0;
};

// The hottest keys of one partition, most first: units since the partition began (a split
// starts afresh) or since its last 10 s heat window with throttles.
struct PartitionHotKeys {
  uint64_t start = 0;  // the partition's first token
  std::vector<HotKey> keys;
};

// One table or GSI in the partition model.
struct ResourceSnapshot {
  uint32_t id = 0;
  std::string table;
  std::string index;  // empty for the table itself
  double consumed_read_units = 0;
  double consumed_write_units = 0;
  int64_t read_throttles = 0;
  int64_t write_throttles = 0;
  int64_t splits = 0;
  bool simulated = false;  // capacity is simulated (--simulate-capacity): throttles happen
  bool on_demand = true;   // on-demand capacity mode, else provisioned
  double read_limit = 0;   // the table's (or GSI's) units per second: provisioned, or the
  double write_limit = 0;  // on-demand maximum (max of warm throughput and 2x peak)
  std::vector<PartitionSnapshot> partitions;
  std::vector<HotKey> hottest_keys;  // the keys that consumed the most units, most first
  std::vector<PartitionHotKeys> partition_hot_keys;  // per partition, up to 3 keys each
};

// Items and item bytes of a table or one of its indexes.
struct IndexFigures {
  std::string index_name;
  int64_t item_count = 0;
  int64_t size_bytes = 0;
};

struct TableFigures {
  std::string name;
  int64_t item_count = 0;
  int64_t size_bytes = 0;
  std::vector<IndexFigures> indexes;
};

// One contributor-insights ranking of a table or GSI with insights enabled: its top keys.
struct ContributorRanking {
  std::string table;
  std::string index;  // empty for the table itself
  // "partition_key_consumed", "partition_sort_key_consumed", "partition_key_throttled",
  // "partition_sort_key_throttled" (CloudWatch's PKC, SKC, PKT and SKT rules).
  std::string rule;
  struct Key {
    std::string partition_key;  // as text (B values base64)
    std::string sort_key;       // empty in partition-key rankings
    double value = 0;           // capacity units, or throttled requests
  };
  std::vector<Key> keys;  // most first, at most 10
};

// One vector index's in-memory figures (engine/vector/vector_index.h).
struct VectorIndexFigures {
  std::string table;
  std::string index;
  uint64_t vectors = 0;         // vectors indexed
  uint64_t memory_bytes = 0;    // the flat store plus the graph, when there is one
  bool graph = false;           // searched through the approximate (HNSW) graph
  bool graph_declined = false;  // no graph: its last build cost more per search than a scan
  uint64_t searches = 0;        // SearchVectors calls since open
};

// One of the engine's housekeeping tasks (its background jobs, engine/housekeeping.h).
struct HousekeepingFigures {
  std::string task;       // expire_ttl_items, trim_stream_records, expire_system_backups,
                          // trim_history, expire_request_tokens
  uint64_t rounds = 0;    // rounds run since open
  uint64_t failures = 0;  // rounds that failed (logged; the next round retries)
};

struct EngineMetrics {
  std::vector<ResourceSnapshot> resources;
  std::vector<TableFigures> tables;
  uint64_t gsi_pending_changes = 0;     // change records not yet applied to GSIs
  uint64_t gsi_lag_ms = 0;              // age of the oldest change not yet applied
  uint64_t gsi_unreadable_changes = 0;  // change records skipped: they did not decode
  uint64_t gsi_apply_errors = 0;        // applier rounds that failed to read or write
  uint64_t gsi_wait_timeouts = 0;       // waits for the applier that ran out (no progress)
  // Time to Live since open: items deleted, deletes that failed (retried next sweep), and
  // record entries the sweeper looked at (expired, or stale ones it removed).
  uint64_t ttl_deleted_items = 0;
  uint64_t ttl_delete_errors = 0;
  uint64_t ttl_examined_entries = 0;
  // The store's writes (engine/storage/storage.h): refused now after a background error, and
  // whether that error is a full disk; times they stopped, and resumed by themselves, since open.
  bool storage_read_only = false;
  bool storage_disk_full = false;
  uint64_t storage_write_stops = 0;
  uint64_t storage_write_resumes = 0;
  // Memory of every store of the process: the block cache's capacity and what it holds (the
  // memtables are charged to it), and the memtables alone.
  uint64_t storage_cache_capacity_bytes = 0;
  uint64_t storage_cache_usage_bytes = 0;
  uint64_t storage_memtable_bytes = 0;
  // This namespace's store: compaction bytes still to rewrite (RocksDB's estimate), and the
  // compactions running now.
  uint64_t storage_pending_compaction_bytes = 0;
  uint64_t storage_running_compactions = 0;
  std::vector<ContributorRanking> contributor_insights;
  std::vector<VectorIndexFigures> vector_indexes;
  std::vector<HousekeepingFigures> housekeeping;
};

}  // namespace ddb

#pragma GCC visibility pop
