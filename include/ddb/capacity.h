// Consumed capacity by the service's rules
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
//   reads  : 4 KB units of the item size (Query/Scan: of the page's total), at least one;
//            eventually consistent reads cost half, transactional reads double;
//   writes : 1 KB units of the larger of the old and new item, at least one (a delete of a
//            missing item costs 1); transactional writes double;
//   indexes: each index whose entry a write adds, changes or removes costs a write of the
//            entry's size; an index-key change is a delete plus a put.
// The write of one item to a table and its indexes is accounted inside the engine.
// Thread safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/enum_names.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

enum class ReturnConsumedCapacity : uint8_t { kNone, kTotal, kIndexes };
template <>
struct EnumNames<ReturnConsumedCapacity> {
  static constexpr std::string_view kNames[] = {"NONE", "TOTAL", "INDEXES"};
};

struct ConsumedCapacity {
  ConsumedCapacity() = default;
  explicit ConsumedCapacity(std::string name) : table_name(std::move(name)) {}

  std::string table_name;
  double capacity_units = 0;  // table + indexes
  double read_capacity_units = 0;
  double write_capacity_units = 0;
  double table_units = 0;
  std::map<std::string, double> local_secondary_indexes;
  std::map<std::string, double> global_secondary_indexes;

  void AddTable(double units, bool write);
  void AddIndex(const std::string& index, bool global, double units, bool write);
  // Adds another request's consumption on the same table.
  void Merge(const ConsumedCapacity& other);
};

// Units of one read of "bytes" (at least one 4 KB unit).
double ReadUnits(size_t bytes, bool consistent, bool transactional = false);
// Units of one write of "bytes" (at least one 1 KB unit).
double WriteUnits(size_t bytes, bool transactional = false);

}  // namespace ddb

#pragma GCC visibility pop
