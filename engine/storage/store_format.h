// The versions of everything ddb keeps on disk, in one place, and the store's format record.
// Each on-disk structure carries its own version where it is stored, so a build can tell data
// it understands from data a newer build wrote:
//   store        meta "format" -> kStoreFormat (fixed32 BE) | the writer ("ddb 0.1.0")
//   table record its "Format" attribute (kTableRecordFormat; absent: 1)
//   item keys    the table record's "KeyFormat" (kTableKeyFormat; absent: 1)
//   index keys   each index definition's "KeyFormat" in the table record (kIndexKeyFormat;
//                absent: 1), the table's key format
//   items        the item codec's leading version byte (stored_item.h), in items, index
//                entries' projected items and change records' images
//   change log   change records' leading version byte (kChangeRecordFormat, change_log.h),
//                in the changes family and in stream records
//   history      history records' leading version byte (kHistoryRecordFormat, history.h)
//   backups      backup records' "Format" attribute (kBackupRecordFormat, backup_registry.h)
// A newer version anywhere refuses the open (nothing is changed); older ones are read as they
// are, or upgraded at open where a layout changed (none has yet).
// Thread safety: CheckStoreFormat runs once, at open, before anything else reads the store.
#pragma once

#include <cstdint>
#include <string>

#include "ddb/error.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/storage.h"

namespace ddb {

// 1: the stores of ddb up to 2026-12-01, without a format record (read as 2 unchanged).
// 2: the format record, versioned table, index and change records.
// 3: the history column family and backup records (backups and point-in-time recovery); a
//    format 2 store opens as it is (the family is created, empty) and is marked 3.
// 4: the kinesis column family (Kinesis Data Streams' records, engine/kinesis/); a format 3
//    store opens as it is (the family is created, empty) and is marked 4.
inline constexpr uint32_t kStoreFormat = 4;
// Table records: 1 (key format 1, readable by every build), 2 (a "KeyFormat" member) or 3 (a
// global table's: "Replicas", and stream records carrying replication stamps, streams.h).
inline constexpr int64_t kTableRecordFormat = 3;
inline constexpr int64_t kTableRecordFormatBeforeReplicas = 2;
// Key formats (key_codec.h): 1 hashes partition keys with XXH3; 2 with the service's hash, so
// that Scan order and parallel-scan segments are the service's. A table keeps the format it
// was created with (a restore takes its source's); its indexes have the table's.
inline constexpr int kTableKeyFormat = kKeyFormatServiceOrder;
inline constexpr int64_t kIndexKeyFormat = kKeyFormatServiceOrder;
// Vector index definitions in the table record (catalog.cc "VectorIndexes", each entry's
// "Format"). Their contents are never persisted (rebuilt from the items at open).
inline constexpr int64_t kVectorIndexFormat = 1;

// Checks the store's format record and writes today's where there is none (a new store, or
// one of format 1). Errors: kInternal "... has on-disk format N, newer than this build's 2
// ..." for a store a newer build wrote, or an unreadable record; nothing is written then.
Status CheckStoreFormat(Storage* storage);

// The error for a structure newer than this build reads (table records, indexes).
Error NewerFormat(const std::string& what, int64_t found, int64_t known);

}  // namespace ddb
