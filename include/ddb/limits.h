// DynamoDB's limits on items and keys, and its rule for table and index names, as the engine
// enforces them. Thread safety: constants and pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

inline constexpr size_t kMaxItemSize = 400 * 1024;    // bytes of names and values
inline constexpr size_t kMaxPartitionKeySize = 2048;  // bytes
inline constexpr size_t kMaxSortKeySize = 1024;       // bytes
inline constexpr int kMaxNestingDepth = 32;           // levels of lists and maps

// The table name in a table ARN ("arn:aws:dynamodb:<region>:<account>:table/<name>", at
// most 1024 characters), which the service accepts wherever a table name goes; anything
// else as it is.
std::string_view TableNameOf(std::string_view name_or_arn);

// Appends the constraint violations of a table or index name (3 to 255 characters of
// [a-zA-Z0-9_.-]) in the service's wording, one string per violation; "path" is the request
// member, e.g. "tableName". ValidationErrors (ddb/error.h) makes them one error.
void TableNameViolations(std::string_view name, std::string_view path,
                         std::vector<std::string>* violations);

}  // namespace ddb

#pragma GCC visibility pop
