// The Time to Live record: one entry per item whose TTL attribute holds an expiry time,
// ordered by table and expiry, so that the sweeper (EngineImpl::ExpireTtlItems, the
// housekeeping task expire_ttl_items) finds what has expired with one seek per table instead
// of reading every item. Kept in the meta column family:
//
//   entry key    := "ttl/" | table_id (fixed32 BE) | expiry (fixed64 BE, epoch seconds)
//                   | item key (key_codec.h, whole, last)
//   entry value  := empty
//   built marker := "ttl_built/" | table_id (fixed32 BE) -> the TTL attribute name; present
//                   once every item of the table has its entry (written by the backfill
//                   that UpdateTimeToLive starts, or on open for data from older versions)
//
// Why the meta family: its other keys all begin with ASCII words ("next_table_id",
// "stats/", "gsi_watermark", "stream/"), so "ttl/" cannot collide, whereas keys of the
// items and indexes families begin with a table or index id (fixed32 BE) that could one
// day spell any 4 bytes. "ttl_built/" lies outside the "ttl/" range ('_' > '/' + 1).
// DO NOT change these formats: they are on disk.
//
// Which items have an entry (the developer guide, "Computing Time to Live", and the
// UpdateTimeToLive reference): the attribute must be a top-level Number holding epoch
// seconds; other types are ignored. The expiry is the number's integer part (an item is
// expired when its value is below the current time in whole seconds, which for integer
// "now" is the same as its integer part being below it). Negative numbers (before 1970)
// and numbers of 10^18 or more (milliseconds or nanoseconds by mistake, or absurd values:
// about 3*10^10 years away) get no entry: the service would never delete them either. The
// entry does not depend on the current time: the service's rule that expiry times more than
// five years in the past are not deleted is applied by the sweeper (kTtlMaxAgeSeconds).
//
// Thread safety: the codecs are pure functions; TtlWriteNotes may be used concurrently.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/attribute_value.h"
#include "engine/storage/storage.h"

namespace ddb {

// Expiry times older than this (five years) are left alone, as the service does.
inline constexpr uint64_t kTtlMaxAgeSeconds = uint64_t{1826} * 86400;

// The expiry of a normalised number (number.h), or nullopt when it gets no entry.
std::optional<uint64_t> TtlExpiryOfNumber(std::string_view normalised);
// The expiry of "item" under the TTL attribute "attribute", or nullopt (no such attribute,
// not a number, or a number without an entry).
std::optional<uint64_t> TtlExpiry(const Item& item, const std::string& attribute);

std::string TtlEntryKey(uint32_t table_id, uint64_t expiry, std::string_view item_key);
// The bounds of one table's entries: [TtlTablePrefix, TtlTablePrefixEnd).
std::string TtlTablePrefix(uint32_t table_id);
std::string TtlTablePrefixEnd(uint32_t table_id);
// Parses an entry key. Returns false on malformed bytes.
bool ParseTtlEntryKey(std::string_view key, uint32_t* table_id, uint64_t* expiry,
                      std::string_view* item_key);
std::string TtlBuiltKey(uint32_t table_id);

// Adds to *batch what an item write changes in the record of table "table_id" whose TTL
// attribute is "attribute": the old item's entry is deleted and the new one's put, when
// they differ (nothing when they are the same). Returns the expiry of the entry put, if any.
std::optional<uint64_t> AddTtlEntryUpdates(uint32_t table_id, const std::string& attribute,
                                           std::string_view item_key,
                                           const std::optional<Item>& old_item,
                                           const std::optional<Item>& new_item,
                                           Storage::Batch* batch);

// What writers tell the sweeper. The sweeper remembers, per table, the expiry below which it
// has processed every entry, and starts its next seek there rather than at the table's
// prefix: the entries it deleted leave tombstones that a seek would otherwise step over
// until compaction removes them. An entry put later below that point would then be missed,
// so whoever puts an entry notes its expiry here; the sweeper takes the notes at the start
// of each round and seeks from the smallest. Tables share kSlots slots: a shared slot only
// makes a round start lower than needed.
class TtlWriteNotes {
 public:
  static constexpr size_t kSlots = 64;
  static constexpr uint64_t kNone = UINT64_MAX;
  using Snapshot = std::array<uint64_t, kSlots>;

  TtlWriteNotes() {
    for (auto& s : slots_) s.store(kNone, std::memory_order_relaxed);
  }
  static size_t Slot(uint32_t table_id) { return table_id % kSlots; }

  // Notes an entry of "table_id" with "expiry". REQUIRES: either the entry is committed
  // already, or the caller holds the item's stripe lock from before this call until the
  // entry is committed (the sweeper waits for every stripe before it trusts a round's notes).
  void Note(uint32_t table_id, uint64_t expiry) {
    std::atomic<uint64_t>& slot = slots_[Slot(table_id)];
    uint64_t seen = slot.load(std::memory_order_relaxed);
    while (expiry < seen && !slot.compare_exchange_weak(seen, expiry)) {
    }
  }
  // Every slot's smallest expiry noted since the last call (kNone: none), clearing them.
  Snapshot TakeAll() {
    Snapshot out;
    for (size_t i = 0; i < kSlots; ++i) out[i] = slots_[i].exchange(kNone);
    return out;
  }

 private:
  std::array<std::atomic<uint64_t>, kSlots> slots_;
};

}  // namespace ddb
