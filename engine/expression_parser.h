// Recursive-descent parser for DynamoDB expressions: text -> parse tree (expression_ast.h),
// with #name and :value placeholders left unresolved. Only the grammar is checked here;
// function names, reserved words, placeholders and operand types are checked when the tree
// is compiled. Parsed trees are cached by (kind, text), so a hot request parses once.
// Thread safety: all functions may be called concurrently; returned trees are immutable.
#pragma once

#include <memory>
#include <string_view>

#include "engine/error.h"
#include "engine/expression_ast.h"

namespace ddb::expr {

// Condition grammar (ConditionExpression, FilterExpression, KeyConditionExpression); "kind"
// names the request member in messages.
// Errors (kValidation):
//   "Invalid <kind>: The expression can not be empty;"
//   "Invalid <kind>: Syntax error; token: \"<tok>\", near: \"<text>\""
Result<std::shared_ptr<const Condition>> ParseCondition(std::string_view text,
                                                        std::string_view kind);
// UpdateExpression grammar. Errors as ParseCondition.
Result<std::shared_ptr<const ParsedUpdate>> ParseUpdate(std::string_view text);
// ProjectionExpression grammar. Errors as ParseCondition.
Result<std::shared_ptr<const ParsedProjection>> ParseProjection(std::string_view text);

// Number of cached parse results (for tests), and a way to empty the cache.
size_t ParseCacheSize();
void ClearParseCache();

}  // namespace ddb::expr
