// Checks of CreateTable requests with DynamoDB's messages. Shape constraints (lengths,
// patterns) are reported in the service's "N validation errors detected: Value '...' at
// '<path>' failed to satisfy constraint: ..." form; the rules that span fields come after.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/types.h"

namespace ddb {

// Appends the constraint violations of a table or index name ("path" is the request
// member, e.g. "tableName") in the service's wording, one string per violation.
void TableNameViolations(std::string_view name, std::string_view path,
                         std::vector<std::string>* violations);

// "1 validation error detected: v1" or "2 validation errors detected: v1; v2".
Error ValidationErrors(const std::vector<std::string>& violations);

// Everything CreateTable checks before it creates anything. Errors: kValidation.
Status ValidateCreateTable(const CreateTableRequest& req);

}  // namespace ddb
