#include "engine/index_maintenance.h"

#include <chrono>

#include "engine/storage/coding.h"

namespace ddb {

void AddIndexUpdates(const TableInfo& table, bool global, const std::optional<Item>& old_item,
                     const std::optional<Item>& new_item, Storage::Batch* batch,
                     IndexStatsDeltas* stats, Storage* backfilled) {
  for (const IndexSchema& index : table.indexes) {
    if (index.global != global) continue;
    std::optional<IndexEntryData> before = old_item ? IndexEntry(index, *old_item) : std::nullopt;
    if (before && backfilled && index.backfilling) {
      Result<std::optional<std::string>> found = backfilled->Get(Cf::kIndexes, before->key);
      if (found.ok() && !found.value()) before.reset();  // not written yet: nothing to undo
    }
    std::optional<IndexEntryData> after = new_item ? IndexEntry(index, *new_item) : std::nullopt;
    if (before && after && before->key == after->key && before->value == after->value) continue;
    if (before && (!after || before->key != after->key)) batch->Delete(Cf::kIndexes, before->key);
    if (after) batch->Put(Cf::kIndexes, after->key, after->value);
    int64_t count_delta = (after ? 1 : 0) - (before ? 1 : 0);
    int64_t size_delta = (after ? after->size : 0) - (before ? before->size : 0);
    if (!count_delta && !size_delta) continue;
    if (stats) {
      auto& [items, bytes] = (*stats)[index.index_id];
      items += count_delta;
      bytes += size_delta;
    } else {
      batch->AddToStats(StatsKey(index.index_id), count_delta, size_delta);
    }
  }
}

namespace {
// Records applied in one batch at most: under load, everything ready goes in one write.
constexpr size_t kChunk = 1024;
constexpr int kIdleWaitMs = 1000;
// Applied records are range-deleted once this many sequences have passed since the last
// trim (and on a clean stop): a few tombstones per memtable instead of one per round.
constexpr uint64_t kTrimEvery = 4096;
constexpr int kRetryWaitMs = 50;
}  // namespace

GsiApplier::GsiApplier(Storage* storage, Catalog* catalog, ChangeSequencer* sequencer,
                       uint64_t watermark, int propagation_delay_ms,
                       std::function<uint64_t()> now_ms)
    : storage_(storage),
      catalog_(catalog),
      sequencer_(sequencer),
      watermark_(watermark),
      propagation_delay_ms_(propagation_delay_ms),
      now_ms_(std::move(now_ms)) {}

GsiApplier::~GsiApplier() { Stop(); }

void GsiApplier::Start() {
  thread_ = std::thread([this] { Run(); });
}

void GsiApplier::Stop() {
  stop_ = true;
  sequencer_->Wake();
  {
    std::lock_guard applied(applied_mu_);  // no writer misses the wake-up below
  }
  applied_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GsiApplier::Run() {
  while (!stop_) {
    switch (ApplyChunk()) {
      case Round::kApplied:
        break;
      case Round::kIdle:
        // Woken by the next commit; the timeout only bounds a missed wake-up.
        sequencer_->WaitBeyond(watermark_.load(), kIdleWaitMs);
        break;
      case Round::kNotReady:
      case Round::kFailed:
        // Records wait to be old enough (simulated lag), or a round failed (counted): try
        // again after a pause, not in a spin.
        sequencer_->WaitBeyond(sequencer_->SafePoint(),
                               propagation_delay_ms_ > 0
                                   ? std::min(propagation_delay_ms_, kRetryWaitMs)
                                   : kRetryWaitMs);
        break;
    }
  }
  // Drain what is ready so that a clean shutdown leaves no backlog (a crash may; the
  // watermark makes the next start apply it).
  if (propagation_delay_ms_ == 0) {
    Drain();
  } else {
    TrimApplied();  // what is not yet old enough stays for the next start
  }
}

void GsiApplier::Drain() {
  while (ApplyChunk() == Round::kApplied) {
  }
  TrimApplied();
}

void GsiApplier::TrimApplied() {
  std::lock_guard lock(apply_mu_);
  uint64_t applied = watermark_.load();
  if (applied > trimmed_to_) {
    Storage::Batch batch(*storage_);
    batch.DeleteRange(Cf::kChanges, ChangeKey(0), ChangeKey(applied + 1));
    if (Status s = storage_->Write(batch, WriteSync::kDeferred); s.ok()) {
      trimmed_to_ = applied;
    } else {
      storage_->Log(LogSeverity::kWarning,
                    "GSI applier cannot trim applied change records "
                    "(tried again with the next trim): " +
                        s.error().message());
    }
  }
}

GsiApplier::Round GsiApplier::ApplyChunk() {
  std::lock_guard lock(apply_mu_);
  uint64_t from = watermark_.load();
  uint64_t safe = sequencer_->SafePoint();
  if (safe <= from) return Round::kIdle;
  std::vector<ChangeRecord> records;
  // Records that do not decode: skipped (reported, counted) so that they never stall the
  // index and the writers awaiting it; trimmed at once.
  std::vector<std::string> unreadable;
  uint64_t last_consumed = from;  // the highest sequence read into this chunk
  uint64_t ready_before = now_ms_() - static_cast<uint64_t>(propagation_delay_ms_);
  // The log is read from the watermark up, ignoring range deletions (they all lie below).
  Status s = storage_->ForEach(Cf::kChanges, ChangeKey(from + 1), ChangeKey(safe + 1),
                               [&](std::string_view key, std::string_view value) {
                                 ChangeRecord r;
                                 if (!DecodeChange(key, value, &r)) {
                                   std::string_view k = key;
                                   uint64_t seq = 0;
                                   if (GetFixedBE(&k, 8, &seq)) {
                                     last_consumed = std::max(last_consumed, seq);
                                   }
                                   unreadable.emplace_back(key);
                                   return records.size() + unreadable.size() < kChunk;
                                 }
                                 if (propagation_delay_ms_ > 0 && r.commit_time_ms > ready_before)
                                   return false;
                                 last_consumed = std::max(last_consumed, r.sequence);
                                 records.push_back(std::move(r));
                                 return records.size() + unreadable.size() < kChunk;
                               });
  if (!s.ok()) {
    ++apply_errors_;
    storage_->Log(LogSeverity::kError, "GSI applier cannot read the change log; retrying");
    return Round::kFailed;
  }
  for (const std::string& key : unreadable) {
    ++unreadable_changes_;
    storage_->Log(LogSeverity::kWarning, "GSI applier skipped an unreadable change record (" +
                                             std::to_string(key.size()) + " bytes of key)");
  }
  // Sequences between "from" and "safe" without a record belong to writes that had no
  // GSI consumer or failed; the watermark may pass them.
  const size_t consumed = records.size() + unreadable.size();
  uint64_t last = consumed == 0 ? (propagation_delay_ms_ > 0 ? from : safe) : last_consumed;
  if (consumed < kChunk && propagation_delay_ms_ == 0) last = safe;
  if (last <= from) return Round::kNotReady;
  Storage::Batch batch(*storage_);
  IndexStatsDeltas stats;  // one counter merge per index and round, not per record
  std::vector<std::pair<std::shared_ptr<const TableInfo>, const ChangeRecord*>> hooked;
  for (const ChangeRecord& r : records) {
    auto table = catalog_->FindById(r.table_id);
    if (!table) continue;  // deleted since
    AddIndexUpdates(*table, /*global=*/true, r.old_image, r.new_image, &batch, &stats);
    if (applied_hook_ && !table->description.vector_indexes.empty()) hooked.emplace_back(table, &r);
  }
  for (const auto& [index_id, delta] : stats) {
    if (delta.first || delta.second) {
      batch.AddToStats(StatsKey(index_id), delta.first, delta.second);
    }
  }
  // The index entries, the watermark and (now and then) the trim of what they came from:
  // one atomic write, so a crash leaves all of them or none (and the records are applied
  // again on open).
  batch.SetCounter(kGsiWatermarkKey, static_cast<int64_t>(last));
  const bool trim = last - trimmed_to_ >= kTrimEvery || !unreadable.empty();
  if (trim) batch.DeleteRange(Cf::kChanges, ChangeKey(0), ChangeKey(last + 1));
  // Not synced: lost in a power cut, the records (synced with their items) are applied again.
  if (!storage_->Write(batch, WriteSync::kDeferred).ok()) {
    ++apply_errors_;
    return Round::kFailed;
  }
  if (trim) trimmed_to_ = last;
  for (const auto& [table, record] : hooked) applied_hook_(*table, *record);
  {
    std::lock_guard applied(applied_mu_);
    watermark_ = last;
  }
  applied_cv_.notify_all();
  return Round::kApplied;
}

bool GsiApplier::WaitApplied(uint64_t sequence, int timeout_ms) {
  if (watermark_.load() >= sequence) return true;
  std::unique_lock lock(applied_mu_);
  bool applied = applied_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return watermark_.load() >= sequence || stop_.load();
  });
  if (!applied) ++wait_timeouts_;
  return applied;
}

}  // namespace ddb
