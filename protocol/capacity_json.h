// ReturnConsumedCapacity in, ConsumedCapacity out. Internal to protocol/.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/capacity.h"
#include "protocol/json_reader.h"
#include "protocol/json_writer.h"

namespace ddb::protocol {

// ReturnConsumedCapacity: INDEXES, TOTAL or NONE (absent: NONE); other values are
// violations.
Result<ReturnConsumedCapacity> ReadReturnConsumedCapacity(const JsonObject& request, Violations* v);

// Writes "ConsumedCapacity": {...} (TOTAL: TableName and CapacityUnits; INDEXES: also the
// Table / LocalSecondaryIndexes / GlobalSecondaryIndexes breakdown), or nothing.
void WriteConsumedCapacity(JsonWriter& w, const std::optional<ConsumedCapacity>& c,
                           ReturnConsumedCapacity mode);
// The list form of batch and transaction responses.
void WriteConsumedCapacityList(JsonWriter& w, const std::vector<ConsumedCapacity>& list,
                               ReturnConsumedCapacity mode);

}  // namespace ddb::protocol
