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

// Everything CreateTable checks before it creates anything. Errors: kValidation.
Status ValidateCreateTable(const CreateTableRequest& req);

}  // namespace ddb
