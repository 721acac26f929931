// DynamoDB's legacy (pre-expression) request parameters, translated into the expression
// forms the engine compiles (expression.h):
//   Expected + ConditionalOperator -> ConditionExpression (PutItem, DeleteItem, UpdateItem);
//   AttributeUpdates -> UpdateExpression (UpdateItem);
//   KeyConditions -> KeyConditionExpression (Query);
//   QueryFilter / ScanFilter + ConditionalOperator -> FilterExpression (Query / Scan).
// Attribute names and values go through generated placeholders ("#l0", ":l0", ...), so any
// attribute name works (reserved words, dots) and values are never printed into text. A
// request may not mix legacy and expression parameters, so generated placeholders only
// share a request with user ones in the one allowed mix (KeyConditions with a
// FilterExpression or ProjectionExpression); they then skip the user's keys.
// Rules and messages: AWS API reference, "Legacy conditional parameters" (Expected,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter, ConditionalOperator), as pinned by
// tests/wire/test_legacy_parameters.py.
// Internal to protocol/. Thread safety: pure functions over the request.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/attribute_value.h"
#include "ddb/error.h"
#include "ddb/types.h"
#include "protocol/json_reader.h"

namespace ddb::protocol {

// The placeholders generated for one request's legacy parameters.
class LegacyPlaceholders {
 public:
  // "taken_names" / "taken_values": the request's own placeholders (may be null); generated
  // keys never collide with them.
  explicit LegacyPlaceholders(const std::map<std::string, std::string>* taken_names = nullptr,
                              const Item* taken_values = nullptr)
      : taken_names_(taken_names), taken_values_(taken_values) {}

  // The name placeholder for top-level attribute "attribute" (the same one every time).
  std::string Name(std::string_view attribute);
  // A new value placeholder for "value".
  std::string Value(AttributeValue value);

  const std::map<std::string, std::string>& names() const { return names_; }
  const Item& values() const { return values_; }

 private:
  const std::map<std::string, std::string>* taken_names_;
  const Item* taken_values_;
  std::map<std::string, std::string> names_;         // "#l0" -> attribute
  std::map<std::string, std::string> by_attribute_;  // attribute -> "#l0"
  Item values_;                                      // ":l0" -> value
  int next_name_ = 0;
  int next_value_ = 0;
};

// Each Translate* returns the expression text, or nullopt when the member is absent or an
// empty map. Errors: kValidation with the service's messages (operator arity and operand
// types, Exists/Value rules, ConditionalOperator rules, ...), kSerialization (wrong JSON
// types).

// Expected, joined by ConditionalOperator (default AND) -> a ConditionExpression.
Result<std::optional<std::string>> TranslateExpected(const JsonObject& request,
                                                     LegacyPlaceholders* placeholders);
// "member" (QueryFilter or ScanFilter), joined by ConditionalOperator -> a FilterExpression.
Result<std::optional<std::string>> TranslateFilter(const JsonObject& request,
                                                   std::string_view member,
                                                   LegacyPlaceholders* placeholders);
// KeyConditions -> a KeyConditionExpression. Checks what needs no key schema (1 or 2
// conditions, indexable operators); the engine checks the conditions against the schema.
Result<std::optional<std::string>> TranslateKeyConditions(const JsonObject& request,
                                                          LegacyPlaceholders* placeholders);
// AttributeUpdates -> an UpdateExpression (PUT -> SET, DELETE -> REMOVE or DELETE,
// ADD -> ADD, or list_append for lists).
Result<std::optional<std::string>> TranslateAttributeUpdates(const JsonObject& request,
                                                             LegacyPlaceholders* placeholders);

// Request-level wiring. Each refuses a request mixing legacy and expression parameters
// ("Can not use both expression and non-expression parameters in the same request: ..."),
// translates the legacy members present into the engine request's expression fields and
// adds the generated placeholders to its ExpressionAttributeNames/Values.

// PutItem and DeleteItem (update_expression null) or UpdateItem (update_expression is the
// request's UpdateExpression field, filled from AttributeUpdates).
Status ApplyLegacyWriteParameters(const JsonObject& request, ConditionalWrite* write,
                                  std::optional<std::string>* update_expression);
// Query: KeyConditions -> key_condition_expression (left as is when absent), QueryFilter ->
// filter_expression.
Status ApplyLegacyQueryParameters(const JsonObject& request, QueryRequest* query);
// Scan: ScanFilter -> filter_expression.
Status ApplyLegacyScanParameters(const JsonObject& request, ScanRequest* scan);

// An engine error of a Query, worded for the request: with a QueryFilter, a filter on a
// key attribute is reported as "QueryFilter can only contain non-primary key attributes:
// Primary key attribute: <name>".
Error LegacyQueryError(const JsonObject& request, const Error& error);

}  // namespace ddb::protocol
