// RocksDB keys of items (items column family):
//
//   item key := table_id (fixed32 BE) | token (fixed64 BE) | pk_len (fixed16 BE) | pk | sk
//
//   pk    = the partition key's bytes: S as UTF-8, N as normalised decimal text, B raw.
//   token = the partition key's hash, by the table's key format (TableInfo::key_format):
//           1 (tables created before 2026-12-05): XXH3_64bits(pk);
//           2: the first 8 bytes, big-endian, of MD5("Outliers" | ServiceKeyBytes(pk)), the
//              hash that orders the service's Scans and places items in its parallel-scan
//              segments (docs/exactness.md has the record it reproduces).
//           The key space is hash-partitioned: a partition is a range of tokens, Scan runs in
//           token order, and all items of one partition key are contiguous.
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

// Key formats (TableInfo::key_format, store_format.h): how a table's keys and its indexes'
// entry keys hash.
inline constexpr int kKeyFormatXxh3 = 1;
inline constexpr int kKeyFormatServiceOrder = 2;

// The token of a partition key value (S, N or B) in a table of key format "key_format".
uint64_t PartitionToken(int key_format, const AttributeValue& pk);
// The bytes the service hashes for a key value: S UTF-8, B raw, N its internal number form
// (a sign-and-exponent byte, then base-100 digit pairs, each + 1, or 101 - pair when
// negative, negatives with fewer than 20 pairs ending in 102; zero is 0x80).
void AppendServiceKeyBytes(std::string* dst, const AttributeValue& value);
// The token of an item key or an index entry key (its bytes 4 to 12).
uint64_t TokenOfKey(std::string_view key);
// Key format 1's hash of bytes: XXH3_64bits.
uint64_t Xxh3Token(std::string_view bytes);
// The first 8 bytes, as a big-endian integer, of MD5("Outliers" | bytes).
uint64_t ServiceHash(std::string_view bytes);

// The 4-byte prefix of every key of a table, and the first prefix after it.
std::string TablePrefix(uint32_t table_id);
std::string TablePrefixEnd(uint32_t table_id);

// Appends the order-preserving encoding of a sort-key value. REQUIRES: S, N or B.
void AppendSortKey(std::string* dst, const AttributeValue& value);
// Decodes a sort key of type "type" occupying all of "input". Returns false on bad bytes.
bool DecodeSortKey(std::string_view input, AttributeType type, AttributeValue* value);

// The full item key in a table of key format "key_format". "sk" is null for tables
// without a sort key.
std::string EncodeItemKey(uint32_t table_id, int key_format, const AttributeValue& pk,
                          const AttributeValue* sk);

}  // namespace ddb
