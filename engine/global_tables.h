// Global tables inside one engine (docs/global-tables.md): what one Region's replica keeps so
// that the Regions converge whatever order changes reach them in. The replication layer
// (replication/) reads each replica's changes and applies them to the others through the
// embedding API (Engine::ReadReplicationLog, Engine::ApplyReplicated); this is their state.
//
// Every write of a global table's item carries a stamp, its place in last-writer-wins order:
//   meta key   := "rep/" | item key (key_codec.h, so the table id first)
//   meta value := stamp (fixed64 BE)
// written in the item's batch, and kept after a delete (a tombstone's stamp: an older put
// arriving later must not bring the item back) until the table goes. The stamp also goes
// into the change's stream record (streams.h), which is where the replication layer reads it.
// Stamps: milliseconds since the epoch in the high 48 bits, a counter in the low 16; one clock
// for every engine of the process, so no two writes get the same stamp, and a write's stamp
// is greater than its item's (whatever clock wrote that).
//
// How far this Region's changes reached each other Region:
//   meta key   := "repcp/" | table id (fixed32 BE) | region name
//   meta value := position (fixed64 BE, ReadReplicationLog's)
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/types.h"

namespace ddb {

std::string ReplicationStampKey(std::string_view item_key);
std::string EncodeReplicationStamp(uint64_t stamp);
std::optional<uint64_t> DecodeReplicationStamp(std::string_view value);
// The range of a table's stamps (DeleteTable removes it).
std::string ReplicationStampPrefix(uint32_t table_id);
std::string ReplicationStampPrefixEnd(uint32_t table_id);
std::string ReplicationCheckpointKey(uint32_t table_id, std::string_view region);
std::string ReplicationCheckpointPrefix(uint32_t table_id);
std::string ReplicationCheckpointPrefixEnd(uint32_t table_id);

// The key attributes encoded in an item key (key_codec.h) of a table described by `d`;
// false for bytes that are not one.
bool KeyAttributesOfItemKey(const TableDescription& d, std::string_view item_key, Item* key);

// A stamp greater than `floor` and than every stamp issued before in this process, at or
// after `now_ms` in its high bits.
uint64_t NextStamp(uint64_t now_ms, uint64_t floor);

}  // namespace ddb
