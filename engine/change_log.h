// The change log: with simulated GSI lag (EngineOptions::gsi_propagation_delay_ms > 0), one
// record per committed write of a table with GSIs or vector indexes, written in the same
// WriteBatch as the item, in the changes column family, for the GSI applier (trimmed once
// applied; without lag GSI entries are written with the item and vector indexes follow the
// commit instead). Stream records use the same encoding and
// sequences but live in the streams family (streams.h):
//
//   record key   := sequence (fixed64 BE), allocated by Begin()
//   record value := format (1 byte, kChangeRecordFormat; absent in format 0, whose records
//                   start with the table id's 0 byte) | table_id (fixed32 BE)
//                   | commit time ms (fixed64 BE)
//                   | item key (varint len + bytes)
//                   | old image: 0, or 1 + varint len + encoded item
//                   | new image: 0, or 1 + varint len + encoded item
//
// Writers commit concurrently, so sequences can commit out of order; a consumer reads only
// up to SafePoint(): every sequence at or below it has committed (or was abandoned).
// Thread safety: all methods may be called concurrently.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "ddb/attribute_value.h"

namespace ddb {

// The version byte that starts every change record written now (store_format.h).
inline constexpr uint8_t kChangeRecordFormat = 1;

struct ChangeRecord {
  uint64_t sequence = 0;
  uint32_t table_id = 0;
  uint64_t commit_time_ms = 0;
  std::string item_key;
  std::optional<Item> old_image;
  std::optional<Item> new_image;
};

std::string ChangeKey(uint64_t sequence);
std::string EncodeChange(uint32_t table_id, uint64_t commit_time_ms, std::string_view item_key,
                         const std::optional<Item>& old_image,
                         const std::optional<Item>& new_image);
// The same from images already in item-codec form (null: no image), so that a writer
// that has just encoded the new item does not encode it again.
std::string EncodeChange(uint32_t table_id, uint64_t commit_time_ms, std::string_view item_key,
                         const std::string* old_encoded, const std::string* new_encoded);
// Reads format 0 and 1 records. Returns false on malformed bytes, or a newer format.
// `old_image` false: the old image is skipped, not decoded (record->old_image stays unset).
bool DecodeChange(std::string_view key, std::string_view value, ChangeRecord* record,
                  bool old_image = true);

class ChangeSequencer {
 public:
  // "last" is the highest sequence already on disk (0 for none).
  explicit ChangeSequencer(uint64_t last) : next_(last + 1) {}

  // Allocates the next sequence; REQUIRES a matching End() after the write (committed or not).
  uint64_t Begin();
  void End(uint64_t sequence);
  // Every sequence <= SafePoint() has ended.
  uint64_t SafePoint() const;
  // The sequence the next Begin() will return.
  uint64_t Peek() const;
  // Waits until SafePoint() > "after" or the timeout passes, or Wake() is called.
  void WaitBeyond(uint64_t after, int timeout_ms);
  void Wake();

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_;                 // guarded by mu_
  std::set<uint64_t> in_flight_;  // guarded by mu_
  bool woken_ = false;            // guarded by mu_
};

}  // namespace ddb
