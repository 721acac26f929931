// Items in their stored form: the bytes an item is kept as, which Query, Scan and GetItem can
// return instead of Items (accept_encoded_items, ReadResult::encoded_items) so that a caller
// that only writes them out builds no Item. Read them with DecodeItem or WalkEncodedItem.
// Catalog records use the same form.
//
//   item   := version(1 byte = 1) count(varint) { name(varint len + bytes) value }*
//   value  := tag(1 byte, AttributeType) payload
//   S/N/B  := varint len + bytes          (N as normalised decimal text, B raw bytes)
//   BOOL   := 1 byte (0/1)                NULL := nothing
//   SS/NS/BS := count(varint) { varint len + bytes }*   (members in set order)
//   L      := count(varint) value*        M := count(varint) { name value }*
//
// DO NOT change an encoding without bumping kItemFormatVersion: it is on disk.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/attribute_value.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

inline constexpr uint8_t kItemFormatVersion = 1;

// Appends the stored form of "item" to *dst.
void EncodeItem(const Item& item, std::string* dst);
// Decodes an encoded item. Returns false on malformed or unknown-version bytes.
bool DecodeItem(std::string_view data, Item* item);

namespace stored_form {

// Parses a varint from the front of *in and advances it; false on truncated input.
inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

// A varint length and that many bytes.
inline bool GetLengthPrefixed(std::string_view* in, std::string_view* s) {
  uint64_t len;
  if (!GetVarint64(in, &len) || in->size() < len) return false;
  *s = in->substr(0, len);
  in->remove_prefix(len);
  return true;
}

}  // namespace stored_form

// Walks an encoded item without building an Item, for readers that look at it once (JSON
// output of a Query page, its size). The visitor V gets, in stored order (attribute names and
// map keys sorted, set members in set order):
//   BeginMap(count) { Name(name) value }* EndMap()      -- the item itself, and every M
//   value := Scalar(type, bytes) (S/N/B) | Bool(b) | Null()
//          | BeginList(count) value* EndList()
//          | BeginSet(type, count) { Member(bytes) }* EndSet()
// Returns false on malformed or unknown-version bytes (the visitor may have seen a prefix).
template <typename V>
bool WalkEncodedItem(std::string_view data, V& visitor);

// The item's size as ItemSize(DecodeItem(data)) would give it, or nullopt on bad bytes.
std::optional<size_t> EncodedItemSize(std::string_view data);

namespace stored_form {

inline constexpr int kMaxDepth = 64;  // values deeper than this cannot have been written

template <typename V>
bool WalkMap(std::string_view* in, int depth, V& v);

template <typename V>
bool WalkValue(std::string_view* in, int depth, V& v) {
  if (in->empty() || depth > kMaxDepth) return false;
  const auto tag = static_cast<AttributeType>(static_cast<uint8_t>(in->front()));
  in->remove_prefix(1);
  std::string_view s;
  uint64_t count;
  switch (tag) {
    case AttributeType::kS:
    case AttributeType::kN:
    case AttributeType::kB:
      if (!GetLengthPrefixed(in, &s)) return false;
      v.Scalar(tag, s);
      return true;
    case AttributeType::kBool:
      if (in->empty()) return false;
      v.Bool(in->front() != 0);
      in->remove_prefix(1);
      return true;
    case AttributeType::kNull:
      v.Null();
      return true;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      if (!GetVarint64(in, &count) || count > in->size()) return false;
      v.BeginSet(tag, count);
      for (uint64_t i = 0; i < count; ++i) {
        if (!GetLengthPrefixed(in, &s)) return false;
        v.Member(s);
      }
      v.EndSet();
      return true;
    case AttributeType::kL:
      if (!GetVarint64(in, &count) || count > in->size()) return false;
      v.BeginList(count);
      for (uint64_t i = 0; i < count; ++i) {
        if (!WalkValue(in, depth + 1, v)) return false;
      }
      v.EndList();
      return true;
    case AttributeType::kM:
      return WalkMap(in, depth + 1, v);
  }
  return false;
}

template <typename V>
bool WalkMap(std::string_view* in, int depth, V& v) {
  uint64_t count;
  if (!GetVarint64(in, &count) || count > in->size()) return false;
  v.BeginMap(count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view name;
    if (!GetLengthPrefixed(in, &name)) return false;
    v.Name(name);
    if (!WalkValue(in, depth, v)) return false;
  }
  v.EndMap();
  return true;
}

}  // namespace stored_form

template <typename V>
bool WalkEncodedItem(std::string_view data, V& visitor) {
  if (data.empty() || static_cast<uint8_t>(data.front()) != kItemFormatVersion) return false;
  data.remove_prefix(1);
  return stored_form::WalkMap(&data, 0, visitor) && data.empty();
}

}  // namespace ddb

#pragma GCC visibility pop
