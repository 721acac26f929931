// DynamoDB expressions: ConditionExpression, FilterExpression, KeyConditionExpression,
// ProjectionExpression and UpdateExpression. Three stages, as in the service:
//   compile  = parse the text (cacheable by text) + resolve #name/:value placeholders,
//              recording which placeholders were used; all syntax and static type errors
//              are found here, before any item is read;
//   evaluate = pure functions of (compiled expression, item), safe to run more than once.
// Messages follow the service, e.g.
//   Invalid ConditionExpression: Syntax error; token: "<tok>", near: "<text>"
//   Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status
//   Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}
// Thread safety: compiled expressions are immutable and may be shared between threads.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/error.h"

namespace ddb {

// The request's ExpressionAttributeNames / ExpressionAttributeValues, and which of them the
// compiled expressions used (one Placeholders object per request, shared by all of its
// expressions, so that "unused" can be reported for the request as a whole).
struct Placeholders {
  const std::map<std::string, std::string>* names = nullptr;  // "#n" -> "name"; may be null
  const Item* values = nullptr;                               // ":v" -> value; may be null
  std::set<std::string> used_names;
  std::set<std::string> used_values;
  // The values the expressions refer to, each copied once (Operand::value).
  std::map<std::string, std::shared_ptr<const AttributeValue>, std::less<>> resolved_values;
};

// After compiling every expression of a request: kValidation when a name or value was
// provided but not used ("Value provided in ExpressionAttribute{Names,Values} unused in
// expressions: keys: {...}").
Status CheckAllPlaceholdersUsed(const Placeholders& p);

// ExpressionAttributeNames/Values given to a request with no expression that could use
// them. "value_expressions" names the request's expressions that take values, for the
// message, e.g. "UpdateExpression and ConditionExpression" ("... are null") or
// "ConditionExpression" ("... is null"). Errors: kValidation.
Status CheckPlaceholdersNeedExpressions(bool has_names, bool has_values, bool any_expression,
                                        bool any_value_expression,
                                        std::string_view value_expressions);

// A document path: a top-level attribute name followed by map keys and list indexes.
struct PathElement {
  std::string name;  // map key (or top-level attribute) when index < 0
  int index = -1;    // list index when >= 0
};
using DocumentPath = std::vector<PathElement>;

// Reads the value at "path" in "item"; null when absent (or the path does not fit).
const AttributeValue* ResolvePath(const Item& item, const DocumentPath& path);

class CompiledCondition;  // opaque AST of a condition / filter
class CompiledUpdate;     // opaque AST of an update expression
using ConditionPtr = std::shared_ptr<const CompiledCondition>;
using UpdatePtr = std::shared_ptr<const CompiledUpdate>;

// "kind" names the request member in messages: "ConditionExpression" or "FilterExpression".
// Errors: kValidation (syntax, reserved words, undefined placeholders, bad operand types
// known statically, IN with more than 100 operands, paths deeper than 32, empty text).
// `legacy`: the text translates legacy conditions (ScanFilter, QueryFilter), which the
// service holds to no operator or IN-operand count.
Result<ConditionPtr> CompileCondition(std::string_view text, std::string_view kind,
                                      Placeholders* placeholders, bool legacy = false);
// Whether "item" (null when the item does not exist) satisfies the condition. Comparisons
// across types are false, never errors.
bool EvaluateCondition(const CompiledCondition& condition, const Item* item);

// Whether the condition refers to the top-level attribute "name" anywhere (used to refuse
// key attributes in a Query's FilterExpression). [added by the lead for read_path.cc]
bool ConditionReferences(const CompiledCondition& condition, const std::string& name);

// The top-level attribute names the condition refers to, each once, in order of appearance.
std::vector<std::string> ConditionAttributeNames(const CompiledCondition& condition);

// Errors: kValidation (syntax, overlapping/conflicting paths, ...).
Result<UpdatePtr> CompileUpdate(std::string_view text, Placeholders* placeholders);
// Top-level attribute names the update writes or removes (to reject key updates and to
// compute UPDATED_OLD/UPDATED_NEW).
std::vector<DocumentPath> UpdatedPaths(const CompiledUpdate& update);
// Whether the update only takes things away (REMOVE, DELETE): on a missing item such an
// update creates nothing, as in the service.
bool UpdateOnlyRemoves(const CompiledUpdate& update);
// What UpdateItem's item-size rule charges for the update's actions, in bytes, on top of
// the attributes they write (write_path.cc, UpdateItemSizeFits, has the rule and its record).
size_t UpdateActionsCost(const CompiledUpdate& update);
// Applies the update to *item (which starts as the old item, or as just the key for a new
// one). Errors: kValidation for operand type errors found at run time ("An operand in the
// update expression has an incorrect data type", "The document path provided in the
// update expression is invalid for update", number overflow, ...).
Status ApplyUpdate(const CompiledUpdate& update, Item* item);

// A compiled ProjectionExpression: the paths to keep.
struct Projection {
  std::vector<DocumentPath> paths;
};
// Errors: kValidation (syntax, overlapping paths "Two document paths overlap with each
// other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]").
Result<Projection> CompileProjection(std::string_view text, Placeholders* placeholders);
// The parts of "item" selected by the projection (nested paths keep their structure; list
// elements selected by index keep their relative order).
Item ApplyProjection(const Projection& projection, const Item& item);

// A compiled KeyConditionExpression, checked against the key attributes of the table or
// index being queried.
struct KeyCondition {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };
  std::string hash_name;
  AttributeValue hash_value;
  std::optional<Op> sort_op;  // none: the whole partition
  std::string sort_name;
  AttributeValue sort_value;   // first operand
  AttributeValue sort_value2;  // BETWEEN's upper bound
  // Multi-attribute keys (GSIs with several HASH/RANGE attributes): every HASH attribute's
  // value in key-schema order, and equalities on the leading RANGE attributes; sort_op then
  // applies to the RANGE attribute after them (sort_name). Single-attribute keys fill
  // hash_values with hash_value and leave sort_prefix empty.
  std::vector<AttributeValue> hash_values;
  std::vector<AttributeValue> sort_prefix;
};
// What CompileKeyCondition checks without the key schema: the syntax, the operators and
// one condition per attribute. Marks the placeholders it uses. Errors: kValidation.
Status CheckKeyConditionForm(std::string_view text, Placeholders* placeholders);

// "hash_key" / "range_key" (null when none) and their types are those of the table or
// index. Errors: kValidation with the service's messages (e.g. "Query condition missed key
// schema element: pk", "Query key condition not supported", "Invalid operator used in
// KeyConditionExpression: OR", type mismatches, begins_with on a number).
Result<KeyCondition> CompileKeyCondition(std::string_view text, const std::string& hash_key,
                                         AttributeType hash_type, const std::string* range_key,
                                         AttributeType range_type, Placeholders* placeholders);

// The same for a key of several attributes (up to 4 HASH and 4 RANGE): equality on every
// HASH attribute; on the RANGE attributes, equalities on a leading run and at most one
// other condition (a range or begins_with) on the attribute right after it.
using KeyAttributes = std::vector<std::pair<std::string, AttributeType>>;
Result<KeyCondition> CompileKeyCondition(std::string_view text, const KeyAttributes& hash_attrs,
                                         const KeyAttributes& range_attrs,
                                         Placeholders* placeholders);

}  // namespace ddb
