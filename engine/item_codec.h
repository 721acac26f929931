// The binary form of an item as stored in RocksDB values (items column family), and of
// catalog records. Never JSON text.
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

#include <string>
#include <string_view>

#include "engine/attribute_value.h"

namespace ddb {

inline constexpr uint8_t kItemFormatVersion = 1;

// Appends the encoding of "item" to *dst.
void EncodeItem(const Item& item, std::string* dst);
// Decodes an encoded item. Returns false on malformed or unknown-version bytes.
bool DecodeItem(std::string_view data, Item* item);

}  // namespace ddb
