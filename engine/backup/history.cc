#include "engine/backup/history.h"

#include <chrono>
#include <map>

#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"

namespace ddb {
namespace {

uint64_t WallMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

uint64_t WallMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

// Sequences start at the wall clock in microseconds, so that they stay unique across a restart
// within one millisecond's records (a restart takes longer than the records it could collide
// with).
HistoryClock::HistoryClock() : seq_(WallMicros()) {}

uint64_t HistoryClock::Wall() const { return now_ms_ ? now_ms_() : WallMillis(); }

uint64_t HistoryClock::Next() {
  uint64_t last = last_.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t t = std::max(Wall(), last);
    if (last_.compare_exchange_weak(last, t, std::memory_order_relaxed)) return t;
  }
}

void HistoryClock::AtLeast(uint64_t t) {
  uint64_t last = last_.load(std::memory_order_relaxed);
  while (last < t && !last_.compare_exchange_weak(last, t, std::memory_order_relaxed)) {
  }
}

uint64_t HistoryClock::Mark() {
  uint64_t last = last_.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t t = std::max(Wall(), last);
    // Later commits get t + 1 at least.
    if (last_.compare_exchange_weak(last, t + 1, std::memory_order_relaxed)) return t;
  }
}

std::string HistoryKey(uint32_t table_id, uint64_t ms, uint64_t seq) {
  std::string k;
  k.reserve(20);
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, ms);
  PutFixed64BE(&k, seq);
  return k;
}

std::string HistoryPrefix(uint32_t table_id, uint64_t ms) {
  std::string k;
  PutFixed32BE(&k, table_id);
  PutFixed64BE(&k, ms);
  return k;
}

std::string HistoryEnd(uint32_t table_id) {
  std::string k;
  PutFixed32BE(&k, table_id + 1);
  return k;
}

std::string HistoryStatsKey(uint32_t table_id) {
  std::string k = "history_stats/";
  PutFixed32BE(&k, table_id);
  return k;
}

std::string EncodeHistory(std::string_view item_key, const std::string* old_encoded) {
  std::string v;
  v.reserve(2 + item_key.size() + (old_encoded ? old_encoded->size() + 1 : 1) + 4);
  v.push_back(static_cast<char>(kHistoryRecordFormat));
  PutLengthPrefixed(&v, item_key);
  if (old_encoded) {
    v.push_back(1);
    v.append(*old_encoded);
  } else {
    v.push_back(0);
  }
  return v;
}

bool DecodeHistory(std::string_view value, std::string_view* item_key,
                   std::optional<std::string_view>* old_encoded) {
  if (value.empty() || static_cast<uint8_t>(value[0]) != kHistoryRecordFormat) return false;
  value.remove_prefix(1);
  if (!GetLengthPrefixed(&value, item_key) || value.empty()) return false;
  const char present = value[0];
  value.remove_prefix(1);
  if (present == 0) {
    if (!value.empty()) return false;
    old_encoded->reset();
  } else if (present == 1) {
    *old_encoded = value;
  } else {
    return false;
  }
  return true;
}

bool HistoryKeyTime(std::string_view key, uint64_t* ms) {
  if (key.size() != 20) return false;
  key.remove_prefix(4);
  return GetFixedBE(&key, 8, ms);
}

Status ItemsAsOf(Storage& storage, const Storage::Snapshot* at, uint32_t table_id,
                 uint64_t as_of_ms,
                 const std::function<bool(std::string_view, std::string_view)>& fn) {
  // The first change of each key after as_of_ms holds its image at as_of_ms.
  std::map<std::string, std::optional<std::string>, std::less<>> undo;
  bool bad = false;
  DDB_RETURN_IF_ERROR(storage.ForEach(
      Cf::kHistory, HistoryPrefix(table_id, as_of_ms + 1), HistoryEnd(table_id),
      [&](std::string_view, std::string_view value) {
        std::string_view key;
        std::optional<std::string_view> old;
        if (!DecodeHistory(value, &key, &old)) {
          bad = true;
          return false;
        }
        if (undo.find(key) == undo.end()) {
          undo.emplace(std::string(key),
                       old ? std::optional<std::string>(std::string(*old)) : std::nullopt);
        }
        return true;
      },
      /*reverse=*/false, at));
  if (bad) return Error::Internal("unreadable history record");
  // Merge the items now (key order) with the undo set (key order).
  auto next = undo.begin();
  bool go_on = true;
  auto flush_below = [&](std::string_view key) {
    for (; go_on && next != undo.end() && (key.empty() || next->first < key); ++next) {
      if (next->second) go_on = fn(next->first, *next->second);
    }
  };
  DDB_RETURN_IF_ERROR(storage.ForEach(
      Cf::kItems, TablePrefix(table_id), TablePrefixEnd(table_id),
      [&](std::string_view key, std::string_view value) {
        flush_below(key);
        if (!go_on) return false;
        if (next != undo.end() && next->first == key) {
          if (next->second) go_on = fn(key, *next->second);
          ++next;
        } else {
          go_on = fn(key, value);
        }
        return go_on;
      },
      /*reverse=*/false, at));
  flush_below("");
  return Status::Ok();
}

Status ChangedKeys(Storage& storage, const Storage::Snapshot* at, uint32_t table_id,
                   uint64_t from_ms, uint64_t to_ms,
                   const std::function<bool(std::string_view, uint64_t)>& fn) {
  bool bad = false;
  DDB_RETURN_IF_ERROR(storage.ForEach(
      Cf::kHistory, HistoryPrefix(table_id, from_ms + 1), HistoryPrefix(table_id, to_ms + 1),
      [&](std::string_view k, std::string_view value) {
        std::string_view key;
        std::optional<std::string_view> old;
        uint64_t ms = 0;
        if (!DecodeHistory(value, &key, &old) || !HistoryKeyTime(k, &ms)) {
          bad = true;
          return false;
        }
        return fn(key, ms);
      },
      /*reverse=*/false, at));
  if (bad) return Error::Internal("unreadable history record");
  return Status::Ok();
}

Status ChangesBetween(
    Storage& storage, const Storage::Snapshot* at, uint32_t table_id, uint64_t from_ms,
    uint64_t to_ms,
    const std::function<bool(std::string_view, uint64_t, const std::optional<std::string>&,
                             const std::optional<std::string>&)>& fn) {
  struct Change {
    uint64_t last_ms = 0;
    std::optional<std::string> before, after;
    bool after_known = false;  // a change at or after to_ms gave `after`
  };
  std::map<std::string, Change, std::less<>> changes;
  bool bad = false;
  DDB_RETURN_IF_ERROR(storage.ForEach(
      Cf::kHistory, HistoryPrefix(table_id, from_ms), HistoryEnd(table_id),
      [&](std::string_view k, std::string_view value) {
        std::string_view key;
        std::optional<std::string_view> old;
        uint64_t ms = 0;
        if (!DecodeHistory(value, &key, &old) || !HistoryKeyTime(k, &ms)) {
          bad = true;
          return false;
        }
        auto to_string = [&] {
          return old ? std::optional<std::string>(std::string(*old)) : std::nullopt;
        };
        if (ms < to_ms) {
          auto it = changes.find(key);
          if (it == changes.end()) {
            it = changes.emplace(std::string(key), Change{}).first;
            it->second.before = to_string();  // the first change in the window
          }
          it->second.last_ms = ms;
        } else if (auto it = changes.find(key); it != changes.end() && !it->second.after_known) {
          it->second.after = to_string();  // the first change after the window
          it->second.after_known = true;
        }
        return true;
      },
      /*reverse=*/false, at));
  if (bad) return Error::Internal("unreadable history record");
  for (auto& entry : changes) {
    // Not a structured binding: clang 14 (the fuzz and sanitizer builds) cannot capture one.
    const auto& key = entry.first;
    auto& change = entry.second;
    if (change.after_known) continue;
    std::string end(key);
    end.push_back('\0');
    DDB_RETURN_IF_ERROR(storage.ForEach(
        Cf::kItems, key, end,
        [&](std::string_view, std::string_view value) {
          change.after = std::string(value);
          return false;
        },
        /*reverse=*/false, at));
  }
  for (const auto& [key, change] : changes) {
    if (!fn(key, change.last_ms, change.before, change.after)) break;
  }
  return Status::Ok();
}

}  // namespace ddb
