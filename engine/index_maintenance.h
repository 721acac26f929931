// Keeping secondary-index entries in step with the items. AddIndexUpdates puts a write's LSI
// entries, and by default its GSI entries too, in the item's own WriteBatch
// (EngineImpl::AddWrite, write_path.cc; EngineImpl::GsisInline), so an index read right after
// a write sees it. Only with simulated GSI lag (EngineOptions::gsi_propagation_delay_ms > 0)
// does GsiApplier write GSI entries, from the change log (change_log.h); without lag it only
// drains, at open, a backlog such a run left.
// Thread safety: AddIndexUpdates is pure; GsiApplier runs one background thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/catalog.h"
#include "engine/change_log.h"
#include "engine/index_key.h"
#include "engine/storage/storage.h"

namespace ddb {

// Adds to *batch what turns the entries of "old_item" into those of "new_item" in each index
// for which "include" is true: a delete when the entry's key changes or goes away, a put when
// the new item is indexed, and the index's count/size counter deltas. Idempotent: applying
// it twice leaves the same entries (counters are kept exact by applying each change once).
// With "stats" given, the counter deltas are added there (index id -> (items, bytes))
// instead of to the batch, for a caller that writes many changes in one batch.
// With "backfilled" given, an index still being backfilled (IndexSchema::backfilling) has
// the old entry looked up there rather than assumed from the old image (the backfill may
// not have written it yet), so its counters stay exact while the backfill runs; REQUIRES
// then that the item's stripe lock is held (the backfill writes entries under it).
using IndexStatsDeltas = std::map<uint32_t, std::pair<int64_t, int64_t>>;
void AddIndexUpdates(const TableInfo& table, bool global, const std::optional<Item>& old_item,
                     const std::optional<Item>& new_item, Storage::Batch* batch,
                     IndexStatsDeltas* stats = nullptr, Storage* backfilled = nullptr);

// (Simulated GSI lag, and a backlog found at open.) Applies change records to GSIs (and, via
// the applied hook, vector indexes) in sequence order and records the last applied sequence
// durably (meta "gsi_watermark") in the same batch as the entries, so a restart neither
// loses nor repeats a change. Applied records are trimmed with one range deletion per
// kTrimEvery sequences, in the same batch: readers of the log start above the watermark
// and ignore range deletions (storage.cc), so the tombstones cost them nothing, and the
// write path pays one tombstone per thousands of records instead of one per record. Wakes on every
// commit (ChangeSequencer) and applies all that is ready, up to a chunk, in one batch. A record
// that cannot be decoded is logged, counted (unreadable_changes) and skipped; a storage error is
// counted (apply_errors) and retried after a short wait.
class GsiApplier {
 public:
  // `now_ms`: the engine's wall clock (EngineImpl::NowMs), the clock change records carry.
  GsiApplier(Storage* storage, Catalog* catalog, ChangeSequencer* sequencer, uint64_t watermark,
             int propagation_delay_ms, std::function<uint64_t()> now_ms);
  ~GsiApplier();  // stops the thread
  void Start();
  void Stop();
  // Applies everything ready now on the calling thread and trims it (a backlog found on
  // open, when no thread is started).
  void Drain();
  // Called, on the applier's thread and in sequence order, with each record once its round is
  // written: how the in-memory vector indexes follow the log under simulated lag. Set before
  // Start().
  using AppliedHook = std::function<void(const TableInfo& table, const ChangeRecord& record)>;
  void SetAppliedHook(AppliedHook hook) { applied_hook_ = std::move(hook); }

  // The last applied sequence, and how far the log is ahead of it.
  uint64_t watermark() const { return watermark_.load(); }
  // Waits until every change up to `sequence` is applied or the applier stops (true), or
  // `timeout_ms` passes (false, counted in wait_timeouts). Used by a GSI backfill under
  // simulated lag; writes never wait (their GSI entries are inline, or lag on purpose).
  bool WaitApplied(uint64_t sequence, int timeout_ms);
  // Totals since start, for /metrics.
  uint64_t unreadable_changes() const { return unreadable_changes_.load(); }
  uint64_t apply_errors() const { return apply_errors_.load(); }
  uint64_t wait_timeouts() const { return wait_timeouts_.load(); }
  // Held while a chunk is applied: holding it keeps index counters still (backfill recount).
  std::mutex& apply_mutex() { return apply_mu_; }

 private:
  void Run();
  enum class Round { kApplied, kIdle, kNotReady, kFailed };
  // Applies one chunk: kIdle when nothing has committed past the watermark, kNotReady when
  // what has is not old enough yet (propagation delay), kFailed on a storage error.
  Round ApplyChunk();
  void TrimApplied();  // range-deletes every applied record not yet trimmed

  Storage* storage_;
  Catalog* catalog_;
  ChangeSequencer* sequencer_;
  std::atomic<uint64_t> watermark_;
  uint64_t trimmed_to_ = 0;  // every record at or below it is range-deleted; under apply_mu_
  int propagation_delay_ms_;
  std::function<uint64_t()> now_ms_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> unreadable_changes_{0};
  std::atomic<uint64_t> apply_errors_{0};
  std::atomic<uint64_t> wait_timeouts_{0};
  std::mutex apply_mu_;
  std::mutex applied_mu_;  // with applied_cv_: watermark_ moved
  std::condition_variable applied_cv_;
  std::thread thread_;
  AppliedHook applied_hook_;
};

// Meta key of the GSI applier's watermark.
inline constexpr std::string_view kGsiWatermarkKey = "gsi_watermark";

}  // namespace ddb
