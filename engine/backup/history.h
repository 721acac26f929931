// Item history: the old image of every change to a table that keeps history (point-in-time
// recovery enabled, or pinned by a backup or a restore in progress), written in the change's
// own WriteBatch, in the history column family:
//
//   record key   := table_id (fixed32 BE) | commit time ms (fixed64 BE) | seq (fixed64 BE)
//   record value := format (1 byte, kHistoryRecordFormat) | item key (varint len + bytes)
//                   | old image: 0 (the item did not exist), or 1 + the encoded item (rest)
//
// A table as it was at time T is its items now with every change after T undone: for each
// item key changed after T, the old image of its first change after T (ItemsAsOf). So a
// backup is only a time, and what it costs is what changed since; the history older than
// anything still needed is trimmed (EngineImpl::TrimHistory, backups.cc).
//
// Times come from HistoryClock: per engine, never decreasing, so one item's changes are in
// commit order (they are taken under the item's lock), and Mark() returns a time no later
// change will carry, the restore point of a backup.
// Thread safety: HistoryClock may be used concurrently; the rest are pure functions or read
// one snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/error.h"
#include "engine/storage/storage.h"

namespace ddb {

// The version byte that starts every history record (store_format.h). DO NOT CHANGE: on disk.
inline constexpr uint8_t kHistoryRecordFormat = 1;

class HistoryClock {
 public:
  HistoryClock();
  // Tests only (EngineOptions::clock_for_testing): the wall clock is read from `now_ms`.
  // REQUIRES: called before any other member, once.
  void SetTimeSourceForTesting(std::function<uint64_t()> now_ms) { now_ms_ = std::move(now_ms); }
  // A commit time for a batch (ms): at least the wall clock, never below an earlier one, and
  // above every Mark().
  uint64_t Next();
  // A time T such that every change committed from now on gets a later one.
  uint64_t Mark();
  // Every later Next() and Mark() is at least `t` (open: above every time the store holds).
  void AtLeast(uint64_t t);
  // A sequence unique within the engine (distinguishes records of one millisecond).
  uint64_t NextSeq() { return seq_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> last_{0};  // the latest time handed out or marked, + 1 after a Mark
  std::atomic<uint64_t> seq_;
  std::function<uint64_t()> now_ms_;  // null: the system clock
  uint64_t Wall() const;
};

std::string HistoryKey(uint32_t table_id, uint64_t ms, uint64_t seq);
// The first key of the table's records with a commit time >= ms.
std::string HistoryPrefix(uint32_t table_id, uint64_t ms);
// The end of the table's records (exclusive).
std::string HistoryEnd(uint32_t table_id);
// Meta-family key of a table's (record count, record bytes) pair.
std::string HistoryStatsKey(uint32_t table_id);
std::string EncodeHistory(std::string_view item_key, const std::string* old_encoded);
// Returns false on malformed bytes or a newer format.
bool DecodeHistory(std::string_view value, std::string_view* item_key,
                   std::optional<std::string_view>* old_encoded);
// The commit time of a record key; false when malformed.
bool HistoryKeyTime(std::string_view key, uint64_t* ms);

// Calls fn(item_key, encoded_item) for each item the table `table_id` had at time `as_of_ms`
// (every change committed at or before it, none after), in item-key order, reading `at`.
// REQUIRES: the table kept history over (as_of_ms, the snapshot], and the writers of every
// change up to the snapshot had committed when it was taken. Costs one pass over the items
// now and over the history after as_of_ms; memory: the item keys changed since as_of_ms,
// with their old images. fn returns false to stop. Errors: kInternal.
Status ItemsAsOf(Storage& storage, const Storage::Snapshot* at, uint32_t table_id,
                 uint64_t as_of_ms,
                 const std::function<bool(std::string_view, std::string_view)>& fn);

// Calls fn(item_key, commit_ms) for each change to the table in (from_ms, to_ms], in commit
// order (a key changed twice comes twice). Costs the history in that range. Errors: kInternal.
Status ChangedKeys(Storage& storage, const Storage::Snapshot* at, uint32_t table_id,
                   uint64_t from_ms, uint64_t to_ms,
                   const std::function<bool(std::string_view, uint64_t)>& fn);

// What an incremental export needs of the changes in [from_ms, to_ms) (commit times): for
// each item key changed then, in item-key order, fn(item_key, last_ms, before, after) with
// the commit time of its last change in the window, its encoded image just before from_ms
// and just before to_ms (nullopt: no item then). Reads the history from from_ms to the end
// of the snapshot once, and for each changed key not changed again since to_ms, its item in
// the snapshot. Memory: the keys changed in the window with their two images.
// REQUIRES: as ItemsAsOf's, over [from_ms, the snapshot]. fn returns false to stop.
// Errors: kInternal.
Status ChangesBetween(Storage& storage, const Storage::Snapshot* at, uint32_t table_id,
                      uint64_t from_ms, uint64_t to_ms,
                      const std::function<bool(std::string_view key, uint64_t last_ms,
                                               const std::optional<std::string>& before,
                                               const std::optional<std::string>& after)>& fn);

}  // namespace ddb
