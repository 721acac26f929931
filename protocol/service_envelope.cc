#include "protocol/service_envelope.h"

#include <algorithm>
#include <span>
#include <string>

namespace ddb::protocol {
namespace {

using Operations = std::span<const std::string_view>;

constexpr std::string_view kSingleItemWrites[] = {"PutItem", "UpdateItem", "DeleteItem"};
constexpr std::string_view kQueryAndScan[] = {"Query", "Scan"};
constexpr std::string_view kQueryAndTransactWrite[] = {"Query", "TransactWriteItems"};

// A message family: the bare messages that start with `prefix`.
struct Family {
  std::string_view prefix;
  Operations operations;
  // true: the family is enveloped everywhere but in `operations`.
  bool except = false;
  // true: the 2026 text is the prefix alone (the service dropped what followed it).
  bool prefix_only = false;
};

const Family kFamilies[] = {
    // Expressions the single-item writes compile (syntax, empty, undefined placeholders,
    // redundant parentheses, repeated sections, overlapping paths, ...).
    {"Invalid ConditionExpression: ", kSingleItemWrites},
    {"Invalid UpdateExpression: ", kSingleItemWrites},
    // Placeholders: defined but unused; given without an expression; an empty map.
    {"Value provided in ExpressionAttributeNames unused in expressions: ", kQueryAndTransactWrite,
     true},
    {"Value provided in ExpressionAttributeValues unused in expressions: ", kQueryAndTransactWrite,
     true},
    {"ExpressionAttributeNames can only be specified when using expressions", kSingleItemWrites,
     false, true},
    {"ExpressionAttributeValues can only be specified when using expressions", kSingleItemWrites,
     false, true},
    {"ExpressionAttributeNames must not be empty", kSingleItemWrites},
    {"ExpressionAttributeValues must not be empty", kSingleItemWrites},
    // Legacy parameters beside expressions, and malformed Expected conditions.
    {"Can not use both expression and non-expression parameters", kSingleItemWrites},
    {"One or more parameter values were invalid: Value and AttributeValueList cannot be used "
     "together",
     kSingleItemWrites},
    {"One or more parameter values were invalid: Exists and ComparisonOperator cannot be "
     "used together",
     kSingleItemWrites},
    {"One or more parameter values were invalid: Value or AttributeValueList must be used "
     "with ComparisonOperator",
     kSingleItemWrites},
    {"One or more parameter values were invalid: AttributeValueList can only be used with a "
     "ComparisonOperator",
     kSingleItemWrites},
    {"One or more parameter values were invalid: Value must be provided when Exists is",
     kSingleItemWrites},
    {"One or more parameter values were invalid: Value cannot be used when Exists is false",
     kSingleItemWrites},
    {"One or more parameter values were invalid: Invalid number of argument(s) for the ",
     kSingleItemWrites},
    {"One or more parameter values were invalid: AttributeValues inside AttributeValueList "
     "must be of same type",
     kSingleItemWrites},
    {"One or more parameter values were invalid: ComparisonOperator ", kSingleItemWrites},
    {"The BETWEEN condition was provided a range where the lower bound is greater than the "
     "upper bound",
     kSingleItemWrites},
    {"ReturnValues can only be ALL_OLD or NONE", kSingleItemWrites},
    // Select against the projection and the index.
    {"Cannot specify the ", kQueryAndScan},
    {"ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName", kQueryAndScan},
    {"Must specify the AttributesToGet or ProjectionExpression when choosing to get "
     "SPECIFIC_ATTRIBUTES",
     kQueryAndScan},
};

}  // namespace

Error InServiceEnvelope(std::string_view operation, Error error) {
  if (error.code() != ErrorCode::kValidation || InValidationEnvelope(error)) return error;
  const std::string& message = error.message();
  for (const Family& f : kFamilies) {
    if (!message.starts_with(f.prefix)) continue;
    bool listed =
        std::find(f.operations.begin(), f.operations.end(), operation) != f.operations.end();
    if (listed == f.except) return error;
    return ValidationErrors({f.prefix_only ? std::string(f.prefix) : message});
  }
  return error;
}

}  // namespace ddb::protocol
