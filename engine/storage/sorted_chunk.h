// SortedChunk: key-value pairs collected in any order, in one buffer, then written in key
// order into a Storage::SortedWriter (ingested SST files). For the bulk loads of imports and
// restores: one allocation for a whole chunk instead of two strings per pair, and a sort
// that mostly compares integers (a key's first 12 bytes: its 4-byte table or index id and
// an 8-byte hash token, which rarely tie).
// Thread safety: used by one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "engine/storage/storage.h"

namespace ddb {

class SortedChunk {
 public:
  void Add(std::string_view key, std::string_view value) {
    uint64_t head = 0, next = 0;
    Prefix(key, &head, &next);
    refs_.push_back(Ref{head, next, bytes_.size(), static_cast<uint32_t>(key.size()),
                        static_cast<uint32_t>(value.size())});
    bytes_.append(key);
    bytes_.append(value);
  }
  // What the chunk holds, about, in bytes.
  size_t bytes() const { return bytes_.size() + refs_.size() * sizeof(Ref); }
  bool empty() const { return refs_.empty(); }

  // Adds every pair to `writer` in key order, then empties the chunk. REQUIRES: the keys
  // are distinct, and above every key the writer was given before its last Finish.
  // Errors: kInternal.
  Status WriteTo(Storage::SortedWriter* writer) {
    std::sort(refs_.begin(), refs_.end(), [this](const Ref& a, const Ref& b) {
      if (a.head != b.head) return a.head < b.head;
      if (a.next != b.next) return a.next < b.next;
      return KeyOf(a) < KeyOf(b);
    });
    for (const Ref& r : refs_) {
      DDB_RETURN_IF_ERROR(writer->Add(
          KeyOf(r), std::string_view(bytes_.data() + r.offset + r.key_size, r.value_size)));
    }
    refs_.clear();
    bytes_.clear();
    return Status::Ok();
  }

 private:
  // Keys compare as (head, next, key): the first 12 bytes, zero-padded and big-endian, order
  // as the bytes do, and the whole key breaks their ties.
  struct Ref {
    uint64_t head;  // key bytes 0..3
    uint64_t next;  // key bytes 4..11
    size_t offset;  // of the key in bytes_; the value follows it
    uint32_t key_size, value_size;
  };
  static void Prefix(std::string_view key, uint64_t* head, uint64_t* next) {
    unsigned char b[12] = {0};
    std::memcpy(b, key.data(), std::min<size_t>(12, key.size()));
    for (int i = 0; i < 4; ++i) *head = (*head << 8) | b[i];
    for (int i = 4; i < 12; ++i) *next = (*next << 8) | b[i];
  }
  std::string_view KeyOf(const Ref& r) const {
    return std::string_view(bytes_.data() + r.offset, r.key_size);
  }

  std::string bytes_;
  std::vector<Ref> refs_;
};

}  // namespace ddb
