// Checks of CreateTable requests with DynamoDB's messages. Shape constraints (lengths,
// patterns; ddb/limits.h) are reported in the service's "N validation errors detected:
// Value '...' at '<path>' failed to satisfy constraint: ..." form (ValidationErrors,
// ddb/error.h); the rules that span fields come after.
// Thread safety: pure functions.
#pragma once

#include "ddb/error.h"
#include "ddb/limits.h"
#include "ddb/types.h"

namespace ddb {

// Limits on secondary indexes per table.
inline constexpr size_t kMaxLocalIndexes = 5;
inline constexpr size_t kMaxGlobalIndexes = 20;

// How the service starts the messages of invalid parameter combinations.
inline const std::string kInvalidParameters = "One or more parameter values were invalid: ";

// A GSI's throughput against the table's billing mode (provisioned tables need it, on-demand
// ones refuse it), for CreateTable and for a GSI added by UpdateTable. Errors: kValidation.
Status CheckIndexThroughput(BillingMode mode, const SecondaryIndexDefinition& index);

// UpdateTable: every key attribute of a GSI it creates is defined in the request's own
// AttributeDefinitions (the table's are not enough, as the service checks). Errors:
// kValidation.
Status CheckNewIndexKeysDefined(const UpdateTableRequest& req);

// Everything CreateTable checks before it creates anything. Errors: kValidation.
Status ValidateCreateTable(const CreateTableRequest& req);

}  // namespace ddb
