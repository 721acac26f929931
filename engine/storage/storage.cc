#include "engine/storage/storage.h"

#include <fcntl.h>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/storage/coding.h"
#include "engine/storage/memory_stats.h"
#include "engine/storage/memtable_skip_list.h"

namespace ddb {
namespace {

constexpr const char* kCfNames[] = {"default", "items",   "changes", "meta",
                                    "indexes", "streams", "history", "kinesis"};
constexpr size_t kCfCount = 8;

std::string EncodeInt64(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

int64_t DecodeInt64(const rocksdb::Slice& s) {
  int64_t v = 0;
  if (s.size() == 8) std::memcpy(&v, s.data(), 8);
  return v;
}

std::string EncodePair(int64_t a, int64_t b) { return EncodeInt64(a) + EncodeInt64(b); }

std::pair<int64_t, int64_t> DecodePair(const rocksdb::Slice& s) {
  if (s.size() != 16) return {0, 0};
  return {DecodeInt64(rocksdb::Slice(s.data(), 8)), DecodeInt64(rocksdb::Slice(s.data() + 8, 8))};
}

// Counters (item counts and sizes of tables and indexes, the table-id sequence) are merged,
// not read-modify-written, so writers of different items never contend on them. A value of
// 8 bytes is one int64; of 16 bytes, a pair added element-wise.
class Int64AddOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    if (value.size() == 16) {
      auto base = existing ? DecodePair(*existing) : std::pair<int64_t, int64_t>{0, 0};
      auto delta = DecodePair(value);
      *new_value = EncodePair(base.first + delta.first, base.second + delta.second);
      return true;
    }
    int64_t base = existing ? DecodeInt64(*existing) : 0;
    *new_value = EncodeInt64(base + DecodeInt64(value));
    return true;
  }
  const char* Name() const override { return "ddb.Int64Add"; }
};

Error ToError(const Logger& log, const rocksdb::Status& s, const char* what) {
  log(LogSeverity::kError, std::string("storage: ") + what + " failed: " + s.ToString());
  return Error::Internal("Internal server error");
}

// The file system of an in-memory store: RocksDB's in-memory one, minus the OPTIONS file.
// RocksDB writes that file, then reads and parses it back to verify it, on open and again
// whenever column families are created: about 1.5 ms each time, most of what opening an
// in-memory store costs. Nothing ever reopens an in-memory store, so the file has no
// reader; refusing to create it makes RocksDB log a warning and go on
// (fail_if_options_file_error is false).
class NoOptionsFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit NoOptionsFileSystem(const std::shared_ptr<rocksdb::FileSystem>& fs)
      : FileSystemWrapper(fs) {}
  const char* Name() const override { return "NoOptionsFileSystem"; }
  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    if (name.find("/OPTIONS-") != std::string::npos) {
      return rocksdb::IOStatus::NotSupported("no OPTIONS file in memory");
    }
    return FileSystemWrapper::NewWritableFile(name, options, result, dbg);
  }
};

// Every write goes through RocksDbWrite, which does nothing else, so that ThreadSanitizer
// reports of RocksDB's group commit (successive leaders reuse the DB's scratch batch, ordered
// by atomics in uninstrumented code) have one frame to be suppressed by (tools/tsan.supp).
// RocksDB's own frames never appear in its stacks, which list the call sites of instrumented
// functions: hence the two levels (a frame names RocksDbWrite only where it calls an
// instrumented function), neither inlined, and an instrumented access in the inner one (GCC
// instruments the entry only of functions that have one): the copy of `options`, which
// nothing writes once the store is open.
[[gnu::noinline]] rocksdb::Status WriteToRocksDb(rocksdb::DB& db,
                                                 const rocksdb::WriteOptions& options,
                                                 rocksdb::WriteBatch* batch) {
  const rocksdb::WriteOptions copy = options;
  return db.Write(copy, batch);
}

[[gnu::noinline]] rocksdb::Status RocksDbWrite(rocksdb::DB& db,
                                               const rocksdb::WriteOptions& options,
                                               rocksdb::WriteBatch* batch) {
  return WriteToRocksDb(db, options, batch);
}

bool SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced;
}

// Creates the store's directory and any missing parents, each made durable by syncing the
// directory that holds it. RocksDB creates a missing store directory but never syncs its
// parent: after a power cut the new directory, and every synced write in it, could be gone.
Status CreateDirectoriesDurably(const Logger& log, const std::string& path) {
  std::filesystem::path dir = std::filesystem::absolute(path).lexically_normal();
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) break;
    missing.push_back(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) {
      log(LogSeverity::kError,
          "storage: cannot create " + it->string() + ": " + std::strerror(errno));
      return Error::Internal("Internal server error");
    }
    if (!SyncDirectory(it->parent_path().string())) {
      log(LogSeverity::kError,
          "storage: cannot sync " + it->parent_path().string() + ": " + std::strerror(errno));
      return Error::Internal("Internal server error");
    }
  }
  return Status::Ok();
}

// RocksDB's info log ("LOG" in the store's directory; the one before it is kept as
// "LOG.old"), written with plain write(2)s whose failures are ignored: a line that finds no
// space is dropped. RocksDB's own file logger goes on writing after a failed write, which
// Debian's librocksdb (built with assertions) answers with abort(): on a full disk the first
// line logged after a failed one would end the process.
class InfoLogFile : public rocksdb::Logger {
 public:
  static std::shared_ptr<rocksdb::Logger> Open(const std::string& dir) {
    const std::string path = dir + "/LOG";
    ::rename(path.c_str(), (path + ".old").c_str());  // no LOG yet is fine
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return nullptr;  // RocksDB then makes its own
    return std::make_shared<InfoLogFile>(fd);
  }
  explicit InfoLogFile(int fd) : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), fd_(fd) {}
  ~InfoLogFile() override { ::close(fd_); }

  // As RocksDB's: "2026/01/02-03:04:05.678901 1234 message".
  void Logv(const char* format, va_list ap) override {
    struct timeval now;
    ::gettimeofday(&now, nullptr);
    struct tm t;
    ::localtime_r(&now.tv_sec, &t);
    char prefix[64];
    int n = std::snprintf(prefix, sizeof(prefix), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %ld ",
                          t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                          static_cast<long>(now.tv_usec), ::syscall(SYS_gettid));
    std::string line(prefix, n > 0 ? static_cast<size_t>(n) : 0);
    va_list copy;
    va_copy(copy, ap);
    char body[512];
    int len = std::vsnprintf(body, sizeof(body), format, copy);
    va_end(copy);
    if (len < 0) return;
    if (static_cast<size_t>(len) < sizeof(body)) {
      line.append(body, static_cast<size_t>(len));
    } else {
      const size_t start = line.size();
      line.resize(start + static_cast<size_t>(len) + 1);
      std::vsnprintf(line.data() + start, static_cast<size_t>(len) + 1, format, ap);
      line.resize(start + static_cast<size_t>(len));
    }
    if (line.back() != '\n') line.push_back('\n');
    // One write per line (O_APPEND keeps concurrent lines whole); a failure loses the line.
    [[maybe_unused]] ssize_t written = ::write(fd_, line.data(), line.size());
  }

 private:
  int fd_;
};

// RocksDB's background error, as the store follows it: set through the listener below (on
// RocksDB's threads, or on the writer whose write-ahead-log append failed), cleared when
// DB::Resume() succeeds. Shared by the listener and the store, which both may outlive the
// other's use of it.
struct BackgroundErrors {
  Logger log;
  std::mutex mu;
  std::condition_variable cv;  // the resumer waits on it
  bool pending = false;        // guarded by mu: a hard error that Resume may clear
  bool fatal = false;          // guarded by mu: ... one that Resume cannot clear
  bool closing = false;        // guarded by mu: the resumer stops
  std::atomic<bool> read_only{false};
  std::atomic<bool> disk_full{false};
  std::atomic<uint64_t> stops{0};
  std::atomic<uint64_t> resumes{0};

  // The write-ahead log's guard (WalGuardFileSystem below).
  std::mutex wal_mu;
  std::condition_variable wal_cv;
  int syncs_past_check = 0;               // guarded by wal_mu
  std::atomic<bool> wal_no_space{false};  // a WAL write failed for want of space

  // A background error RocksDB took. Soft ones (a compaction without room) leave writes on
  // and are RocksDB's to recover from; hard ones stop writes until the resumer clears them.
  void Set(const rocksdb::Status& error) {
    if (error.severity() < rocksdb::Status::Severity::kHardError) return;
    const bool no_space = error.IsNoSpace();
    std::lock_guard lock(mu);
    pending = true;
    fatal = fatal || error.severity() >= rocksdb::Status::Severity::kFatalError;
    cv.notify_all();
    if (read_only.load()) return;  // logged when writes stopped
    disk_full.store(no_space);
    read_only.store(true);
    stops.fetch_add(1);
    log(LogSeverity::kError,
        std::string("storage: ") +
            (no_space ? "the disk is full: writes are refused until space is freed (reads go on)"
                      : "writes are refused after a background error (reads go on)") +
            (fatal ? "; a restart is needed: " : "; retrying: ") + error.ToString());
  }

  // REQUIRES: mu held.
  void Cleared() {
    pending = false;
    wal_no_space.store(false);
    if (!read_only.load()) return;
    const bool was_full = disk_full.load();
    read_only.store(false);
    disk_full.store(false);
    resumes.fetch_add(1);
    log(LogSeverity::kInfo, was_full ? "storage: space is back: writes resumed"
                                     : "storage: writes resumed after the background error");
  }
};

// Storage::Sync runs DB::SyncWAL outside RocksDB's write queue, so a write-ahead-log append
// may fail (a full disk) while it runs. RocksDB's file writer refuses to sync a file whose
// write failed, and Debian's librocksdb (built with assertions) aborts the process there,
// unless the sync itself failed. So each WAL file is wrapped: a failed write marks the file,
// which then reports itself unsafe to sync from another thread (SyncWAL returns NotSupported
// instead of syncing it), and the failing write returns only once no SyncWAL call is past
// that check. (SyncWAL checks every log under RocksDB's mutex and then syncs without waiting
// for anything, so the wait is short; it is bounded all the same.)
thread_local bool t_in_sync_wal = false;  // this thread is in Storage::Sync's DB::SyncWAL
thread_local bool t_past_check = false;   // ... and found the WAL files safe to sync

class GuardedWalFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  GuardedWalFile(std::unique_ptr<rocksdb::FSWritableFile> file,
                 std::shared_ptr<BackgroundErrors> errors)
      : FSWritableFileOwnerWrapper(std::move(file)), errors_(std::move(errors)) {}

  bool IsSyncThreadSafe() const override {
    if (failed_.load() || !target()->IsSyncThreadSafe()) return false;
    if (t_in_sync_wal && !t_past_check) {
      std::lock_guard lock(errors_->wal_mu);
      if (failed_.load()) return false;  // (checked again under the lock Failed takes)
      ++errors_->syncs_past_check;
      t_past_check = true;
    }
    return true;
  }
  using FSWritableFileOwnerWrapper::Append;
  using FSWritableFileOwnerWrapper::PositionedAppend;
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Append(data, options, dbg), /*wait=*/true);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Append(data, options, info, dbg), /*wait=*/true);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    return Checked(target()->PositionedAppend(data, offset, options, dbg), /*wait=*/true);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    return Checked(target()->PositionedAppend(data, offset, options, info, dbg), /*wait=*/true);
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Flush(options, dbg), /*wait=*/true);
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Truncate(size, options, dbg), /*wait=*/true);
  }
  // A failed sync may be this thread's own SyncWAL: no waiting (RocksDB allows that case).
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Sync(options, dbg), /*wait=*/false);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Checked(target()->Fsync(options, dbg), /*wait=*/false);
  }

 private:
  rocksdb::IOStatus Checked(rocksdb::IOStatus s, bool wait) {
    if (s.ok()) return s;
    if (s.IsNoSpace()) errors_->wal_no_space.store(true);
    std::unique_lock lock(errors_->wal_mu);
    failed_.store(true);
    if (wait) {
      errors_->wal_cv.wait_for(lock, std::chrono::seconds(5),
                               [&] { return errors_->syncs_past_check == 0; });
    }
    return s;
  }

  std::shared_ptr<BackgroundErrors> errors_;
  std::atomic<bool> failed_{false};
};

// The on-disk store's file system: the default one, with the write-ahead log's files
// (NNNNNN.log) wrapped in GuardedWalFile.
class WalGuardFileSystem : public rocksdb::FileSystemWrapper {
 public:
  WalGuardFileSystem(const std::shared_ptr<rocksdb::FileSystem>& fs,
                     std::shared_ptr<BackgroundErrors> errors)
      : FileSystemWrapper(fs), errors_(std::move(errors)) {}
  const char* Name() const override { return "WalGuardFileSystem"; }
  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    return Wrap(name, FileSystemWrapper::NewWritableFile(name, options, result, dbg), result);
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    return Wrap(name, FileSystemWrapper::ReopenWritableFile(name, options, result, dbg), result);
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    return Wrap(name, FileSystemWrapper::ReuseWritableFile(name, old_name, options, result, dbg),
                result);
  }

 private:
  rocksdb::IOStatus Wrap(const std::string& name, rocksdb::IOStatus s,
                         std::unique_ptr<rocksdb::FSWritableFile>* result) {
    const bool wal = name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
    if (s.ok() && wal) *result = std::make_unique<GuardedWalFile>(std::move(*result), errors_);
    return s;
  }
  std::shared_ptr<BackgroundErrors> errors_;
};

class BackgroundErrorListener : public rocksdb::EventListener {
 public:
  explicit BackgroundErrorListener(std::shared_ptr<BackgroundErrors> errors)
      : errors_(std::move(errors)) {}
  const char* Name() const override { return "ddb.BackgroundErrorListener"; }
  void OnBackgroundError(rocksdb::BackgroundErrorReason, rocksdb::Status* error) override {
    errors_->Set(*error);
  }
  // RocksDB's own recovery from a full disk polls for free space every 5 s (SstFileManager);
  // the store's resumer tries sooner, and a manual DB::Resume() is refused (Busy) while
  // RocksDB's is under way. Other errors keep RocksDB's own recovery, if any.
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status error,
                            bool* auto_recovery) override {
    if (error.IsNoSpace() && error.severity() >= rocksdb::Status::Severity::kHardError) {
      *auto_recovery = false;
    }
    error.PermitUncheckedError();
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    if (!info.new_bg_error.ok()) return;
    std::lock_guard lock(errors_->mu);
    errors_->Cleared();
  }

 private:
  std::shared_ptr<BackgroundErrors> errors_;
};

constexpr std::chrono::milliseconds kFirstResumeWait{100};
constexpr std::chrono::milliseconds kMaxResumeWait{1000};

// The resumer: while writes are stopped, DB::Resume() at growing intervals. A failed attempt
// costs a flush that stops at the first write without space.
void ResumeWhileStopped(rocksdb::DB* db, BackgroundErrors* errors) {
  std::unique_lock lock(errors->mu);
  std::chrono::milliseconds wait = kFirstResumeWait;
  while (!errors->closing) {
    if (!errors->pending || errors->fatal) {
      wait = kFirstResumeWait;
      errors->cv.wait(lock);
      continue;
    }
    if (errors->cv.wait_for(lock, wait, [&] { return errors->closing; })) break;
    wait = std::min(wait * 2, kMaxResumeWait);
    lock.unlock();
    const rocksdb::Status s = db->Resume();
    lock.lock();
    if (s.ok()) {
      errors->Cleared();
    } else if (s.severity() >= rocksdb::Status::Severity::kFatalError && !errors->fatal) {
      errors->fatal = true;
      errors->log(LogSeverity::kError,
                  "storage: writes cannot resume without a restart: " + s.ToString());
    }
  }
}

}  // namespace

struct Storage::Batch::Rep {
  rocksdb::WriteBatch batch;
  const std::vector<rocksdb::ColumnFamilyHandle*>* cfs;
  // AddToStats deltas not yet in `batch`, one per key: a batch of many writes to one table
  // (BatchWriteItem, a transaction, an import chunk) merges once into its stats key instead
  // of once per item. Every merge into a key costs a walk of the merges already stacked on
  // it in the memtable (max_successive_merges), so per-item merges cost the write path more
  // than the items' own inserts. Emitted before any other write to the meta family, so that
  // the batch's writes to a key keep their order.
  struct PendingStats {
    std::string key;
    int64_t items = 0, bytes = 0;
  };
  std::vector<PendingStats> pending_stats;
  // In-memory stores: the pairs live in MemoryStats, and the batch's operations on them wait
  // here, in order, for Storage::Write.
  MemoryStats* memory_stats = nullptr;
  std::vector<MemoryStats::Op> stats_ops;
  rocksdb::ColumnFamilyHandle* Handle(Cf cf) const { return (*cfs)[static_cast<size_t>(cf)]; }
  // Before a write to `cf`: the meta family's pending stats go into the batch first.
  rocksdb::ColumnFamilyHandle* Before(Cf cf) {
    if (cf == Cf::kMeta) EmitStats();
    return Handle(cf);
  }
  void EmitStats() {
    for (const PendingStats& p : pending_stats) {
      // Deltas that leave the count and size as they were (a batch's overwrites by items of
      // the same size, changes that cancel) merge nothing: a merge costs about what an item's
      // own insert does.
      if (p.items == 0 && p.bytes == 0) continue;
      if (memory_stats) {
        stats_ops.push_back({MemoryStats::Op::Kind::kAdd, p.key, p.items, p.bytes});
        continue;
      }
      batch.Merge(Handle(Cf::kMeta), rocksdb::Slice(p.key), EncodePair(p.items, p.bytes))
          .PermitUncheckedError();
    }
    pending_stats.clear();
  }
};

struct Storage::Rep {
  std::unique_ptr<rocksdb::Env> mem_env;  // outlives env and db
  std::unique_ptr<rocksdb::Env> env;      // mem_env without OPTIONS files, or WalGuardFileSystem
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;
  rocksdb::WriteOptions write_options;           // WriteSync::kAsOpened
  rocksdb::WriteOptions deferred_write_options;  // WriteSync::kDeferred: never synced
  bool in_memory = false;
  std::unique_ptr<MemoryStats> memory_stats;  // in memory: the stats pairs (memory_stats.h)
  int opens = 1;                              // Storage::Open calls this store has served
  // Range deletions written to each family since its memtable was last asked to flush
  // (DeleteRange): every new iterator fragments all of a memtable's range tombstones.
  std::atomic<int> range_deletes[std::size(kCfNames)] = {};
  Logger log;  // set by every Open, a reused store's included

  // Sync(): callers that arrive while a WAL sync runs share the next one.
  std::mutex sync_mu;
  std::condition_variable sync_cv;
  uint64_t syncs_requested = 0;  // guarded by sync_mu: tickets handed out
  uint64_t syncs_done = 0;       // guarded by sync_mu: every ticket up to it is durable
  bool syncing = false;          // guarded by sync_mu

  // On disk: RocksDB's background errors and the thread that resumes writes after one.
  std::shared_ptr<BackgroundErrors> errors;
  std::thread resumer;

  // The Error of a failed write. While writes are stopped, the transition was logged once
  // and each refused write is not.
  Error WriteError(const rocksdb::Status& s, const char* what) const {
    const bool stopped = errors && (errors->read_only.load() || errors->wal_no_space.load());
    if (!stopped)
      log(LogSeverity::kError, std::string("storage: ") + what + " failed: " + s.ToString());
    if (s.IsNoSpace() ||
        (errors && (errors->disk_full.load() || errors->wal_no_space.load()) && stopped)) {
      return Error::Internal(kDiskFullMessage);
    }
    return Error::Internal("Internal server error");
  }

  // DB::SyncWAL, known to the WAL files' guard (GuardedWalFile) while it runs.
  rocksdb::Status SyncWal() {
    if (!errors) return db->SyncWAL();
    t_in_sync_wal = true;
    t_past_check = false;
    rocksdb::Status s = db->SyncWAL();
    t_in_sync_wal = false;
    if (t_past_check) {
      std::lock_guard lock(errors->wal_mu);
      --errors->syncs_past_check;
      errors->wal_cv.notify_all();
      t_past_check = false;
    }
    return s;
  }

  ~Rep() {
    if (resumer.joinable()) {
      {
        std::lock_guard lock(errors->mu);
        errors->closing = true;
        errors->cv.notify_all();
      }
      resumer.join();
    }
    if (db) {
      // A clean close flushes the memtables, so that the next open has no WAL to replay: the
      // first answer after a restart then costs the open alone, not up to the WAL cap's worth
      // of replay (1.27 s with a GSI at 10^6 items, bench/scale.sh). On a store whose writes
      // are stopped (a full disk) the flush fails at once and the WAL keeps everything.
      if (!in_memory) {
        rocksdb::FlushOptions flush;
        flush.wait = true;
        flush.allow_write_stall = true;
        db->Flush(flush, cfs).PermitUncheckedError();
      }
      for (auto* cf : cfs) db->DestroyColumnFamilyHandle(cf);
      db->Close().PermitUncheckedError();
      db.reset();
    }
  }
};

Storage::Batch::Batch(Storage& storage) : rep_(std::make_unique<Rep>()) {
  rep_->cfs = &storage.rep_->cfs;
  rep_->memory_stats = storage.rep_->memory_stats.get();
}
Storage::Batch::~Batch() = default;

void Storage::Batch::Put(Cf cf, std::string_view key, std::string_view value) {
  rep_->batch
      .Put(rep_->Before(cf), rocksdb::Slice(key.data(), key.size()),
           rocksdb::Slice(value.data(), value.size()))
      .PermitUncheckedError();
}

void Storage::Batch::Delete(Cf cf, std::string_view key) {
  rep_->batch.Delete(rep_->Before(cf), rocksdb::Slice(key.data(), key.size()))
      .PermitUncheckedError();
}

void Storage::Batch::DeleteRange(Cf cf, std::string_view begin, std::string_view end) {
  rep_->batch
      .DeleteRange(rep_->Before(cf), rocksdb::Slice(begin.data(), begin.size()),
                   rocksdb::Slice(end.data(), end.size()))
      .PermitUncheckedError();
}

void Storage::Batch::AddToCounter(std::string_view key, int64_t delta) {
  rep_->batch
      .Merge(rep_->Before(Cf::kMeta), rocksdb::Slice(key.data(), key.size()), EncodeInt64(delta))
      .PermitUncheckedError();
}

void Storage::Batch::SetCounter(std::string_view key, int64_t value) {
  rep_->batch
      .Put(rep_->Before(Cf::kMeta), rocksdb::Slice(key.data(), key.size()), EncodeInt64(value))
      .PermitUncheckedError();
}

void Storage::Batch::AddToStats(std::string_view key, int64_t items, int64_t bytes) {
  // Linear: a batch touches a table and its indexes, a handful of keys.
  for (Rep::PendingStats& p : rep_->pending_stats) {
    if (p.key == key) {
      p.items += items;
      p.bytes += bytes;
      return;
    }
  }
  rep_->pending_stats.push_back({std::string(key), items, bytes});
}

void Storage::Batch::SetStats(std::string_view key, int64_t items, int64_t bytes) {
  rocksdb::ColumnFamilyHandle* meta = rep_->Before(Cf::kMeta);
  if (rep_->memory_stats) {
    rep_->stats_ops.push_back({MemoryStats::Op::Kind::kSet, std::string(key), items, bytes});
    return;
  }
  rep_->batch.Put(meta, rocksdb::Slice(key.data(), key.size()), EncodePair(items, bytes))
      .PermitUncheckedError();
}

void Storage::Batch::DeleteStats(std::string_view key) {
  rocksdb::ColumnFamilyHandle* meta = rep_->Before(Cf::kMeta);
  if (rep_->memory_stats) {
    rep_->stats_ops.push_back({MemoryStats::Op::Kind::kDelete, std::string(key), 0, 0});
    return;
  }
  rep_->batch.Delete(meta, rocksdb::Slice(key.data(), key.size())).PermitUncheckedError();
}

// Opening an in-memory store costs about a millisecond of RocksDB's own work (its
// manifest, six column families), more than most unit tests that open one. A closed
// in-memory store that held little is wiped (one range deletion per column family) and
// kept for the next in-memory Open instead, which then costs microseconds. A store serves at
// most kMaxOpens opens, so the range deletions every read of its memtables must look at stay
// few; one that grew past kMaxReusedBytes (or flushed to files) is closed instead.
struct Storage::IdleStores {
  static constexpr size_t kMaxIdle = 2;
  static constexpr int kMaxOpens = 16;
  static constexpr uint64_t kMaxReusedBytes = 4 << 20;
  std::mutex mu;
  std::vector<std::unique_ptr<Rep>> stores;  // guarded by mu
};

Storage::IdleStores& Storage::Idle() {
  // Never destroyed: closing the stores at exit would race RocksDB's own static teardown.
  static IdleStores* idle = new IdleStores;
  return *idle;
}

namespace {

// Deletes everything in an in-memory store, if it is small enough to be worth keeping.
bool WipeForReuse(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
                  uint64_t max_bytes) {
  uint64_t memtables = 0, files = 0;
  if (!db.GetAggregatedIntProperty("rocksdb.cur-size-all-mem-tables", &memtables) ||
      !db.GetAggregatedIntProperty("rocksdb.total-sst-files-size", &files) ||
      memtables > max_bytes || files > 0) {
    return false;
  }
  rocksdb::WriteBatch batch;
  for (size_t i = 0; i < cfs.size(); ++i) {
    rocksdb::ColumnFamilyHandle* cf = cfs[i];
    const bool changes = i == static_cast<size_t>(Cf::kChanges);
    rocksdb::ReadOptions read_options;
    read_options.ignore_range_deletions = changes;
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(read_options, cf));
    it->SeekToFirst();
    if (!it->Valid()) continue;
    if (changes) {
      // The change log is read ignoring range deletions (ForEach), so each record, trimmed
      // by one or not, gets a point deletion.
      for (; it->Valid(); it->Next()) {
        if (!batch.Delete(cf, it->key()).ok()) return false;
      }
      if (!it->status().ok()) return false;
      continue;
    }
    std::string first = it->key().ToString();
    it->SeekToLast();
    if (!it->Valid()) return false;
    if (!batch.DeleteRange(cf, first, it->key()).ok() || !batch.Delete(cf, it->key()).ok()) {
      return false;
    }
  }
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  return db.Write(options, &batch).ok();
}

}  // namespace

Storage::Storage(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

void Storage::Log(LogSeverity severity, std::string_view message) const {
  rep_->log(severity, message);
}

namespace {
std::shared_ptr<rocksdb::Cache> SharedBlockCache(size_t bytes);
std::shared_ptr<rocksdb::WriteBufferManager> SharedWriteBufferManager(size_t cache_bytes);
}  // namespace

StorageHealth Storage::GetHealth() const {
  StorageHealth h;
  // Process-wide figures: the cache and the memtables' budget are shared by every store.
  const std::shared_ptr<rocksdb::Cache> cache = SharedBlockCache(0);
  h.cache_capacity_bytes = cache->GetCapacity();
  h.cache_usage_bytes = cache->GetUsage();
  h.memtable_bytes = SharedWriteBufferManager(0)->memory_usage();
  uint64_t v = 0;
  if (rep_->db->GetAggregatedIntProperty("rocksdb.estimate-pending-compaction-bytes", &v)) {
    h.pending_compaction_bytes = v;
  }
  if (rep_->db->GetIntProperty("rocksdb.num-running-compactions", &v)) h.running_compactions = v;
  if (const BackgroundErrors* e = rep_->errors.get()) {
    h.read_only = e->read_only.load();
    h.disk_full = e->disk_full.load();
    h.write_stops = e->stops.load();
    h.write_resumes = e->resumes.load();
  }
  return h;
}

Storage::~Storage() {
  if (!rep_->in_memory || rep_->opens >= IdleStores::kMaxOpens ||
      !WipeForReuse(*rep_->db, rep_->cfs, IdleStores::kMaxReusedBytes)) {
    return;
  }
  rep_->memory_stats->Clear();
  IdleStores& idle = Idle();
  std::lock_guard lock(idle.mu);
  if (idle.stores.size() < IdleStores::kMaxIdle) idle.stores.push_back(std::move(rep_));
}

namespace {

// Storage::Open's steps.

// The store's options before its environment is chosen.
rocksdb::DBOptions BoundedDbOptions() {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  // Bounds that hold over hours of churn: the memtables of every store together stay under
  // the shared write buffer manager's budget (SharedWriteBufferManager; the largest is
  // flushed first), and WAL files are recycled once they pass 64 MB in all, by flushing the
  // families that pin the oldest one. RocksDB's defaults (no memtable cap; WAL up to four
  // times the sum of all write buffers) let a busy server's WAL reach ~3 GB and an in-memory
  // server's memtables most of a gigabyte. The WAL is what an open after a crash replays (a
  // clean close flushes first: ~Rep), so its cap bounds the time to the first answer:
  // 100 MB of it took 0.75 s, 250 MB after a write burst 2.3 s (bench/scale.sh).
  db_options.max_total_wal_size = 64 << 20;
  // Recovery loads each column family's table files with this many threads, and starts them
  // even for a family without files: RocksDB's 16 made every open create and join 105
  // threads (seven families then), half of the stateful fuzz campaign's time. Two match the
  // machines ddb is sized for, and still overlap the reads of a store with many files.
  db_options.max_file_opening_threads = 2;
  // No periodic statistics dumps into the info log, nor a statistics history kept in memory
  // (ddb's /metrics reports the store's health). Their tasks sit on a timer that RocksDB
  // shares across stores, and a store's close scans every task that timer still holds, the
  // cancelled ones included until their 10-minute period passes: a process that opens and
  // closes stores often (the stateful fuzz campaign, tests) spent a fifth of its time there.
  db_options.stats_dump_period_sec = 0;
  db_options.stats_persist_period_sec = 0;
  // The memtables are ddb's skip list (memtable_skip_list.h), which takes one inserting
  // thread at a time: the write group's leader inserts every member's entries.
  db_options.allow_concurrent_memtable_write = false;
  return db_options;
}

// One block cache for every column family of every store the process opens (a server has
// a store per namespace), so that memory is bounded by one figure: its capacity is the
// largest any store asked for.
std::shared_ptr<rocksdb::Cache> SharedBlockCache(size_t bytes) {
  static std::mutex mu;
  static std::shared_ptr<rocksdb::Cache> cache;
  std::lock_guard lock(mu);
  if (!cache) {
    cache = rocksdb::NewLRUCache(bytes);
  } else if (cache->GetCapacity() < bytes) {
    cache->SetCapacity(bytes);
  }
  return cache;
}

// The memtables of every store the process opens share one budget, half the block cache
// (at least kMinMemtableBudget, so that a small cache does not flush at every few writes),
// and are charged to that cache: what they take, cached blocks give up, so the cache's
// capacity bounds both (docs/architecture/storage.md, "Memory"). Grown, as the cache, to
// the largest any store asked for.
constexpr size_t kMinMemtableBudget = size_t{32} << 20;

std::shared_ptr<rocksdb::WriteBufferManager> SharedWriteBufferManager(size_t cache_bytes) {
  static std::mutex mu;
  static std::shared_ptr<rocksdb::WriteBufferManager> manager;
  const size_t budget = std::max(cache_bytes / 2, kMinMemtableBudget);
  std::lock_guard lock(mu);
  if (!manager) {
    manager = std::make_shared<rocksdb::WriteBufferManager>(budget, SharedBlockCache(cache_bytes));
  } else if (manager->buffer_size() < budget) {
    manager->SetBufferSize(budget);
  }
  return manager;
}

// Item and index entry keys start with a 4-byte table or index id and the partition key's
// 8-byte token (key_codec.h, index_key.h): one partition key's items share those 12 bytes,
// so a Query's range, which stays within them, can skip SST files by a prefix filter.
constexpr size_t kPartitionPrefixBytes = 12;

// RocksDB's bytewise order (every store so far was written in it) with a cheaper compare:
// a point read or write compares ~60-200 keys in a memtable's skip list, and the built-in
// comparator's memcmp made a third of each comparison's cost (callgrind). The order is the
// same, so the name stays the built-in's: RocksDB checks only the name when it opens a store
// or ingests a file, and stores written before or after this open either way (the memtables'
// skip list, memtable_skip_list.h, relies on the byte order too). Separators
// and successors (index blocks) are the built-in's own.
class BytewiseKeyOrder final : public rocksdb::Comparator {
 public:
  const char* Name() const override { return rocksdb::BytewiseComparator()->Name(); }
  int Compare(const rocksdb::Slice& a, const rocksdb::Slice& b) const override {
    return CompareBytes(std::string_view(a.data(), a.size()), std::string_view(b.data(), b.size()));
  }
  bool Equal(const rocksdb::Slice& a, const rocksdb::Slice& b) const override { return a == b; }
  void FindShortestSeparator(std::string* start, const rocksdb::Slice& limit) const override {
    rocksdb::BytewiseComparator()->FindShortestSeparator(start, limit);
  }
  void FindShortSuccessor(std::string* key) const override {
    rocksdb::BytewiseComparator()->FindShortSuccessor(key);
  }
  bool IsSameLengthImmediateSuccessor(const rocksdb::Slice& s,
                                      const rocksdb::Slice& t) const override {
    return rocksdb::BytewiseComparator()->IsSameLengthImmediateSuccessor(s, t);
  }
  bool CanKeysWithDifferentByteContentsBeEqual() const override { return false; }
};

const rocksdb::Comparator* KeyOrder() {
  static const BytewiseKeyOrder order;
  return &order;
}

// The column families (kCfNames), all with bloom filters on point reads; items and indexes
// with prefix filters on the partition (a Query's seek; readers use auto_prefix_mode, so a
// range that crosses partitions reads in total order); meta with the counters' merge
// operator. Data, index and filter blocks all go through the shared block cache, the top
// level's index and filter blocks pinned there.
std::vector<rocksdb::ColumnFamilyDescriptor> ColumnFamilyDescriptors(bool in_memory,
                                                                     size_t cache_bytes) {
  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.comparator = KeyOrder();
  cf_options.memtable_factory = NewMemtableSkipListFactory();
  // Compression by measurement (bench/scale.sh, 2M items over a 64 MiB cache, one run each):
  // LZ4 loaded fastest (113k items/s; Snappy, RocksDB's default, 104k; ZSTD 96k; none 107k)
  // into 86 MB of files (Snappy 101, ZSTD 79, none 540), reads within the runs' noise; none
  // read worst (GetItem big/small 0.84, UpdateItem 0.55). Snappy where LZ4 is not built in.
  const std::vector<rocksdb::CompressionType> built_in = rocksdb::GetSupportedCompressions();
  if (std::find(built_in.begin(), built_in.end(), rocksdb::kLZ4Compression) != built_in.end()) {
    cf_options.compression = rocksdb::kLZ4Compression;
  }
  rocksdb::BlockBasedTableOptions table_options;
  table_options.whole_key_filtering = true;
  // Point reads (GetItem, the old item of every write) skip SST files without the key.
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.block_cache = SharedBlockCache(cache_bytes);
  table_options.cache_index_and_filter_blocks = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  // Index and filter in 4 KB partitions, cached one by one, under a top level that stays
  // pinned. A whole SST file's filter is megabytes once files hold a million keys, more than
  // one of the cache's shards keeps: at 6M items every write's read of its old item loaded
  // and checksummed such a filter from the file again (76% of the server's CPU, loading at
  // 9k items/s instead of 33k; bench/scale.sh).
  table_options.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table_options.partition_filters = true;
  table_options.pin_top_level_index_and_filter = true;
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  // Memtables allocate in blocks of write_buffer_size / 8 (8 MB) by default, one at least per
  // column family from the start; each is mapped and unmapped with its memtable, a TLB
  // shootdown on every core each time. 1 MB blocks make opening and closing a store cheap.
  if (in_memory) cf_options.arena_block_size = 1 << 20;
  rocksdb::ColumnFamilyOptions meta_options = cf_options;
  meta_options.merge_operator = std::make_shared<Int64AddOperator>();
  // Every write merges into its table's stats key; folding the operands as they pile up
  // keeps a later read of that key (DescribeTable, /metrics) from walking thousands. Each
  // merge first counts the operands stacked on the key (a walk of up to this many memtable
  // entries), and every this-many-th one folds them (a read of the key): 8 keeps both
  // small, where 64 made the count 6 % of PutItem's instructions (callgrind).
  meta_options.max_successive_merges = 8;
  rocksdb::ColumnFamilyOptions keyed_options = cf_options;
  keyed_options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kPartitionPrefixBytes));
  // A bloom filter over each memtable's keys: every write reads its old item first, and for a
  // new item that read walked the whole skip list (a sixth of PutItem's instructions in
  // memory, callgrind) to find nothing. 2.7M bits (335 KB, allocated and zeroed with each
  // memtable, in its budget): 10 bits per key for the ~250k items of 200 B a 64 MB memtable
  // holds. Range reads do not use it (auto_prefix_mode: RocksDB's memtables filter only
  // plain prefix seeks).
  keyed_options.memtable_whole_key_filtering = true;
  keyed_options.memtable_prefix_bloom_size_ratio = 0.005;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (size_t i = 0; i < kCfCount; ++i) {
    const Cf cf = static_cast<Cf>(i);
    descriptors.emplace_back(kCfNames[i], cf == Cf::kMeta                          ? meta_options
                                          : cf == Cf::kItems || cf == Cf::kIndexes ? keyed_options
                                                                                   : cf_options);
  }
  return descriptors;
}

// Whether path is on a tmpfs or ramfs, where fallocate allocates and zeroes memory at once:
// RocksDB preallocates each WAL file by 1.1 times the write buffer (about 70 MB), so every
// store opened there cost that much memory and zeroing up front, and its close a truncate.
bool OnMemoryFileSystem(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return false;
  constexpr decltype(fs.f_type) kTmpfsMagic = 0x01021994, kRamfsMagic = 0x858458f6;
  return fs.f_type == kTmpfsMagic || fs.f_type == kRamfsMagic;
}

// SortedWriter files a crash left before they were ingested (RocksDB ignores them).
void RemoveUningestedFiles(const std::string& path) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("bulk-", 0) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".sst") == 0) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

// Every column family compacted down to its bottommost level (compact_on_open).
rocksdb::Status CompactAll(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) {
  for (rocksdb::ColumnFamilyHandle* cf : cfs) {
    rocksdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    rocksdb::Status s = db.CompactRange(compact, cf, nullptr, nullptr);
    if (!s.ok()) return s;
  }
  return rocksdb::Status::OK();
}

// Opens the store with every column family. RocksDB writes and then parses back an OPTIONS
// file of every family at each family it creates, so a new store's seven families made seven
// such files of one to eight families each, most of a new store's open (a third of the
// stateful fuzz campaign's time): a new store is opened with its default family alone and
// the others are created in one call, which writes one file. A store a crash left with only
// some of its families gets the rest from DB::Open (create_missing_column_families).
rocksdb::Status OpenDb(const rocksdb::DBOptions& db_options, const std::string& path,
                       const std::vector<rocksdb::ColumnFamilyDescriptor>& descriptors,
                       std::vector<rocksdb::ColumnFamilyHandle*>* cfs, rocksdb::DB** db) {
  if (!db_options.env->FileExists(path + "/CURRENT").IsNotFound()) {
    return rocksdb::DB::Open(db_options, path, descriptors, cfs, db);
  }
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, {descriptors[0]}, cfs, db);
  if (!s.ok()) return s;
  std::vector<rocksdb::ColumnFamilyHandle*> created;
  s = (*db)->CreateColumnFamilies({descriptors.begin() + 1, descriptors.end()}, &created);
  cfs->insert(cfs->end(), created.begin(), created.end());
  if (!s.ok()) {
    for (rocksdb::ColumnFamilyHandle* cf : *cfs) (*db)->DestroyColumnFamilyHandle(cf);
    cfs->clear();
    delete *db;
    *db = nullptr;
  }
  return s;
}

}  // namespace

Result<std::unique_ptr<Storage>> Storage::Open(const StorageOptions& options) {
  if (options.in_memory) {
    IdleStores& idle = Idle();
    std::lock_guard lock(idle.mu);
    if (!idle.stores.empty()) {
      std::unique_ptr<Rep> rep = std::move(idle.stores.back());
      idle.stores.pop_back();
      ++rep->opens;
      rep->log = options.logger ? options.logger : StderrLogger();
      return std::unique_ptr<Storage>(new Storage(std::move(rep)));
    }
  }
  auto rep = std::make_unique<Rep>();
  rep->in_memory = options.in_memory;
  if (options.in_memory) rep->memory_stats = std::make_unique<MemoryStats>();
  rep->log = options.logger ? options.logger : StderrLogger();
  rocksdb::DBOptions db_options = BoundedDbOptions();
  db_options.write_buffer_manager = SharedWriteBufferManager(options.block_cache_bytes);
  std::string path = options.path;
  if (options.in_memory) {
    rep->mem_env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    rep->env = rocksdb::NewCompositeEnv(
        std::make_shared<NoOptionsFileSystem>(rep->mem_env->GetFileSystem()));
    db_options.env = rep->env.get();
    // The info log lives in memory too, and would grow with every flush and compaction.
    db_options.info_log_level = rocksdb::WARN_LEVEL;
    path = "/ddb-in-memory";
    rep->write_options.disableWAL = true;  // nothing survives the process anyway
  } else {
    // Synced writes of concurrent writers form one group with one fsync (RocksDB's group
    // commit: the leader writes and syncs the WAL for every writer queued behind it).
    rep->write_options.sync = options.sync_writes;
    // After a crash, keep what the WAL replay rebuilt in memtables (and the WAL files, until
    // those are flushed in the normal course) instead of flushing it all before Open
    // returns: with 1M items that flush was most of the 4 s to the first answer.
    db_options.avoid_flush_during_recovery = true;
    rep->errors = std::make_shared<BackgroundErrors>();
    rep->errors->log = rep->log;
    rep->env = rocksdb::NewCompositeEnv(
        std::make_shared<WalGuardFileSystem>(rocksdb::FileSystem::Default(), rep->errors));
    db_options.env = rep->env.get();
    db_options.listeners.push_back(std::make_shared<BackgroundErrorListener>(rep->errors));
    DDB_RETURN_IF_ERROR(CreateDirectoriesDurably(rep->log, path));
    if (OnMemoryFileSystem(path)) db_options.allow_fallocate = false;
    db_options.info_log = InfoLogFile::Open(path);
  }
  rep->deferred_write_options = rep->write_options;
  rep->deferred_write_options.sync = false;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = OpenDb(db_options, path,
                             ColumnFamilyDescriptors(options.in_memory, options.block_cache_bytes),
                             &rep->cfs, &raw);
  if (!s.ok()) return ToError(rep->log, s, "open");
  rep->db.reset(raw);
  if (rep->errors) rep->resumer = std::thread(ResumeWhileStopped, raw, rep->errors.get());
  if (!options.in_memory) RemoveUningestedFiles(path);
  if (options.compact_on_open) {
    s = CompactAll(*rep->db, rep->cfs);
    if (!s.ok()) return ToError(rep->log, s, "compact");
  }
  return std::unique_ptr<Storage>(new Storage(std::move(rep)));
}

Result<std::optional<std::string>> Storage::Get(Cf cf, std::string_view key) {
  std::string value;
  rocksdb::Status s = rep_->db->Get(rocksdb::ReadOptions(), rep_->cfs[static_cast<size_t>(cf)],
                                    rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return ToError(rep_->log, s, "get");
  return std::optional<std::string>(std::move(value));
}

Result<std::optional<std::string>> Storage::LastKey(Cf cf, std::string_view lower) {
  std::optional<std::string> last;
  DDB_RETURN_IF_ERROR(ForEach(
      cf, lower, "",
      [&](std::string_view key, std::string_view) {
        last = std::string(key);
        return false;
      },
      /*reverse=*/true));
  return last;
}

Result<std::pair<int64_t, int64_t>> Storage::GetStats(std::string_view key) {
  if (rep_->memory_stats) return rep_->memory_stats->Get(key);
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> v, Get(Cf::kMeta, key));
  if (!v) return std::pair<int64_t, int64_t>{0, 0};
  return DecodePair(rocksdb::Slice(*v));
}

Result<int64_t> Storage::GetCounter(std::string_view key) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> v, Get(Cf::kMeta, key));
  return v ? DecodeInt64(*v) : int64_t{0};
}

Status Storage::Write(Batch& batch, WriteSync sync) {
  rocksdb::WriteOptions unlogged;
  unlogged.disableWAL = true;
  const rocksdb::WriteOptions& options = sync == WriteSync::kUnlogged ? unlogged
                                         : sync == WriteSync::kDeferred
                                             ? rep_->deferred_write_options
                                             : rep_->write_options;
  batch.rep_->EmitStats();
  rocksdb::Status s;
  auto write = [&] {
    s = RocksDbWrite(*rep_->db, options, &batch.rep_->batch);
    return s.ok();
  };
  if (std::vector<MemoryStats::Op>& ops = batch.rep_->stats_ops; !ops.empty()) {
    rep_->memory_stats->Commit(ops, write);
    ops.clear();
  } else {
    write();
  }
  if (!s.ok()) return rep_->WriteError(s, "write");
  for (auto& f : batch.after_commit) f();
  batch.after_commit.clear();
  return Status::Ok();
}

Status Storage::FlushAll() {
  if (rep_->in_memory) return Status::Ok();
  rocksdb::FlushOptions options;
  options.wait = true;
  rocksdb::Status s = rep_->db->Flush(options, rep_->cfs);
  if (!s.ok()) return rep_->WriteError(s, "flush");
  return Status::Ok();
}

Status Storage::Sync() {
  if (!rep_->write_options.sync) return Status::Ok();
  // DB::SyncWAL outside the write queue, coalesced: a ticket taken after the caller's writes
  // returned (they are in the WAL file) is covered by any sync that starts after it, so the
  // callers that arrive while one runs share the next. A synced empty write would instead
  // make a sync group in the write queue, which every deferred write queued behind it then
  // waits for (16 BatchWriteItem writers reached only 11x one fsync per write that way).
  std::unique_lock<std::mutex> lock(rep_->sync_mu);
  const uint64_t ticket = ++rep_->syncs_requested;
  while (rep_->syncs_done < ticket) {
    if (rep_->syncing) {
      rep_->sync_cv.wait(lock);
      continue;
    }
    rep_->syncing = true;
    const uint64_t covers = rep_->syncs_requested;
    lock.unlock();
    const rocksdb::Status s = rep_->SyncWal();
    lock.lock();
    rep_->syncing = false;
    if (s.ok()) rep_->syncs_done = std::max(rep_->syncs_done, covers);
    rep_->sync_cv.notify_all();
    if (!s.ok()) return rep_->WriteError(s, "sync");
  }
  return Status::Ok();
}

Status Storage::DeleteRange(Cf cf, std::string_view begin, std::string_view end) {
  const size_t i = static_cast<size_t>(cf);
  rocksdb::Status s = rep_->db->DeleteRange(rep_->write_options, rep_->cfs[i],
                                            rocksdb::Slice(begin.data(), begin.size()),
                                            rocksdb::Slice(end.data(), end.size()));
  if (!s.ok()) return rep_->WriteError(s, "delete range");
  // A memtable's range tombstones are fragmented again by every iterator created over it
  // (RocksDB 7.8 caches that only for immutable memtables and SST files), so a client that
  // creates and deletes tables in a loop would make every later read slower. Past
  // kMaxMemtableRangeDeletes the family's memtable is flushed in the background, where its
  // tombstones are fragmented once per file. The changes family's readers ignore range
  // deletions, so its trims are not counted.
  if (cf != Cf::kChanges && rep_->range_deletes[i].fetch_add(1) + 1 >= kMaxMemtableRangeDeletes) {
    rep_->range_deletes[i] = 0;
    rocksdb::FlushOptions flush;
    flush.wait = false;
    flush.allow_write_stall = true;
    rocksdb::Status f = rep_->db->Flush(flush, rep_->cfs[i]);
    if (!f.ok())
      Log(LogSeverity::kWarning, "storage: flush after range deletions: " + f.ToString());
  }
  return Status::Ok();
}

namespace {

class RocksSnapshot : public Storage::Snapshot {
 public:
  RocksSnapshot(rocksdb::DB* db) : db_(db), snapshot_(db->GetSnapshot()) {}
  ~RocksSnapshot() override { db_->ReleaseSnapshot(snapshot_); }
  const rocksdb::Snapshot* get() const { return snapshot_; }

 private:
  rocksdb::DB* db_;
  const rocksdb::Snapshot* snapshot_;
};

}  // namespace

std::shared_ptr<const Storage::Snapshot> Storage::TakeSnapshot() {
  return std::make_shared<RocksSnapshot>(rep_->db.get());
}

// --- SortedWriter ---

namespace {
// An SST file is closed (and a new one begun) past this size.
constexpr uint64_t kSortedFileBytes = 64 << 20;
std::atomic<uint64_t> sorted_file_seq{0};
}  // namespace

struct Storage::SortedWriter::Rep {
  Storage::Rep* store = nullptr;
  rocksdb::ColumnFamilyHandle* cf = nullptr;
  rocksdb::Options options;
  std::unique_ptr<rocksdb::SstFileWriter> file;  // the file being written, if any
  std::string file_path;
  std::vector<std::string> done;  // finished files, not yet ingested

  rocksdb::Env* env() { return options.env; }
  Status CloseFile() {
    if (!file) return Status::Ok();
    rocksdb::Status s = file->Finish();
    file.reset();
    if (!s.ok()) return store->WriteError(s, "finish an SST file");
    done.push_back(file_path);
    return Status::Ok();
  }
  void DeleteFiles() {
    if (file) {
      file.reset();
      env()->DeleteFile(file_path).PermitUncheckedError();
    }
    for (const std::string& f : done) env()->DeleteFile(f).PermitUncheckedError();
    done.clear();
  }
};

Storage::SortedWriter::SortedWriter(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Storage::SortedWriter::~SortedWriter() { rep_->DeleteFiles(); }

Status Storage::SortedWriter::Add(std::string_view key, std::string_view value) {
  Rep& r = *rep_;
  if (r.file && r.file->FileSize() >= kSortedFileBytes) DDB_RETURN_IF_ERROR(r.CloseFile());
  if (!r.file) {
    r.file =
        std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(r.options), r.options, r.cf);
    r.file_path = r.store->db->GetName() + "/bulk-" + std::to_string(getpid()) + "-" +
                  std::to_string(++sorted_file_seq) + ".sst";
    rocksdb::Status s = r.file->Open(r.file_path);
    if (!s.ok()) {
      r.file.reset();
      return r.store->WriteError(s, "open an SST file");
    }
  }
  rocksdb::Status s = r.file->Put(rocksdb::Slice(key.data(), key.size()),
                                  rocksdb::Slice(value.data(), value.size()));
  if (!s.ok()) return r.store->WriteError(s, "write an SST file");
  return Status::Ok();
}

Status Storage::SortedWriter::Finish() {
  Rep& r = *rep_;
  DDB_RETURN_IF_ERROR(r.CloseFile());
  if (r.done.empty()) return Status::Ok();
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;  // hard links: no copy
  rocksdb::Status s = r.store->db->IngestExternalFile(r.cf, r.done, ingest);
  if (!s.ok()) {
    r.DeleteFiles();
    return r.store->WriteError(s, "ingest SST files");
  }
  // Moved files are linked into the store; the names written here go.
  for (const std::string& f : r.done) r.env()->DeleteFile(f).PermitUncheckedError();
  r.done.clear();
  return Status::Ok();
}

std::unique_ptr<Storage::SortedWriter> Storage::NewSortedWriter(Cf cf) {
  auto rep = std::make_unique<SortedWriter::Rep>();
  rep->store = rep_.get();
  rep->cf = rep_->cfs[static_cast<size_t>(cf)];
  rep->options = rocksdb::Options(rep_->db->GetDBOptions(), rep_->db->GetOptions(rep->cf));
  return std::unique_ptr<SortedWriter>(new SortedWriter(std::move(rep)));
}

Status Storage::ForEach(Cf cf, std::string_view begin, std::string_view end,
                        const std::function<bool(std::string_view, std::string_view)>& fn,
                        bool reverse, const Snapshot* at) {
  rocksdb::ReadOptions read_options;
  if (at) read_options.snapshot = static_cast<const RocksSnapshot*>(at)->get();
  rocksdb::Slice lower(begin.data(), begin.size());
  rocksdb::Slice upper(end.data(), end.size());
  read_options.iterate_lower_bound = &lower;
  if (!end.empty()) read_options.iterate_upper_bound = &upper;
  // Prefix filters where the range stays in one partition (items, indexes), total order
  // otherwise: RocksDB decides from the seek key and the upper bound.
  read_options.auto_prefix_mode = true;
  // The change log is trimmed with range deletions of applied records only, all below any
  // reader's lower bound (the applier's watermark): its readers need not look at them, and
  // so never pay for fragmenting them (index_maintenance.h).
  if (cf == Cf::kChanges) read_options.ignore_range_deletions = true;
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(read_options, rep_->cfs[static_cast<size_t>(cf)]));
  if (reverse) {
    it->SeekToLast();
  } else {
    it->Seek(lower);
  }
  for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
    if (!fn(std::string_view(it->key().data(), it->key().size()),
            std::string_view(it->value().data(), it->value().size()))) {
      break;
    }
  }
  if (!it->status().ok()) return ToError(rep_->log, it->status(), "iterate");
  return Status::Ok();
}

}  // namespace ddb
