// ReturnConsumedCapacity in, ConsumedCapacity out. Internal to protocol/.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ddb/capacity.h"
#include "ddb/types.h"
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
// Which units a response reports besides CapacityUnits. Single-item, Query/Scan and batch
// responses report CapacityUnits alone; transactional ones split them (as observed on the
// service): TransactWriteItems as WriteCapacityUnits, TransactGetItems and a replayed
// TransactWriteItems (same ClientRequestToken) as ReadCapacityUnits, at the top level and
// in the INDEXES Table breakdown.
enum class CapacitySplit { kNone, kRead, kWrite };

// The list form of batch and transaction responses.
void WriteConsumedCapacityList(JsonWriter& w, const std::vector<ConsumedCapacity>& list,
                               ReturnConsumedCapacity mode,
                               CapacitySplit split = CapacitySplit::kNone);

// One ItemCollectionMetrics object: {"ItemCollectionKey": ..., "SizeEstimateRangeGB": [..]}.
void WriteItemCollectionMetrics(JsonWriter& w, const ItemCollectionMetrics& m);
// "ItemCollectionMetrics": {table: [...]} of batch and transaction responses, or nothing
// when empty.
void WriteItemCollectionMetricsMap(
    JsonWriter& w, const std::vector<TableEntry<std::vector<ItemCollectionMetrics>>>& metrics);

}  // namespace ddb::protocol
