// Storage: the only part of ddb that touches RocksDB. One RocksDB instance with the column
// families below; RocksDB statuses become Errors here (details logged, never sent).
//
//   catalog  table name -> table record (catalog.h)
//   items    item key (key_codec.h) -> encoded item (ddb/stored_item.h)
//   changes  the change log (sequence -> change record) that feeds GSIs under simulated lag
//   meta     counters: next table id; per-table and per-index item count and size (int64
//            add merges); the GSI applier's watermark; stream metadata (streams.h); the
//            Time to Live record (ttl_index.h)
//   indexes  secondary-index entries (index_key.h)
//   streams  DynamoDB Streams records, kept 24 hours (streams.h)
//   history  old images of changed items, for point-in-time restores and backups (history.h)
//
// A full disk: RocksDB stops taking writes when a write-ahead-log append, a flush or a
// MANIFEST update fails for want of space (a "hard" background error). Every write then
// fails with kInternal and kDiskFullMessage, reads go on, and a thread of the store calls
// DB::Resume() at growing intervals (0.1 s doubling to 1 s) until it succeeds once space is
// back: writes then resume by themselves. Each transition is logged once. Any other hard
// background error (an I/O error) is retried the same way, and answered "Internal server
// error" meanwhile. Nothing a write was acknowledged for is lost: a write that fails was not
// applied, and resuming flushes the memtables to SST files and starts a new write-ahead log.
//
// Thread safety: all methods may be called concurrently; a Batch is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "ddb/logger.h"

namespace ddb {

enum class Cf : uint8_t {
  kCatalog = 0,
  kItems = 1,
  kChanges = 2,
  kMeta = 3,
  kIndexes = 4,
  kStreams = 5,
  kHistory = 6,
  kKinesis = 7,  // Kinesis Data Streams' records (engine/kinesis/kinesis_streams.h)
};

// Range deletions one family's memtable takes before it is flushed (Storage::DeleteRange).
inline constexpr int kMaxMemtableRangeDeletes = 32;

// The message of the error a write gets while the disk is full (no path in it: clients see it).
inline constexpr const char* kDiskFullMessage =
    "The server's disk is full: writes are refused until space is freed (reads still work)";

// EngineOptions::block_cache_bytes' default (docs/architecture/storage.md, "Memory").
inline constexpr size_t kDefaultBlockCacheBytes = size_t{256} << 20;

// What Storage::GetHealth reports, for /metrics.
struct StorageHealth {
  bool read_only = false;      // writes are refused after a background error
  bool disk_full = false;      // ... and that error is a full disk
  uint64_t write_stops = 0;    // times writes were stopped since open
  uint64_t write_resumes = 0;  // times they resumed by themselves
  // Memory, for the whole process (every store shares them): the block cache's capacity and
  // what it holds, the memtables' charges included; and the memtables alone.
  size_t cache_capacity_bytes = 0;
  size_t cache_usage_bytes = 0;
  size_t memtable_bytes = 0;
  // This store's compactions: the bytes RocksDB estimates they still have to rewrite, and how
  // many run now. A bulk load leaves a debt that reads pay for until it is worked off.
  uint64_t pending_compaction_bytes = 0;
  uint64_t running_compactions = 0;
};

struct StorageOptions {
  std::string path;              // RocksDB directory. Ignored when in_memory.
  bool in_memory = false;        // RocksDB on an in-memory Env, without a WAL. Default: false
  bool compact_on_open = false;  // compact every column family before Open returns
  // Write(batch) returns once the batch is on stable storage (the WAL fsynced; concurrent
  // writers share one fsync). Ignored when in_memory. Default: false (written to the WAL,
  // which survives the process but not the machine)
  bool sync_writes = false;
  // Where storage errors are described (the Error returned says only "Internal server
  // error"). Default: null, meaning StderrLogger()
  Logger logger{};
  // The block cache (decompressed data blocks, and every index and filter block): one for
  // all column families of every store the process opens, of the largest size asked for.
  size_t block_cache_bytes = kDefaultBlockCacheBytes;
};

// Whether a write waits for stable storage in a store opened with sync_writes. Either way
// a crash leaves a prefix of the writes: the WAL is one sequence, recovered up to its
// first torn record, and a synced write makes every write before it durable too.
enum class WriteSync : uint8_t {
  kAsOpened,  // what acknowledges a client's write: synced when the store syncs writes
  kDeferred,  // not now: a later synced write or Sync() covers it, or nothing needs it to
  // Not in the write-ahead log at all (a bulk load that starts over after a crash): durable
  // only once FlushAll() has returned.
  kUnlogged,
};

class Storage {
 public:
  // An atomic group of writes (a RocksDB WriteBatch).
  class Batch {
   public:
    explicit Batch(Storage& storage);
    ~Batch();
    void Put(Cf cf, std::string_view key, std::string_view value);
    void Delete(Cf cf, std::string_view key);
    // Deletes every key in [begin, end) (a range tombstone; see Storage::DeleteRange).
    void DeleteRange(Cf cf, std::string_view begin, std::string_view end);
    // Adds "delta" to the int64 counter at "key" (meta family only).
    void AddToCounter(std::string_view key, int64_t delta);
    // Sets the int64 counter at "key" (meta family only).
    void SetCounter(std::string_view key, int64_t value);
    // Adds to / sets / deletes the (item count, byte size) pair at "key": on disk a key of
    // the meta family, where one merge per write keeps both figures of a table or index; in
    // an in-memory store a map beside RocksDB (memory_stats.h). Read with GetStats only.
    void AddToStats(std::string_view key, int64_t items, int64_t bytes);
    void SetStats(std::string_view key, int64_t items, int64_t bytes);
    void DeleteStats(std::string_view key);

    // The commit time (ms) of this batch's history records (history.h), taken once for the
    // whole batch so that a restore sees all of a transaction or none; 0 until taken.
    uint64_t history_ms = 0;
    // Run by Storage::Write, in order, once the batch is written (not when it fails): what
    // in-memory structures (vector indexes) learn of the batch's writes.
    std::vector<std::function<void()>> after_commit;

   private:
    friend class Storage;
    struct Rep;
    std::unique_ptr<Rep> rep_;
  };

  // A consistent, read-only view of the whole store as of its creation (a RocksDB snapshot),
  // released when the last reference goes. It pins what it sees against compaction
  // meanwhile, so hold one only for a bounded job (a restore, an export).
  class Snapshot {
   public:
    virtual ~Snapshot() = default;
  };

  // Errors: kInternal.
  static Result<std::unique_ptr<Storage>> Open(const StorageOptions& options);
  ~Storage();

  // Errors: kInternal. Returns nullopt when the key is absent.
  Result<std::optional<std::string>> Get(Cf cf, std::string_view key);
  // The last key of a column family at or above "lower" (empty: no bound), if any.
  Result<std::optional<std::string>> LastKey(Cf cf, std::string_view lower = "");
  // Reads a pair written with Batch::AddToStats or SetStats ({0, 0} when absent).
  Result<std::pair<int64_t, int64_t>> GetStats(std::string_view key);
  // Reads an int64 counter written with Batch::AddToCounter (0 when absent).
  Result<int64_t> GetCounter(std::string_view key);
  // Applies the batch atomically. Errors: kInternal (kDiskFullMessage while the disk is full).
  Status Write(Batch& batch, WriteSync sync = WriteSync::kAsOpened);
  // Returns once every write before it is on stable storage, in a store opened with
  // sync_writes (a WAL sync shared with the callers that arrive while one runs); otherwise
  // does nothing. For a request that made several deferred writes. Errors: kInternal.
  Status Sync();
  // Flushes every column family's memtable to SST files (after kUnlogged writes), and
  // returns once they are durable. Errors: kInternal.
  Status FlushAll();
  // Deletes every key in [begin, end) of a column family (a range tombstone: O(1) to write,
  // but every iterator over the family fragments the live range tombstones of its memtable
  // when it is created, so this is for rare events, never for a job that repeats; every
  // kMaxMemtableRangeDeletes of them flush the family's memtable, so a client repeating the
  // event cannot grow that cost). The changes family is the exception: its readers ignore
  // range deletions (they read only above what was trimmed), so trimming it this way costs
  // them nothing.
  Status DeleteRange(Cf cf, std::string_view begin, std::string_view end);
  // Calls fn(key, value) for each key in [begin, end) in order (descending when "reverse")
  // until fn returns false. An empty "end" means no upper bound. Keys below "begin" (deleted
  // or not) are never visited, so point deletes behind a cursor cost a reader nothing.
  // With "at", the keys and values as of that snapshot.
  Status ForEach(Cf cf, std::string_view begin, std::string_view end,
                 const std::function<bool(std::string_view, std::string_view)>& fn,
                 bool reverse = false, const Snapshot* at = nullptr);
  // A snapshot of the store as of now.
  std::shared_ptr<const Snapshot> TakeSnapshot();

  // Writes key-value pairs of one column family through SST files that are then ingested
  // into the store (RocksDB SstFileWriter + IngestExternalFile), around the memtable and the
  // write-ahead log: for bulk loads into key ranges that nothing else writes meanwhile (a
  // table being imported or restored, its new indexes). A file is begun every ~64 MB.
  // Used by one thread.
  class SortedWriter {
   public:
    ~SortedWriter();  // deletes files not ingested
    // REQUIRES: keys strictly ascending across every Add of this writer. Errors: kInternal.
    Status Add(std::string_view key, std::string_view value);
    // Ingests every file (durable when it returns); the writer may be used again after.
    // Errors: kInternal.
    Status Finish();

   private:
    friend class Storage;
    struct Rep;
    explicit SortedWriter(std::unique_ptr<Rep> rep);
    std::unique_ptr<Rep> rep_;
  };
  std::unique_ptr<SortedWriter> NewSortedWriter(Cf cf);

  // Whether writes are refused now (a full disk, see the top of this file) and how often
  // they were stopped and resumed. Always all false and zero in memory.
  StorageHealth GetHealth() const;

  // The engine's logger (StorageOptions::logger), for every part of the engine that has
  // something to report.
  void Log(LogSeverity severity, std::string_view message) const;

 private:
  struct Rep;
  struct IdleStores;
  explicit Storage(std::unique_ptr<Rep> rep);
  static IdleStores& Idle();
  std::unique_ptr<Rep> rep_;
};

}  // namespace ddb
