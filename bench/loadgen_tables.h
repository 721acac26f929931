// loadgen_tables: the table shapes bench/loadgen can create and write to (up to two GSIs, one
// LSI, a stream, Time to Live) and the shape's part of the request bodies: the index and TTL
// attributes of every written item, the UpdateItem expression that sometimes moves an index
// entry, and the Query on a GSI. Pure string building (no Beast, no I/O), so this file builds in
// a second, apart from loadgen.cc.
//
// The attributes a shape adds to item number i (values derived from i, so that the same item
// number gets the same values in every run; the hash spreads them over many partition keys):
//   gsi1 (--gsis 1 or 2)  g1pk S "a<0..4095>"  g1sk S "t<i, 9 digits>"
//   gsi2 (--gsis 2)       g2pk S "b<0..511>"   g2sk S "u<i, 9 digits>"
//   lsi1 (--lsi)          lsk S "l<0..999999>"  (the table's pk is the LSI's hash key)
//   TTL (--ttl ATTR)      ATTR N, Unix seconds: a fraction expires within expire_after seconds
//                         of the write, the rest about ten years later
// Every index projects ALL attributes, so any write to an indexed item rewrites its entries.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ddb::bench {

// splitmix64's finaliser: a cheap, well-mixed hash of a 64-bit integer.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Distinct partition key values of gsi1 and gsi2.
inline constexpr uint64_t kGsi1Pks = 4096;
inline constexpr uint64_t kGsi2Pks = 512;

struct TableShape {
  // Global secondary indexes: 0, 1 ("gsi1") or 2 ("gsi1", "gsi2"). Default: 0
  int gsis = 0;
  // One local secondary index "lsi1" on pk + lsk. Default: false
  bool lsi = false;
  // StreamSpecification NEW_AND_OLD_IMAGES. Default: false
  bool stream = false;
  // Time to Live attribute; empty: none. Default: empty
  std::string ttl_attribute;
  // Fraction of written items that expire within expire_after seconds. Default: 0
  double expiring_fraction = 0;
  // Seconds within which the expiring items expire (uniformly spread). Default: 60
  double expire_after = 60;
  // Fraction of UpdateItems on a table with indexes that also SET new index keys (g1pk, g2pk,
  // lsk), so that the index entries move to other keys. Default: 0.25
  double index_move_fraction = 0.25;
  // Fraction of Queries sent to gsi1 (g1pk = :p) instead of the table. Default: 0
  double gsi_query_fraction = 0;

  bool HasIndexes() const { return gsis > 0 || lsi; }
  // "gsis=2 lsi stream ttl=expires(25% within 60s)" or "plain".
  std::string Describe() const;
};

// The CreateTable body: pk S + sk S, PAY_PER_REQUEST, plus the shape's indexes and stream.
std::string CreateTableBody(const std::string& table, const TableShape& shape);

// The UpdateTimeToLive body that enables shape.ttl_attribute.
// REQUIRES: !shape.ttl_attribute.empty().
std::string UpdateTimeToLiveBody(const std::string& table, const TableShape& shape);

// Whether a DescribeTable response shows the table and every one of its indexes ACTIVE. A
// response without TableStatus (the floor server answers {}) counts as active.
bool TableAndIndexesActive(std::string_view describe_body);

// Appends the shape's attributes of item number `item` to an item object being written, each
// with a leading comma (`,"g1pk":{"S":"a17"},...`); appends nothing for a plain shape. `now` is
// the current Unix time in seconds (for the TTL attribute). Returns their DynamoDB size in bytes
// (names plus values), so that the caller can keep the item near its --item-size.
int64_t AppendShapeAttributes(std::string* out, const TableShape& shape, int64_t item, int64_t now);

// Appends the UpdateItem members `"UpdateExpression":...,"ExpressionAttributeNames":...,
// "ExpressionAttributeValues":...}` (closing the request object): ADD 1 to the counter n, and
// for a fraction of the updates (decided by `random`) SET new index keys as well.
void AppendUpdateMembers(std::string* out, const TableShape& shape, uint64_t random);

// A Query body on gsi1 for partition key value number `gsi_pk` (in [0, kGsi1Pks)), Limit `limit`.
std::string QueryGsiBody(const std::string& table, uint64_t gsi_pk, int limit);

}  // namespace ddb::bench
