// Small append/consume codecs for the on-disk formats (leveldb util/coding.h style):
// Put* appends to a string, Get* parses from the front of a string_view, advances it and
// returns false on truncated input.
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ddb/stored_item.h"

namespace ddb {

// The readers of varints and length-prefixed strings are public (ddb/stored_item.h).
using stored_form::GetLengthPrefixed;
using stored_form::GetVarint64;

inline void PutFixed32BE(std::string* dst, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) dst->push_back(static_cast<char>(v >> shift));
}

inline void PutFixed64BE(std::string* dst, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) dst->push_back(static_cast<char>(v >> shift));
}

inline void PutFixed16BE(std::string* dst, uint16_t v) {
  dst->push_back(static_cast<char>(v >> 8));
  dst->push_back(static_cast<char>(v));
}

inline bool GetFixedBE(std::string_view* in, int bytes, uint64_t* v) {
  if (in->size() < static_cast<size_t>(bytes)) return false;
  uint64_t r = 0;
  for (int i = 0; i < bytes; ++i) r = (r << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(bytes);
  *v = r;
  return true;
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

inline void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s);
}

// Byte order, as memcmp then the shorter first (std::string_view::compare), eight bytes at a
// time: the store's keys differ within their first 12 bytes (a table id, then a partition
// token), where libc's memcmp spends more on choosing a method than on comparing.
inline int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
  }
  if (i < n) {
    if (n >= 8) {
      // The last eight bytes, overlapping ones already found equal.
      uint64_t x, y;
      std::memcpy(&x, a.data() + n - 8, 8);
      std::memcpy(&y, b.data() + n - 8, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
    } else {
      for (; i < n; ++i) {
        if (a[i] != b[i]) return static_cast<uint8_t>(a[i]) < static_cast<uint8_t>(b[i]) ? -1 : 1;
      }
    }
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

}  // namespace ddb
