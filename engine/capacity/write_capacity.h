// The capacity a write of one item consumes in its table and indexes (the rules are in
// ddb/capacity.h). Internal. Thread safety: pure function.
#pragma once

#include <cstdint>
#include <optional>

#include "ddb/capacity.h"
#include "engine/catalog.h"

namespace ddb {

// The sizes (ItemSize) of a write's old and new items; -1: no such item.
struct WriteSizes {
  int64_t old_size = -1;
  int64_t new_size = -1;
};

// "transactional" doubles the table's share only: an index's share costs inside a
// transaction what it costs outside one (as the service reports it, per captures of its
// answers). Returns the items' sizes it measured, for a caller that needs them again
// (ChargeWrite).
WriteSizes AddWriteCapacity(const TableInfo& table, const std::optional<Item>& old_item,
                            const std::optional<Item>& new_item, bool transactional,
                            ConsumedCapacity* out);

}  // namespace ddb
