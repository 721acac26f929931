// The memtables' sorted structure, for every column family of a store: a skip list with one
// writer at a time and readers that take no lock (RocksDB's MemTableRep interface).
//
// Why not RocksDB's own (SkipListFactory): Debian builds librocksdb with assertions enabled,
// and the assertions in its skip list's search compare two more keys at every step, so two
// thirds of the key comparisons of every point read and every insert were checks (callgrind:
// 72 comparisons per GetItem at 20k items, 24 of them the search's own). This one is the
// same structure without them. It takes one inserting thread at a time, so stores open with
// allow_concurrent_memtable_write off: RocksDB's write group leader then inserts the whole
// group's entries itself.
//
// For column families whose user keys are in byte order (KeyOrder in storage.cc): entries of
// different user keys are ordered by their bytes here, versions of one key by RocksDB's
// comparator.
#pragma once

#include <memory>

namespace rocksdb {
class MemTableRepFactory;
}

namespace ddb {

std::shared_ptr<rocksdb::MemTableRepFactory> NewMemtableSkipListFactory();

}  // namespace ddb
