// Time to Live: the deletion of expired items (ExpireTtlItems, the housekeeping task
// expire_ttl_items), and the backfill that builds a table's expiry record (ttl_index.h) when
// TTL is enabled on a table that has items.
//
// Expiry costs what expires, not what is stored: per round (every
// EngineOptions::ttl_sweep_interval_ms) and TTL table it seeks the record once, from the
// expiry it has swept up to (or the lowest one written since, TtlWriteNotes) to now, and
// deletes each item found through Mutate, which re-checks under the item's lock that the
// item is still expired. Chunks of kTtlChunk entries, looping while there are more.
#include <chrono>

#include "engine/engine_impl.h"

namespace ddb {
namespace {

// What ExpireTtlItems' re-check answers when the item no longer has the entry's expiry.
const Error& NoLongerExpired() {
  static const Error e(ErrorCode::kConditionalCheckFailed, "the item is no longer expired");
  return e;
}

// What ExpireTtlItems reports when it could not remove a stale entry of the record.
const Error& StaleEntryNotRemoved() {
  static const Error e = Error::Internal("cannot remove a stale Time to Live record entry");
  return e;
}

}  // namespace

Status EngineImpl::StartTtlBackfill(uint32_t table_id) {
  uint64_t generation;
  {
    std::lock_guard lock(ttl_build_mu);
    generation = ttl_next_generation++;
    ttl_generation[table_id] = generation;
    // A marker left from an earlier enabling must not vouch for this record.
    Storage::Batch batch(*storage);
    batch.Delete(Cf::kMeta, TtlBuiltKey(table_id));
    DDB_RETURN_IF_ERROR(storage->Write(batch));
  }
  std::lock_guard lock(backfill_mu);
  backfills.emplace_back(&EngineImpl::BackfillTtl, this, table_id, generation);
  return Status::Ok();
}

Status EngineImpl::DropTtlRecord(uint32_t table_id) {
  // Writers that saw TTL enabled (under their item's lock) may still commit an entry.
  WaitForItemWriters();
  std::lock_guard lock(ttl_build_mu);  // no backfill commits past this point
  ttl_generation.erase(table_id);
  Storage::Batch batch(*storage);
  batch.Delete(Cf::kMeta, TtlBuiltKey(table_id));
  DDB_RETURN_IF_ERROR(storage->Write(batch));
  // One range tombstone per disabling (rare); the sweeper never seeks a table without TTL.
  return storage->DeleteRange(Cf::kMeta, TtlTablePrefix(table_id), TtlTablePrefixEnd(table_id));
}

void EngineImpl::BackfillTtl(uint32_t table_id, uint64_t generation) {
  // REQUIRES ttl_build_mu: this backfill still builds the table's current record.
  auto still_current = [&](const std::string& attribute) {
    auto it = ttl_generation.find(table_id);
    std::shared_ptr<const TableInfo> table = catalog->FindById(table_id);
    return it != ttl_generation.end() && it->second == generation && table &&
           table->description.ttl_attribute == attribute;
  };
  std::string next = TablePrefix(table_id);
  const std::string end = TablePrefixEnd(table_id);
  std::string attribute;
  while (true) {
    if (stopping) return;  // starts over on the next open (no marker yet)
    std::shared_ptr<const TableInfo> table = catalog->FindById(table_id);
    if (!table || !table->description.ttl_attribute) return;
    attribute = *table->description.ttl_attribute;
    std::vector<std::string> keys;
    Status s = storage->ForEach(Cf::kItems, next, end, [&](std::string_view key, std::string_view) {
      keys.emplace_back(key);
      return keys.size() < kTtlChunk;
    });
    if (!s.ok()) {
      storage->Log(LogSeverity::kError, "Time to Live backfill of table " +
                                            std::to_string(table_id) + " cannot read items");
      return;
    }
    // Each item is read under its lock: a writer that looked at the catalog before TTL was
    // enabled has committed by then, and later writers maintain the entry themselves. The
    // chunk commits after the locks are released, so an entry may be of an item version
    // already replaced: such stale entries are removed by the sweeper when it meets them.
    Storage::Batch batch(*storage);
    uint64_t lowest = TtlWriteNotes::kNone;
    for (const std::string& key : keys) {
      Result<std::optional<Item>> item = [&] {
        std::lock_guard lock(StripeFor(key));
        return ReadItem(key);
      }();
      if (!item.ok()) {
        storage->Log(LogSeverity::kError, "Time to Live backfill of table " +
                                              std::to_string(table_id) + ": " +
                                              item.error().message());
        return;
      }
      if (!item.value()) continue;
      std::optional<uint64_t> expiry = TtlExpiry(*item.value(), attribute);
      if (!expiry) continue;
      batch.Put(Cf::kMeta, TtlEntryKey(table_id, *expiry, key), "");
      lowest = std::min(lowest, *expiry);
    }
    {
      std::lock_guard lock(ttl_build_mu);
      if (!still_current(attribute)) return;
      // Not synced, nor the marker below: a backfill cut short is made again on open.
      if (!storage->Write(batch, WriteSync::kDeferred).ok()) {
        storage->Log(LogSeverity::kError, "Time to Live backfill of table " +
                                              std::to_string(table_id) + " cannot write");
        return;
      }
    }
    // Committed, so the note may come after (TtlWriteNotes::Note).
    if (lowest != TtlWriteNotes::kNone) ttl_notes.Note(table_id, lowest);
    if (keys.size() < kTtlChunk) break;
    next = keys.back();
    next.push_back('\0');
  }
  std::lock_guard lock(ttl_build_mu);
  if (!still_current(attribute)) return;
  Storage::Batch batch(*storage);
  batch.Put(Cf::kMeta, TtlBuiltKey(table_id), attribute);
  if (!storage->Write(batch, WriteSync::kDeferred).ok()) {
    storage->Log(LogSeverity::kError,
                 "Time to Live backfill of table " + std::to_string(table_id) + " cannot write");
  }
}

Status EngineImpl::ExpireTtlItems() {
  const uint64_t now = NowMs() / 1000;
  // Taken first: an entry noted after this is looked for by the next round.
  const TtlWriteNotes::Snapshot noted = ttl_notes.TakeAll();
  std::vector<std::shared_ptr<const TableInfo>> tables;
  std::map<uint32_t, uint64_t> from;
  bool wait_for_writers = false;
  for (const std::string& name : catalog->Names()) {
    std::shared_ptr<const TableInfo> table = catalog->Find(name);
    if (!table || !table->description.ttl_attribute) continue;
    auto swept = ttl_swept_to.find(table->id);
    uint64_t start = swept == ttl_swept_to.end() ? 0 : swept->second;
    uint64_t note = noted[TtlWriteNotes::Slot(table->id)];
    // An entry due now may have been noted by a writer that has not committed yet.
    if (note < now) wait_for_writers = true;
    from[table->id] = std::min(start, note);
    tables.push_back(std::move(table));
  }
  // Writers note an entry before committing it, holding the item's lock until after the
  // commit: once every lock has been free, the entries noted above are visible.
  if (wait_for_writers) WaitForItemWriters();
  Status first = Status::Ok();  // counted in ttl_delete_errors too; retried next round
  for (const auto& table : tables) {
    if (stopping) return first;
    from[table->id] = SweepTtlTable(*table, from[table->id], now, &first);
  }
  ttl_swept_to = std::move(from);  // tables without TTL now are forgotten
  return first;
}

uint64_t EngineImpl::SweepTtlTable(const TableInfo& table, uint64_t from, uint64_t now,
                                   Status* first_error) {
  auto note = [this, first_error](const Error& e) {
    ++ttl_delete_errors;
    if (first_error->ok()) *first_error = e;
  };
  const std::string attribute = *table.description.ttl_attribute;
  // Expiry times more than five years old are not deleted (kTtlMaxAgeSeconds).
  const uint64_t oldest = now > kTtlMaxAgeSeconds ? now - kTtlMaxAgeSeconds : 0;
  std::string cursor = TtlEntryKey(table.id, std::max(from, oldest), "");
  const std::string end = TtlEntryKey(table.id, now, "");  // expired: expiry < now
  if (cursor >= end) return std::max(from, oldest);        // (the clock went back)
  uint64_t swept_to = now;  // lowered to the first entry kept for a retry
  while (!stopping) {
    std::vector<std::string> entries;
    Status s =
        storage->ForEach(Cf::kMeta, cursor, end, [&](std::string_view key, std::string_view) {
          entries.emplace_back(key);
          return entries.size() < kTtlChunk;
        });
    if (!s.ok()) {
      note(s.error());
      return std::min(from, swept_to);
    }
    for (const std::string& entry : entries) {
      if (stopping) break;
      ++ttl_examined_entries;
      uint32_t id = 0;
      uint64_t expiry = 0;
      std::string_view item_key;
      if (!ParseTtlEntryKey(entry, &id, &expiry, &item_key) || id != table.id) {
        if (!RemoveStaleTtlEntry(table.id, entry, std::nullopt, "")) note(StaleEntryNotRemoved());
        continue;
      }
      std::string key(item_key);
      Result<std::optional<Item>> deleted = Mutate(
          table, key,
          [&](const std::optional<Item>& old) -> Result<std::optional<Item>> {
            if (!old) return std::optional<Item>();  // nothing to delete: a stale entry
            // Re-checked under the item's lock, against the table as of now: the item may
            // have been rewritten, or TTL disabled, since the entry was read.
            std::shared_ptr<const TableInfo> current = catalog->FindById(table.id);
            if (!current || current->description.ttl_attribute != attribute ||
                TtlExpiry(*old, attribute) != expiry) {
              return NoLongerExpired();
            }
            return std::optional<Item>();
          },
          // Not synced: a delete lost in a power cut leaves the item and its entry, and the
          // sweeper (which starts from the beginning after a restart) deletes it again.
          nullptr, WriteOrigin::kTimeToLive, WriteSync::kDeferred);
      bool stale = false;
      if (deleted.ok()) {
        if (deleted.value()) {
          ++ttl_deleted_items;
        } else {
          stale = true;
        }
      } else if (deleted.error().code() == ErrorCode::kConditionalCheckFailed) {
        stale = true;
      } else if (deleted.error().code() == ErrorCode::kResourceNotFound) {
        return swept_to;  // the table is gone (and its record with it)
      } else {
        // Kept for the next round, which starts at this entry again.
        note(deleted.error());
        swept_to = std::min(swept_to, expiry);
      }
      if (stale && !RemoveStaleTtlEntry(table.id, entry, expiry, key)) {
        note(StaleEntryNotRemoved());
        swept_to = std::min(swept_to, expiry);
      }
    }
    if (entries.size() < kTtlChunk) break;
    cursor = entries.back();
    cursor.push_back('\0');
  }
  return swept_to;
}

bool EngineImpl::RemoveStaleTtlEntry(uint32_t table_id, const std::string& entry,
                                     std::optional<uint64_t> expiry, const std::string& item_key) {
  std::optional<std::lock_guard<std::mutex>> lock;
  if (expiry) {
    lock.emplace(StripeFor(item_key));
    // Under the item's lock: a writer may have put the same entry again meanwhile.
    std::shared_ptr<const TableInfo> table = catalog->FindById(table_id);
    if (table && table->description.ttl_attribute) {
      Result<std::optional<Item>> item = ReadItem(item_key);
      if (!item.ok()) return false;
      if (item.value() && TtlExpiry(*item.value(), *table->description.ttl_attribute) == expiry) {
        return true;  // a live entry again (its writer noted it for the next round)
      }
    }
  }
  Storage::Batch batch(*storage);
  batch.Delete(Cf::kMeta, entry);
  return storage->Write(batch, WriteSync::kDeferred).ok();
}

}  // namespace ddb
