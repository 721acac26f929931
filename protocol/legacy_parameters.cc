#include "protocol/legacy_parameters.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <vector>

#include "ddb/number.h"
#include "protocol/attribute_value_json.h"
#include "protocol/operations.h"
#include "util/ascii.h"

namespace ddb::protocol {
namespace {

const std::string kInvalid = "One or more parameter values were invalid: ";

// ComparisonOperator, in the order the service lists its enum values.
enum class Op {
  kIn,
  kNull,
  kBetween,
  kLt,
  kNotContains,
  kEq,
  kGt,
  kNotNull,
  kNe,
  kLe,
  kBeginsWith,
  kGe,
  kContains,
};

constexpr std::array<std::pair<std::string_view, Op>, 13> kOps = {{
    {"IN", Op::kIn},
    {"NULL", Op::kNull},
    {"BETWEEN", Op::kBetween},
    {"LT", Op::kLt},
    {"NOT_CONTAINS", Op::kNotContains},
    {"EQ", Op::kEq},
    {"GT", Op::kGt},
    {"NOT_NULL", Op::kNotNull},
    {"NE", Op::kNe},
    {"LE", Op::kLe},
    {"BEGINS_WITH", Op::kBeginsWith},
    {"GE", Op::kGe},
    {"CONTAINS", Op::kContains},
}};
constexpr std::string_view kOpEnum =
    "IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS";

std::optional<Op> ParseOp(std::string_view text) {
  for (const auto& [name, op] : kOps) {
    if (name == text) return op;
  }
  return std::nullopt;
}

std::string_view OpName(Op op) {
  for (const auto& [name, o] : kOps) {
    if (o == op) return name;
  }
  return "";
}

// One legacy condition on a top-level attribute.
struct Condition {
  std::string attribute;
  Op op = Op::kEq;
  std::vector<AttributeValue> values;
};

// "keyConditions.<attr>.member.comparisonOperator": the path of a violation, as the
// service's request model names it.
std::string MemberPath(std::string_view member, std::string_view attribute,
                       std::string_view field) {
  std::string path(member);
  if (!path.empty()) path[0] = util::AsciiLower(path[0]);
  return path + "." + std::string(attribute) + ".member." + std::string(field);
}

Status Violation(std::string text) {
  Violations v;
  v.Add(std::move(text));
  return v.ToStatus();
}

bool ArityFits(Op op, size_t n) {
  switch (op) {
    case Op::kNull:
    case Op::kNotNull:
      return n == 0;
    case Op::kIn:
      return n >= 1;
    case Op::kBetween:
      return n == 2;
    default:
      return n == 1;
  }
}

// The operand types each operator accepts. EQ and NE compare values of any type.
bool TypeFits(Op op, AttributeType t) {
  bool scalar = t == AttributeType::kS || t == AttributeType::kN || t == AttributeType::kB;
  switch (op) {
    case Op::kEq:
    case Op::kNe:
      return true;
    case Op::kBeginsWith:
      return t == AttributeType::kS || t == AttributeType::kB;
    default:
      return scalar;
  }
}

// Arity, one type for all operands, operand types, BETWEEN bounds in order.
Status CheckOperands(Op op, const std::vector<AttributeValue>& values) {
  if (!ArityFits(op, values.size())) {
    return Error::Validation(kInvalid + "Invalid number of argument(s) for the " +
                             std::string(OpName(op)) + " ComparisonOperator");
  }
  for (const AttributeValue& v : values) {
    if (v.type() != values[0].type()) {
      return Error::Validation(kInvalid +
                               "AttributeValues inside AttributeValueList must be of same type");
    }
  }
  for (const AttributeValue& v : values) {
    if (!TypeFits(op, v.type())) {
      return Error::Validation(kInvalid + "ComparisonOperator " + std::string(OpName(op)) +
                               " is not valid for " + std::string(AttributeTypeName(v.type())) +
                               " AttributeValue type");
    }
  }
  if (op == Op::kBetween) {
    const AttributeValue& low = values[0];
    const AttributeValue& high = values[1];
    int order = low.type() == AttributeType::kN ? CompareNumbers(low.scalar(), high.scalar())
                                                : low.scalar().compare(high.scalar());
    if (order > 0) {
      return Error::Validation(
          "The BETWEEN condition was provided a range where the lower bound is greater than the "
          "upper bound");
    }
  }
  return Status::Ok();
}

Result<JsonObject> EntryObject(const JsonElement& e, std::string_view member) {
  JsonObject obj;
  if (e.get(obj) != simdjson::SUCCESS) return WrongType(member, "a map of objects");
  return obj;
}

// An optional AttributeValue member of a condition.
Result<std::optional<AttributeValue>> ReadValue(const JsonObject& obj, std::string_view key) {
  JsonElement e;
  if (obj.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) {
    return std::optional<AttributeValue>();
  }
  DDB_ASSIGN_OR_RETURN(AttributeValue v, ParseAttributeValue(e));
  return std::optional<AttributeValue>(std::move(v));
}

// AttributeValueList: absent -> nullopt.
Result<std::optional<std::vector<AttributeValue>>> ReadValueList(const JsonObject& obj) {
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(obj, "AttributeValueList"));
  if (!arr) return std::optional<std::vector<AttributeValue>>();
  std::vector<AttributeValue> values;
  for (JsonElement e : *arr) {
    DDB_ASSIGN_OR_RETURN(AttributeValue v, ParseAttributeValue(e));
    values.push_back(std::move(v));
  }
  return std::optional<std::vector<AttributeValue>>(std::move(values));
}

// ComparisonOperator of an entry of "member"; nullopt when absent.
Result<std::optional<Op>> ReadOperator(const JsonObject& obj, std::string_view member,
                                       std::string_view attribute) {
  DDB_ASSIGN_OR_RETURN(auto text, GetString(obj, "ComparisonOperator"));
  if (!text) return std::optional<Op>();
  std::optional<Op> op = ParseOp(*text);
  if (!op) {
    return Violation("Value '" + std::string(*text) + "' at '" +
                     MemberPath(member, attribute, "comparisonOperator") +
                     "' failed to satisfy constraint: Member must satisfy enum value set: [" +
                     std::string(kOpEnum) + "]");
  }
  return op;
}

// An entry of KeyConditions, QueryFilter or ScanFilter (a Condition): ComparisonOperator is
// required, AttributeValueList holds the operands.
Result<Condition> ReadFilterCondition(std::string_view attribute, const JsonElement& e,
                                      std::string_view member) {
  DDB_ASSIGN_OR_RETURN(JsonObject obj, EntryObject(e, member));
  DDB_ASSIGN_OR_RETURN(std::optional<Op> op, ReadOperator(obj, member, attribute));
  if (!op) {
    return Violation("Value null at '" + MemberPath(member, attribute, "comparisonOperator") +
                     "' failed to satisfy constraint: Member must not be null");
  }
  DDB_ASSIGN_OR_RETURN(auto values, ReadValueList(obj));
  Condition c{std::string(attribute), *op,
              values ? std::move(*values) : std::vector<AttributeValue>()};
  DDB_RETURN_IF_ERROR(CheckOperands(c.op, c.values));
  return c;
}

// An entry of Expected (an ExpectedAttributeValue): either ComparisonOperator with
// AttributeValueList (or Value), or the older Value / Exists form.
Result<Condition> ReadExpectedCondition(std::string_view attribute, const JsonElement& e) {
  DDB_ASSIGN_OR_RETURN(JsonObject obj, EntryObject(e, "Expected"));
  DDB_ASSIGN_OR_RETURN(std::optional<Op> op, ReadOperator(obj, "Expected", attribute));
  DDB_ASSIGN_OR_RETURN(auto list, ReadValueList(obj));
  DDB_ASSIGN_OR_RETURN(auto value, ReadValue(obj, "Value"));
  DDB_ASSIGN_OR_RETURN(auto exists, GetBool(obj, "Exists"));
  const std::string for_attribute = " for Attribute: " + std::string(attribute);
  if (list && value) {
    return Error::Validation(kInvalid + "Value and AttributeValueList cannot be used together" +
                             for_attribute);
  }
  Condition c;
  c.attribute = std::string(attribute);
  if (op) {
    if (exists) {
      return Error::Validation(kInvalid + "Exists and ComparisonOperator cannot be used together" +
                               for_attribute);
    }
    if (*op != Op::kNull && *op != Op::kNotNull && !list && !value) {
      return Error::Validation(
          kInvalid + "Value or AttributeValueList must be used with ComparisonOperator: " +
          std::string(OpName(*op)) + for_attribute);
    }
    c.op = *op;
    if (list) c.values = std::move(*list);
    if (value) c.values.push_back(std::move(*value));
    DDB_RETURN_IF_ERROR(CheckOperands(c.op, c.values));
    return c;
  }
  if (list) {
    return Error::Validation(
        kInvalid + "AttributeValueList can only be used with a ComparisonOperator" + for_attribute);
  }
  if (exists.value_or(true)) {
    if (!value) {
      return Error::Validation(kInvalid + "Value must be provided when Exists is " +
                               (exists ? "true" : "null") + for_attribute);
    }
    c.op = Op::kEq;
    c.values.push_back(std::move(*value));
    return c;
  }
  if (value) {
    return Error::Validation(kInvalid + "Value cannot be used when Exists is false" +
                             for_attribute);
  }
  c.op = Op::kNull;
  return c;
}

// parts[begin, end) joined, each part in parentheses, grouped in halves: "((a) AND (b)) AND
// ((c) AND (d))". AND and OR are associative, so the grouping changes no answer, and a map of
// n conditions nests log2(n) deep: a flat "(a) AND (b) AND ..." parsed into a chain as deep as
// the map is long, which evaluating it walked recursively (25,000 ScanFilter entries overflowed
// the stack).
void AppendBalanced(const std::vector<std::string>& parts, size_t begin, size_t end,
                    std::string_view joiner, std::string* out) {
  if (end - begin == 1) {
    *out += "(" + parts[begin] + ")";
    return;
  }
  const size_t mid = begin + (end - begin) / 2;
  for (auto [b, e] : {std::pair{begin, mid}, std::pair{mid, end}}) {
    if (b != begin) *out += joiner;
    if (e - b > 1) *out += "(";
    AppendBalanced(parts, b, e, joiner, out);
    if (e - b > 1) *out += ")";
  }
}

std::string Join(const std::vector<std::string>& parts, std::string_view joiner) {
  if (parts.empty()) return std::string();  // not reached: every map and IN list has one
  if (parts.size() == 1) return parts[0];
  std::string out;
  AppendBalanced(parts, 0, parts.size(), joiner, &out);
  return out;
}

// The expression language's limit of operands after IN (a legacy filter is compiled without
// it, the other legacy conditions with it).
constexpr size_t kExpressionInOperands = 100;

// The condition as expression text; an IN of more than `per_in` values as an OR of INs.
std::string ConditionText(Condition c, LegacyPlaceholders* p, size_t per_in) {
  const std::string n = p->Name(c.attribute);
  std::vector<std::string> v;
  for (AttributeValue& value : c.values) v.push_back(p->Value(std::move(value)));
  auto compare = [&](std::string_view symbol) {
    return n + " " + std::string(symbol) + " " + v[0];
  };
  switch (c.op) {
    case Op::kEq:
      return compare("=");
    case Op::kNe:
      // Also true when the attribute is missing, as the legacy NE is.
      return compare("<>");
    case Op::kLe:
      return compare("<=");
    case Op::kLt:
      return compare("<");
    case Op::kGe:
      return compare(">=");
    case Op::kGt:
      return compare(">");
    case Op::kNotNull:
      return "attribute_exists(" + n + ")";
    case Op::kNull:
      return "attribute_not_exists(" + n + ")";
    case Op::kContains:
      return "contains(" + n + ", " + v[0] + ")";
    case Op::kNotContains:
      // Legacy NOT_CONTAINS is false on a missing attribute (unlike NOT contains()). No
      // parentheses of its own: Join puts each condition of several in parentheses, and a
      // second pair would be refused as redundant.
      return "attribute_exists(" + n + ") AND NOT contains(" + n + ", " + v[0] + ")";
    case Op::kBeginsWith:
      return "begins_with(" + n + ", " + v[0] + ")";
    case Op::kIn: {
      // The expression language takes at most 100 operands after IN; the legacy IN has no
      // such limit (the service took 27,500 values in a ScanFilter). A filter's translation
      // is compiled without that limit (and one IN looks its values up in a set); in the
      // others, a longer list is an OR of IN conditions of 100 each.
      std::vector<std::string> chunks;
      for (size_t start = 0; start < v.size();) {
        const size_t end = start + std::min(per_in, v.size() - start);
        std::string text = n + " IN (";
        for (size_t i = start; i < end; ++i) text += (i > start ? ", " : "") + v[i];
        chunks.push_back(text + ")");
        start = end;
      }
      return Join(chunks, " OR ");
    }
    case Op::kBetween:
      return n + " BETWEEN " + v[0] + " AND " + v[1];
  }
  return "";
}

// ConditionalOperator for a map of "count" conditions (0 when absent or empty): " AND "
// or " OR ". Documented by the DynamoDB API reference, "ConditionalOperator".
Result<std::string_view> ReadConditionalOperator(const JsonObject& request, size_t count) {
  DDB_ASSIGN_OR_RETURN(auto op, GetString(request, "ConditionalOperator"));
  if (!op) return std::string_view(" AND ");
  if (*op != "AND" && *op != "OR") {
    return Violation("Value '" + std::string(*op) +
                     "' at 'conditionalOperator' failed to satisfy constraint: Member must "
                     "satisfy enum value set: [OR, AND]");
  }
  if (count == 0) {
    return Error::Validation("ConditionalOperator cannot be used without Filter or Expected");
  }
  if (count == 1) {
    return Error::Validation(
        "ConditionalOperator can only be used when Filter or Expected has two or more elements");
  }
  return std::string_view(*op == "OR" ? " OR " : " AND ");
}

std::vector<std::string_view> PresentMembers(const JsonObject& request,
                                             const std::vector<std::string_view>& members) {
  std::vector<std::string_view> out;
  for (std::string_view m : members) {
    if (Present(request, m)) out.push_back(m);
  }
  return out;
}

template <typename Strings>
std::string JoinNames(const Strings& names, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += sep;
    out += names[i];
  }
  return out;
}

// "Can not use both expression and non-expression parameters in the same request: ...".
// Whether any of "names" is a member with a non-null value: one pass over the request, so
// that the common request, which uses no legacy parameter, costs no more than that.
bool AnyPresent(const JsonObject& request, std::initializer_list<std::string_view> names) {
  for (auto field : request) {
    if (field.value.is_null()) continue;
    for (std::string_view name : names) {
      if (field.key == name) return true;
    }
  }
  return false;
}

Status CheckNotMixed(const JsonObject& request, const std::vector<std::string_view>& legacy,
                     const std::vector<std::string_view>& expressions) {
  std::vector<std::string_view> expr = PresentMembers(request, expressions);
  if (expr.empty()) return Status::Ok();
  std::vector<std::string_view> non_expr = PresentMembers(request, legacy);
  if (non_expr.empty()) return Status::Ok();
  return Error::Validation(
      "Can not use both expression and non-expression parameters in the same request: "
      "Non-expression parameters: {" +
      JoinNames(non_expr, ", ") + "} Expression parameters: {" + JoinNames(expr, ", ") + "}");
}

// A request translated from legacy parameters may still carry its own placeholders only for
// expressions of its own (the generated ones would otherwise hide the service's error).
Status CheckOwnPlaceholders(const JsonObject& request, const std::vector<std::string_view>& all,
                            const std::vector<std::string_view>& taking_values) {
  if (Present(request, "ExpressionAttributeNames") && PresentMembers(request, all).empty()) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (Present(request, "ExpressionAttributeValues") &&
      PresentMembers(request, taking_values).empty()) {
    return Error::Validation(
        "ExpressionAttributeValues can only be specified when using expressions: " +
        JoinNames(taking_values, " and ") + (taking_values.size() > 1 ? " are null" : " is null"));
  }
  return Status::Ok();
}

// The request's placeholders plus those the translation made (the maps made when needed).
template <typename Request>
void MergePlaceholders(const LegacyPlaceholders& p, Request* r) {
  if (!p.names().empty()) {
    if (!r->expression_attribute_names) r->expression_attribute_names.emplace();
    for (const auto& [k, v] : p.names()) r->expression_attribute_names->insert_or_assign(k, v);
  }
  if (!p.values().empty()) {
    if (!r->expression_attribute_values) r->expression_attribute_values.emplace();
    for (const auto& [k, v] : p.values()) r->expression_attribute_values->insert_or_assign(k, v);
  }
}

template <typename T>
const T* OrNull(const std::optional<T>& v) {
  return v ? &*v : nullptr;
}

}  // namespace

std::string LegacyPlaceholders::Name(std::string_view attribute) {
  auto it = by_attribute_.find(std::string(attribute));
  if (it != by_attribute_.end()) return it->second;
  std::string key;
  do {
    key = "#l" + std::to_string(next_name_++);
  } while (taken_names_ != nullptr && taken_names_->count(key) != 0);
  names_.emplace(key, std::string(attribute));
  by_attribute_.emplace(std::string(attribute), key);
  return key;
}

std::string LegacyPlaceholders::Value(AttributeValue value) {
  std::string key;
  do {
    key = ":l" + std::to_string(next_value_++);
  } while (taken_values_ != nullptr && taken_values_->count(key) != 0);
  values_.insert_or_assign(key, std::move(value));
  return key;
}

Result<std::optional<std::string>> TranslateExpected(const JsonObject& request,
                                                     LegacyPlaceholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(auto expected, GetObject(request, "Expected"));
  size_t count = expected ? expected->size() : 0;
  DDB_ASSIGN_OR_RETURN(std::string_view joiner, ReadConditionalOperator(request, count));
  if (count == 0) return std::optional<std::string>();
  std::vector<std::string> parts;
  for (auto field : *expected) {
    DDB_ASSIGN_OR_RETURN(Condition c, ReadExpectedCondition(field.key, field.value));
    parts.push_back(ConditionText(std::move(c), placeholders, kExpressionInOperands));
  }
  return std::optional<std::string>(Join(parts, joiner));
}

Result<std::optional<std::string>> TranslateFilter(const JsonObject& request,
                                                   std::string_view member,
                                                   LegacyPlaceholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(auto filter, GetObject(request, member));
  size_t count = filter ? filter->size() : 0;
  DDB_ASSIGN_OR_RETURN(std::string_view joiner, ReadConditionalOperator(request, count));
  if (count == 0) return std::optional<std::string>();
  std::vector<std::string> parts;
  for (auto field : *filter) {
    DDB_ASSIGN_OR_RETURN(Condition c, ReadFilterCondition(field.key, field.value, member));
    parts.push_back(ConditionText(std::move(c), placeholders, std::numeric_limits<size_t>::max()));
  }
  return std::optional<std::string>(Join(parts, joiner));
}

Result<std::optional<std::string>> TranslateKeyConditions(const JsonObject& request,
                                                          LegacyPlaceholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(auto key_conditions, GetObject(request, "KeyConditions"));
  if (!key_conditions) return std::optional<std::string>();
  std::vector<Condition> conditions;
  for (auto field : *key_conditions) {
    DDB_ASSIGN_OR_RETURN(Condition c, ReadFilterCondition(field.key, field.value, "KeyConditions"));
    conditions.push_back(std::move(c));
  }
  // More than two conditions are checked against the key schema read (a multi-attribute GSI
  // key takes one per key attribute); none is refused here.
  if (conditions.empty()) return Error::Validation("Conditions can be of length 1 or 2 only");
  std::vector<std::string> parts;
  for (Condition& c : conditions) {
    switch (c.op) {
      case Op::kEq:
      case Op::kLe:
      case Op::kLt:
      case Op::kGe:
      case Op::kGt:
      case Op::kBeginsWith:
      case Op::kBetween:
        break;
      default:
        return Error::Validation("Attempted conditional constraint is not an indexable operation");
    }
    parts.push_back(ConditionText(std::move(c), placeholders, kExpressionInOperands));
  }
  // Flat, as a key condition is written ("a = :v AND b > :w"). A map too long for the
  // 300-operator limit (151 conditions and their ANDs), which that count refuses anyway, is
  // joined in halves, so that counting it does not recurse once per condition (100,000
  // KeyConditions overflowed the stack).
  constexpr size_t kMostFlatKeyConditions = 150;
  if (parts.size() > kMostFlatKeyConditions)
    return std::optional<std::string>(Join(parts, " AND "));
  std::string text = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) text += " AND " + parts[i];
  return std::optional<std::string>(std::move(text));
}

Result<std::optional<std::string>> TranslateAttributeUpdates(const JsonObject& request,
                                                             LegacyPlaceholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(auto updates, GetObject(request, "AttributeUpdates"));
  if (!updates || updates->size() == 0) return std::optional<std::string>();
  std::vector<std::string> set, remove, add, del;
  for (auto field : *updates) {
    DDB_RETURN_IF_ERROR(CheckAttributeNameSize(field.key));
    DDB_ASSIGN_OR_RETURN(JsonObject obj, EntryObject(field.value, "AttributeUpdates"));
    DDB_ASSIGN_OR_RETURN(auto action_text, GetString(obj, "Action"));
    std::string_view action = action_text.value_or("PUT");
    if (action != "PUT" && action != "ADD" && action != "DELETE") {
      return Violation("Value '" + std::string(action) + "' at '" +
                       MemberPath("AttributeUpdates", field.key, "action") +
                       "' failed to satisfy constraint: Member must satisfy enum value set: "
                       "[ADD, PUT, DELETE]");
    }
    DDB_ASSIGN_OR_RETURN(std::optional<AttributeValue> value, ReadValue(obj, "Value"));
    if (!value && action != "DELETE") {
      return Error::Validation(
          kInvalid + "Only DELETE action is allowed when no attribute value is specified");
    }
    const std::string n = placeholders->Name(field.key);
    if (action == "PUT") {
      set.push_back(n + " = " + placeholders->Value(std::move(*value)));
    } else if (action == "DELETE") {
      if (!value) {
        remove.push_back(n);
      } else if (!value->is_set()) {
        return Error::Validation(kInvalid +
                                 "DELETE action with value is not supported for the type " +
                                 std::string(AttributeTypeName(value->type())));
      } else {
        del.push_back(n + " " + placeholders->Value(std::move(*value)));
      }
    } else if (value->type() == AttributeType::kL) {
      // ADD of a list appends to the attribute's list, or creates it.
      std::string empty = placeholders->Value(AttributeValue::L({}));
      set.push_back(n + " = list_append(if_not_exists(" + n + ", " + empty + "), " +
                    placeholders->Value(std::move(*value)) + ")");
    } else if (value->is_set() || value->type() == AttributeType::kN) {
      add.push_back(n + " " + placeholders->Value(std::move(*value)));
    } else {
      return Error::Validation(kInvalid + "ADD action is not supported for the type " +
                               std::string(AttributeTypeName(value->type())));
    }
  }
  std::string text;
  auto clause = [&](std::string_view keyword, const std::vector<std::string>& items) {
    if (items.empty()) return;
    if (!text.empty()) text += " ";
    text += std::string(keyword) + " " + JoinNames(items, ", ");
  };
  clause("SET", set);
  clause("REMOVE", remove);
  clause("ADD", add);
  clause("DELETE", del);
  return std::optional<std::string>(std::move(text));
}

Status ApplyLegacyWriteParameters(const JsonObject& request, ConditionalWrite* write,
                                  std::optional<std::string>* update_expression) {
  const bool update = update_expression != nullptr;
  if (!AnyPresent(request, {"AttributeUpdates", "Expected", "ConditionalOperator"})) {
    return Status::Ok();
  }
  const std::vector<std::string_view> legacy =
      update ? std::vector<std::string_view>{"AttributeUpdates", "Expected", "ConditionalOperator"}
             : std::vector<std::string_view>{"Expected", "ConditionalOperator"};
  const std::vector<std::string_view> expressions =
      update ? std::vector<std::string_view>{"UpdateExpression", "ConditionExpression"}
             : std::vector<std::string_view>{"ConditionExpression"};
  DDB_RETURN_IF_ERROR(CheckNotMixed(request, legacy, expressions));
  LegacyPlaceholders p(OrNull(write->expression_attribute_names),
                       OrNull(write->expression_attribute_values));
  std::optional<std::string> updates;
  if (update) {
    DDB_ASSIGN_OR_RETURN(updates, TranslateAttributeUpdates(request, &p));
  }
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> condition, TranslateExpected(request, &p));
  if (!updates && !condition) return Status::Ok();
  DDB_RETURN_IF_ERROR(CheckOwnPlaceholders(request, expressions, expressions));
  if (condition) write->condition_expression = std::move(condition);
  if (updates) *update_expression = std::move(updates);
  MergePlaceholders(p, write);
  return Status::Ok();
}

Status ApplyLegacyQueryParameters(const JsonObject& request, QueryRequest* query) {
  if (!AnyPresent(request,
                  {"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"})) {
    return Status::Ok();
  }
  // KeyConditions may go with a FilterExpression or ProjectionExpression; it only clashes
  // with a KeyConditionExpression.
  std::vector<std::string_view> legacy = {"AttributesToGet", "QueryFilter", "ConditionalOperator"};
  if (Present(request, "KeyConditionExpression")) legacy.push_back("KeyConditions");
  const std::vector<std::string_view> expressions = {"ProjectionExpression", "FilterExpression",
                                                     "KeyConditionExpression"};
  DDB_RETURN_IF_ERROR(CheckNotMixed(request, legacy, expressions));
  LegacyPlaceholders p(OrNull(query->expression_attribute_names),
                       OrNull(query->expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> filter,
                       TranslateFilter(request, "QueryFilter", &p));
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> key, TranslateKeyConditions(request, &p));
  if (!filter && !key) return Status::Ok();
  DDB_RETURN_IF_ERROR(
      CheckOwnPlaceholders(request, expressions, {"FilterExpression", "KeyConditionExpression"}));
  if (filter) {
    query->filter_expression = std::move(filter);
    query->legacy_filter = true;
  }
  if (key) query->key_condition_expression = std::move(*key);
  MergePlaceholders(p, query);
  return Status::Ok();
}

Status ApplyLegacyScanParameters(const JsonObject& request, ScanRequest* scan) {
  if (!AnyPresent(request, {"AttributesToGet", "ScanFilter", "ConditionalOperator"})) {
    return Status::Ok();
  }
  const std::vector<std::string_view> expressions = {"ProjectionExpression", "FilterExpression"};
  DDB_RETURN_IF_ERROR(CheckNotMixed(
      request, {"AttributesToGet", "ScanFilter", "ConditionalOperator"}, expressions));
  LegacyPlaceholders p(OrNull(scan->expression_attribute_names),
                       OrNull(scan->expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> filter,
                       TranslateFilter(request, "ScanFilter", &p));
  if (!filter) return Status::Ok();
  DDB_RETURN_IF_ERROR(CheckOwnPlaceholders(request, expressions, {"FilterExpression"}));
  scan->filter_expression = std::move(filter);
  scan->legacy_filter = scan->filter_expression.has_value();
  MergePlaceholders(p, scan);
  return Status::Ok();
}

Error LegacyQueryError(const JsonObject& request, const Error& error) {
  constexpr std::string_view kFilterOnKey =
      "Filter Expression can only contain non-primary key attributes";
  const std::string& m = error.message();
  if (error.code() == ErrorCode::kValidation && Present(request, "QueryFilter") &&
      m.compare(0, kFilterOnKey.size(), kFilterOnKey) == 0) {
    return Error::Validation("QueryFilter" +
                             m.substr(std::string_view("Filter Expression").size()));
  }
  return error;
}

}  // namespace ddb::protocol
