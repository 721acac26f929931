// The capacity a write of one item consumes in its table and indexes (the rules are in
// ddb/capacity.h). Internal. Thread safety: pure function.
#pragma once

#include <optional>

#include "ddb/capacity.h"
#include "engine/catalog.h"

namespace ddb {

void AddWriteCapacity(const TableInfo& table, const std::optional<Item>& old_item,
                      const std::optional<Item>& new_item, bool transactional,
                      ConsumedCapacity* out);

}  // namespace ddb
