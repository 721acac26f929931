// Global tables' members of the table operations (docs/global-tables.md): UpdateTable's
// ReplicaUpdates read, and the table description's Replicas and GlobalTableVersion written.
// Internal to protocol/.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <vector>

#include "ddb/types.h"
#include "protocol/handler.h"
#include "protocol/json_reader.h"
#include "protocol/json_writer.h"

namespace ddb::protocol {

// ReplicaUpdates, MultiRegionConsistency and GlobalTableWitnessUpdates (nullopt when none is
// present), checked as the service checks the request: each element one action with its
// RegionName. (How many Creates and Deletes a table may take depends on it: the
// coordinator's.) Errors: kValidation.
Result<std::optional<ReplicaChanges>> ReadReplicaChanges(const JsonObject& request);

// "Replicas" and "GlobalTableVersion", when the table has replicas.
void WriteReplicas(JsonWriter& w, const TableDescription& d);

}  // namespace ddb::protocol
