// Recursive-descent parser for DynamoDB expressions: text -> parse tree (expression_ast.h),
// with #name and :value placeholders left unresolved. Only the grammar is checked here;
// function names, reserved words, placeholders and operand types are checked when the tree
// is compiled. Parsed trees are cached by (kind, text), so a hot request parses once.
// Thread safety: all functions may be called concurrently; returned trees are immutable.
#pragma once

#include <memory>
#include <string_view>

#include "ddb/error.h"
#include "engine/expression/expression_ast.h"

namespace ddb::expr {

// Condition grammar (ConditionExpression, FilterExpression, KeyConditionExpression); "kind"
// names the request member in messages.
// Errors (kValidation):
//   "Invalid <kind>: The expression can not be empty;"
//   "Invalid <kind>: Syntax error; token: \"<tok>\", near: \"<text>\""
// `check`, when given, runs once on a freshly parsed tree and its error is cached as the
// result of the parse: for the rules that depend on the text alone (the compiler's first
// checks), so that a hot request does not re-run them. Parses of one text under
// different checks (or none) are cached apart.
using TreeCheck = Status (*)(const Condition& tree, std::string_view kind);
Result<std::shared_ptr<const Condition>> ParseCondition(std::string_view text,
                                                        std::string_view kind,
                                                        TreeCheck check = nullptr);
// UpdateExpression grammar. Errors as ParseCondition.
Result<std::shared_ptr<const ParsedUpdate>> ParseUpdate(std::string_view text);
// ProjectionExpression grammar. Errors as ParseCondition.
Result<std::shared_ptr<const ParsedProjection>> ParseProjection(std::string_view text);

// Number of cached parse results (for tests), and a way to empty the cache.
size_t ParseCacheSize();
void ClearParseCache();

}  // namespace ddb::expr
