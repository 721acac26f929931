#include "engine/change_log.h"

#include <chrono>

#include "ddb/stored_item.h"
#include "engine/storage/coding.h"

namespace ddb {
namespace {

void PutImage(std::string* dst, const std::optional<Item>& image) {
  if (!image) {
    dst->push_back(0);
    return;
  }
  dst->push_back(1);
  std::string encoded;
  EncodeItem(*image, &encoded);
  PutLengthPrefixed(dst, encoded);
}

// `decode` false: the image is skipped (left unset), not decoded.
bool GetImage(std::string_view* in, std::optional<Item>* image, bool decode = true) {
  if (in->empty()) return false;
  char present = in->front();
  in->remove_prefix(1);
  if (!present) {
    image->reset();
    return true;
  }
  std::string_view encoded;
  if (!GetLengthPrefixed(in, &encoded)) return false;
  if (!decode) {
    image->reset();
    return true;
  }
  Item item;
  if (!DecodeItem(encoded, &item)) return false;
  *image = std::move(item);
  return true;
}

}  // namespace

std::string ChangeKey(uint64_t sequence) {
  std::string k;
  PutFixed64BE(&k, sequence);
  return k;
}

std::string EncodeChange(uint32_t table_id, uint64_t commit_time_ms, std::string_view item_key,
                         const std::optional<Item>& old_image,
                         const std::optional<Item>& new_image) {
  std::string v(1, static_cast<char>(kChangeRecordFormat));
  PutFixed32BE(&v, table_id);
  PutFixed64BE(&v, commit_time_ms);
  PutLengthPrefixed(&v, item_key);
  PutImage(&v, old_image);
  PutImage(&v, new_image);
  return v;
}

std::string EncodeChange(uint32_t table_id, uint64_t commit_time_ms, std::string_view item_key,
                         const std::string* old_encoded, const std::string* new_encoded) {
  std::string v(1, static_cast<char>(kChangeRecordFormat));
  v.reserve(32 + item_key.size() + (old_encoded ? old_encoded->size() : 0) +
            (new_encoded ? new_encoded->size() : 0));
  PutFixed32BE(&v, table_id);
  PutFixed64BE(&v, commit_time_ms);
  PutLengthPrefixed(&v, item_key);
  for (const std::string* image : {old_encoded, new_encoded}) {
    if (!image) {
      v.push_back(0);
      continue;
    }
    v.push_back(1);
    PutLengthPrefixed(&v, *image);
  }
  return v;
}

bool DecodeChange(std::string_view key, std::string_view value, ChangeRecord* record,
                  bool old_image) {
  uint64_t seq, table, time;
  std::string_view item_key;
  // Format 0 records (stores of format 1) have no version byte: they start with the table id,
  // whose first byte is 0 (ids stay below 2^24, Catalog).
  if (value.empty() || static_cast<uint8_t>(value[0]) > kChangeRecordFormat) return false;
  if (value[0] == kChangeRecordFormat) value.remove_prefix(1);
  if (!GetFixedBE(&key, 8, &seq) || !GetFixedBE(&value, 4, &table) ||
      !GetFixedBE(&value, 8, &time) || !GetLengthPrefixed(&value, &item_key)) {
    return false;
  }
  record->sequence = seq;
  record->table_id = static_cast<uint32_t>(table);
  record->commit_time_ms = time;
  record->item_key = std::string(item_key);
  return GetImage(&value, &record->old_image, old_image) && GetImage(&value, &record->new_image) &&
         value.empty();
}

uint64_t ChangeSequencer::Begin() {
  std::lock_guard lock(mu_);
  uint64_t s = next_++;
  in_flight_.insert(s);
  return s;
}

void ChangeSequencer::End(uint64_t sequence) {
  {
    std::lock_guard lock(mu_);
    in_flight_.erase(sequence);
  }
  cv_.notify_all();
}

uint64_t ChangeSequencer::SafePoint() const {
  std::lock_guard lock(mu_);
  return in_flight_.empty() ? next_ - 1 : *in_flight_.begin() - 1;
}

uint64_t ChangeSequencer::Peek() const {
  std::lock_guard lock(mu_);
  return next_;
}

void ChangeSequencer::WaitBeyond(uint64_t after, int timeout_ms) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    uint64_t safe = in_flight_.empty() ? next_ - 1 : *in_flight_.begin() - 1;
    return safe > after || woken_;
  });
  woken_ = false;
}

void ChangeSequencer::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

}  // namespace ddb
