// RocksDB keys of items (items column family):
//
//   item key := table_id (fixed32 BE) | token (fixed64 BE) | pk_len (fixed16 BE) | pk | sk
//
//   pk    = the partition key's bytes: S as UTF-8, N as normalised decimal text, B raw.
//   token = XXH3_64bits(pk): the key space is hash-partitioned, so a partition is a range
//           of tokens, Scan runs in token order, and all items of one partition key are
//           contiguous.
//   sk    = order-preserving sort key, last in the key so it needs no terminator:
//           S and B raw bytes (bytewise order is DynamoDB's order, prefixes first),
//           N by AppendNumberKey (number.h). Absent for tables without a sort key.
//
// Bytewise key order inside a partition key == DynamoDB's sort-key order.
// DO NOT change without a format version bump: it is on disk.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ddb/attribute_value.h"

namespace ddb {

// The bytes of a key value: S text, N normalised text, B raw bytes.
// REQUIRES: v.is_scalar_key_type().
inline const std::string& KeyBytes(const AttributeValue& v) { return v.scalar(); }

// XXH3-64 of the partition key bytes.
uint64_t PartitionToken(std::string_view pk_bytes);

// The 4-byte prefix of every key of a table, and the first prefix after it.
std::string TablePrefix(uint32_t table_id);
std::string TablePrefixEnd(uint32_t table_id);

// Appends the order-preserving encoding of a sort-key value. REQUIRES: S, N or B.
void AppendSortKey(std::string* dst, const AttributeValue& value);
// Decodes a sort key of type "type" occupying all of "input". Returns false on bad bytes.
bool DecodeSortKey(std::string_view input, AttributeType type, AttributeValue* value);

// The full item key. "sk" is null for tables without a sort key.
std::string EncodeItemKey(uint32_t table_id, const AttributeValue& pk, const AttributeValue* sk);

}  // namespace ddb
