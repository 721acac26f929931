// Compiles ConditionExpression / FilterExpression, ProjectionExpression and
// KeyConditionExpression: parse (cached) + checks that need no item + placeholder
// resolution. The checks run in the order the service reports them (as pinned by
// dynalite's and scylla alternator's conformance tests), so that a request with several
// problems gets the same message as from DynamoDB.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

#include "ddb/number.h"
#include "engine/expression/expression.h"
#include "engine/expression/expression_parser.h"
#include "engine/expression/expression_resolve.h"

namespace ddb {

using expr::CompareOp;
using expr::Condition;
using expr::InvalidExpression;
using expr::Operand;

namespace {

// Visits every condition node, pre-order (text order for the operands of a node). Templates,
// not std::function: these run for every expression of every request.
template <typename F>
void ForEachNode(const Condition& c, const F& f) {
  f(c);
  for (const Condition& child : c.children) ForEachNode(child, f);
}
template <typename F>
void ForEachNode(Condition* c, const F& f) {
  f(c);
  for (Condition& child : c->children) ForEachNode(&child, f);
}

// Visits every operand, including function arguments, stopping at the first error.
template <typename F>
Status ForEachOperand(const Operand& op, const F& f) {
  DDB_RETURN_IF_ERROR(f(op));
  for (const Operand& arg : op.args) DDB_RETURN_IF_ERROR(ForEachOperand(arg, f));
  return Status::Ok();
}
template <typename F>
Status ForEachOperand(const Condition& c, const F& f) {
  Status status;
  ForEachNode(c, [&](const Condition& node) {
    if (!status.ok()) return;
    for (const Operand& op : node.operands) {
      status = ForEachOperand(op, f);
      if (!status.ok()) return;
    }
  });
  return status;
}

int ConditionFunctionArity(std::string_view name) {
  if (name == "attribute_exists" || name == "attribute_not_exists" || name == "size") return 1;
  if (name == "attribute_type" || name == "begins_with" || name == "contains") return 2;
  return -1;
}

// The type an operand is known to have before any item is read, or null when it depends on
// the item (a path).
std::optional<AttributeType> StaticType(const Operand& op) {
  if (op.kind == Operand::Kind::kValue) return op.value->type();
  if (op.kind == Operand::Kind::kFunction && op.text == "size") return AttributeType::kN;
  return std::nullopt;
}

Error IncorrectOperandType(std::string_view kind, std::string_view function, AttributeType type) {
  return InvalidExpression(kind,
                           "Incorrect operand type for operator or function; operator or "
                           "function: " +
                               std::string(function) +
                               ", operand type: " + std::string(AttributeTypeName(type)));
}

Status CheckDistinct(std::string_view kind, std::string_view op, const Operand& a,
                     const Operand& b) {
  if (a.kind == Operand::Kind::kPath && b.kind == Operand::Kind::kPath &&
      a.resolved_path.size() == b.resolved_path.size()) {
    for (size_t i = 0; i < a.resolved_path.size(); ++i) {
      if (a.resolved_path[i].index != b.resolved_path[i].index ||
          a.resolved_path[i].name != b.resolved_path[i].name) {
        return Status::Ok();
      }
    }
    return InvalidExpression(kind,
                             "The first operand must be distinct from the remaining operands for "
                             "this operator or function; operator: " +
                                 std::string(op) +
                                 ", first operand: " + expr::PathString(a.resolved_path));
  }
  return Status::Ok();
}

// Arity, document-path and constant-type rules of one condition function call.
Status CheckFunction(std::string_view kind, const Operand& fn) {
  const std::string& name = fn.text;
  int arity = ConditionFunctionArity(name);
  if (static_cast<int>(fn.args.size()) != arity) {
    return InvalidExpression(kind,
                             "Incorrect number of operands for operator or function; "
                             "operator or function: " +
                                 name + ", number of operands: " + std::to_string(fn.args.size()));
  }
  if (arity == 2) DDB_RETURN_IF_ERROR(CheckDistinct(kind, name, fn.args[0], fn.args[1]));
  if (name == "attribute_exists" || name == "attribute_not_exists") {
    if (fn.args[0].kind != Operand::Kind::kPath) {
      return InvalidExpression(
          kind, "Operator or function requires a document path; operator or function: " + name);
    }
  } else if (name == "begins_with") {
    for (const Operand& arg : fn.args) {
      auto type = StaticType(arg);
      if (type && *type != AttributeType::kS && *type != AttributeType::kB) {
        return IncorrectOperandType(kind, name, *type);
      }
    }
  } else if (name == "attribute_type") {
    const Operand& t = fn.args[1];
    if (t.kind != Operand::Kind::kValue) {
      return InvalidExpression(kind,
                               "Incorrect operand type for operator or function; operator or "
                               "function: attribute_type, operand type: "
                               "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}");
    }
    if (t.value->type() != AttributeType::kS) {
      return IncorrectOperandType(kind, name, t.value->type());
    }
    static constexpr std::string_view kTypes[] = {"S",  "N",  "B",  "BOOL", "NULL",
                                                  "SS", "NS", "BS", "L",    "M"};
    if (std::find(std::begin(kTypes), std::end(kTypes), t.value->scalar()) == std::end(kTypes)) {
      return InvalidExpression(kind,
                               "Invalid attribute type name found; type: " + t.value->scalar() +
                                   ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
    }
  } else if (name == "size") {
    auto type = StaticType(fn.args[0]);
    if (type && (*type == AttributeType::kN || *type == AttributeType::kBool ||
                 *type == AttributeType::kNull)) {
      return IncorrectOperandType(kind, name, *type);
    }
  }
  return Status::Ok();
}

bool IsOrderable(AttributeType t) {
  return t == AttributeType::kN || t == AttributeType::kS || t == AttributeType::kB;
}

int CompareScalars(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == AttributeType::kN) return CompareNumbers(a.scalar(), b.scalar());
  return a.scalar().compare(b.scalar());
}

// Checks of one node that follow resolution: function rules, distinct operands, operand
// types of ordering operators, BETWEEN bounds, IN size.
Status CheckNodeSemantics(std::string_view kind, const Condition& c, bool legacy) {
  for (const Operand& op : c.operands) {
    DDB_RETURN_IF_ERROR(ForEachOperand(op, [&](const Operand& o) -> Status {
      if (o.kind == Operand::Kind::kFunction) return CheckFunction(kind, o);
      return Status::Ok();
    }));
  }
  switch (c.kind) {
    case Condition::Kind::kCompare: {
      std::string_view op = expr::CompareOpName(c.op);
      DDB_RETURN_IF_ERROR(CheckDistinct(kind, op, c.operands[0], c.operands[1]));
      if (c.op != CompareOp::kEq && c.op != CompareOp::kNe) {
        for (const Operand& o : c.operands) {
          auto type = StaticType(o);
          if (type && !IsOrderable(*type)) return IncorrectOperandType(kind, op, *type);
        }
      }
      break;
    }
    case Condition::Kind::kBetween: {
      for (const Operand& o : c.operands) {
        auto type = StaticType(o);
        if (type && !IsOrderable(*type)) return IncorrectOperandType(kind, "BETWEEN", *type);
      }
      const Operand& lower = c.operands[1];
      const Operand& upper = c.operands[2];
      if (lower.kind == Operand::Kind::kValue && upper.kind == Operand::Kind::kValue) {
        std::string bounds =
            "lower bound operand: AttributeValue: " + expr::ConstantString(*lower.value) +
            ", upper bound operand: AttributeValue: " + expr::ConstantString(*upper.value);
        if (lower.value->type() != upper.value->type()) {
          return InvalidExpression(kind,
                                   "The BETWEEN operator requires same data type for lower and "
                                   "upper bounds; " +
                                       bounds);
        }
        if (CompareScalars(*lower.value, *upper.value) > 0) {
          return InvalidExpression(kind,
                                   "The BETWEEN operator requires upper bound to be greater than "
                                   "or equal to lower bound; " +
                                       bounds);
        }
      }
      break;
    }
    case Condition::Kind::kIn:
      if (!legacy && c.operands.size() - 1 > expr::kMaxInOperands) {
        // Message not confirmed against the service.
        return InvalidExpression(kind,
                                 "The IN operator is provided with too many operands; number of "
                                 "operands: " +
                                     std::to_string(c.operands.size() - 1));
      }
      break;
    default:
      break;
  }
  return Status::Ok();
}

Status CheckParsedConditionBody(const Condition& parsed, std::string_view kind);

// The checks that depend on the text alone, in the service's order; run once per text, at
// parse time (expr::ParseCondition caches their outcome).
Status CheckParsedCondition(const Condition& parsed, std::string_view kind) {
  // 0. At most 300 operators: comparisons, BETWEEN, IN, AND, OR, NOT and function calls. The
  // service stops counting at the first one too many, and reports that count.
  size_t operators = 0;
  ForEachNode(parsed, [&](const Condition& node) {
    if (node.kind != Condition::Kind::kFunction) ++operators;  // its call is an operand
  });
  (void)ForEachOperand(parsed, [&](const Operand& o) -> Status {
    if (o.kind == Operand::Kind::kFunction) ++operators;
    return Status::Ok();
  });
  if (operators > expr::kMaxOperators) {
    return InvalidExpression(kind, "The expression contains too many operators; operator count: " +
                                       std::to_string(expr::kMaxOperators + 1));
  }
  return CheckParsedConditionBody(parsed, kind);
}

// CheckParsedCondition without the operator count, for translated legacy conditions.
Status CheckParsedLegacyCondition(const Condition& parsed, std::string_view kind) {
  return CheckParsedConditionBody(parsed, kind);
}

Status CheckParsedConditionBody(const Condition& parsed, std::string_view kind) {
  // 1. Redundant parentheses: "((a = :v))" or "((a)) = :v".
  Status status;
  ForEachNode(parsed, [&](const Condition& node) {
    if (status.ok() && node.parens > 1) {
      status = InvalidExpression(kind, "The expression has redundant parentheses;");
    }
  });
  DDB_RETURN_IF_ERROR(status);
  DDB_RETURN_IF_ERROR(ForEachOperand(parsed, [&](const Operand& o) -> Status {
    if (o.parens > 1) return InvalidExpression(kind, "The expression has redundant parentheses;");
    return Status::Ok();
  }));
  // 2. Function names.
  DDB_RETURN_IF_ERROR(ForEachOperand(parsed, [&](const Operand& o) -> Status {
    if (o.kind != Operand::Kind::kFunction || ConditionFunctionArity(o.text) >= 0) {
      return Status::Ok();
    }
    if (o.text == "if_not_exists" || o.text == "list_append") {
      return InvalidExpression(
          kind, "The function is not allowed in a condition expression; function: " + o.text);
    }
    return InvalidExpression(kind, "Invalid function name; function: " + o.text);
  }));
  // 3. Functions in the wrong place: size() is the only function that yields an operand,
  // and the only one that cannot be a condition by itself.
  auto misused = [&](const std::string& name) {
    return InvalidExpression(
        kind,
        "The function is not allowed to be used this way in an expression; function: " + name);
  };
  ForEachNode(parsed, [&](const Condition& node) {
    if (!status.ok()) return;
    if (node.kind == Condition::Kind::kFunction) {
      if (node.operands[0].text == "size") {
        status = misused("size");
        return;
      }
      for (const Operand& arg : node.operands[0].args) {
        status = ForEachOperand(arg, [&](const Operand& o) -> Status {
          if (o.kind == Operand::Kind::kFunction && o.text != "size") return misused(o.text);
          return Status::Ok();
        });
        if (!status.ok()) return;
      }
    } else {
      for (const Operand& op : node.operands) {
        status = ForEachOperand(op, [&](const Operand& o) -> Status {
          if (o.kind == Operand::Kind::kFunction && o.text != "size") return misused(o.text);
          return Status::Ok();
        });
        if (!status.ok()) return;
      }
    }
  });
  DDB_RETURN_IF_ERROR(status);
  // 4. Reserved words.
  return ForEachOperand(parsed,
                        [&](const Operand& o) { return expr::CheckReservedWords(o, kind); });
}

// An IN of this many constants or more looks its left-hand side up in a set of them.
constexpr size_t kInConstantsIndexed = 16;

void IndexInConstants(Condition* node) {
  if (node->kind != Condition::Kind::kIn || node->operands.size() - 1 < kInConstantsIndexed) {
    return;
  }
  for (size_t i = 1; i < node->operands.size(); ++i) {
    if (node->operands[i].kind != Operand::Kind::kValue) return;
  }
  auto constants = std::make_shared<expr::InConstants>();
  // A placeholder repeated in the list is one value (Operand::value): indexed once.
  std::unordered_set<const AttributeValue*> seen;
  for (size_t i = 1; i < node->operands.size(); ++i) {
    const std::shared_ptr<const AttributeValue>& shared = node->operands[i].value;
    if (!seen.insert(shared.get()).second) continue;
    const AttributeValue& v = *shared;
    switch (v.type()) {
      case AttributeType::kS:
        constants->s.insert(v.scalar());
        break;
      case AttributeType::kN:
        constants->n.insert(v.scalar());
        break;
      case AttributeType::kB:
        constants->b.insert(v.scalar());
        break;
      default:
        constants->others.push_back(shared);
    }
  }
  node->in_constants = std::move(constants);
}

// Parse (cached, with CheckParsedCondition) + the checks that need the request's placeholders,
// in the service's order.
Result<Condition> ParseAndCompile(std::string_view text, std::string_view kind,
                                  Placeholders* placeholders, bool legacy = false) {
  DDB_ASSIGN_OR_RETURN(
      std::shared_ptr<const Condition> parsed,
      expr::ParseCondition(text, kind,
                           legacy ? &CheckParsedLegacyCondition : &CheckParsedCondition));
  Status status;
  // 5. Placeholders: names first, then values.
  Condition tree = *parsed;
  ForEachNode(&tree, [&](Condition* node) {
    for (Operand& op : node->operands) {
      if (status.ok()) status = expr::ResolveNames(&op, kind, placeholders);
    }
  });
  DDB_RETURN_IF_ERROR(status);
  ForEachNode(&tree, [&](Condition* node) {
    for (Operand& op : node->operands) {
      if (status.ok()) status = expr::ResolveValues(&op, kind, placeholders);
    }
  });
  DDB_RETURN_IF_ERROR(status);
  // 6. Path depth.
  DDB_RETURN_IF_ERROR(
      ForEachOperand(tree, [&](const Operand& o) { return expr::CheckPathDepth(o, kind); }));
  // 7. Operator and function rules.
  ForEachNode(tree, [&](const Condition& node) {
    if (status.ok()) status = CheckNodeSemantics(kind, node, legacy);
  });
  DDB_RETURN_IF_ERROR(status);
  ForEachNode(&tree, [](Condition* node) { IndexInConstants(node); });
  return tree;
}

}  // namespace

Status CheckAllPlaceholdersUsed(const Placeholders& p) {
  auto unused = [](std::string_view what, const std::vector<std::string>& keys) {
    std::string m = "Value provided in ";
    m.append(what);
    m.append(" unused in expressions: keys: {");
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i > 0) m += ", ";
      m += keys[i];
    }
    m += "}";
    return Error::Validation(std::move(m));
  };
  std::vector<std::string> keys;
  if (p.names != nullptr) {
    for (const auto& [name, value] : *p.names) {
      if (p.used_names.count(name) == 0) keys.push_back(name);
    }
    if (!keys.empty()) return unused("ExpressionAttributeNames", keys);
  }
  if (p.values != nullptr) {
    for (const auto& [name, value] : *p.values) {
      if (p.used_values.count(name) == 0) keys.push_back(name);
    }
    if (!keys.empty()) return unused("ExpressionAttributeValues", keys);
  }
  return Status::Ok();
}

Result<ConditionPtr> CompileCondition(std::string_view text, std::string_view kind,
                                      Placeholders* placeholders, bool legacy) {
  DDB_ASSIGN_OR_RETURN(Condition tree, ParseAndCompile(text, kind, placeholders, legacy));
  auto compiled = std::make_shared<CompiledCondition>();
  compiled->root = std::move(tree);
  return ConditionPtr(std::move(compiled));
}

Result<Projection> CompileProjection(std::string_view text, Placeholders* placeholders) {
  constexpr std::string_view kKind = "ProjectionExpression";
  DDB_ASSIGN_OR_RETURN(std::shared_ptr<const expr::ParsedProjection> parsed,
                       expr::ParseProjection(text));
  for (const Operand& path : *parsed) DDB_RETURN_IF_ERROR(expr::CheckReservedWords(path, kKind));
  Projection projection;
  for (const Operand& parsed_path : *parsed) {
    Operand path = parsed_path;
    DDB_RETURN_IF_ERROR(expr::ResolveNames(&path, kKind, placeholders));
    DDB_RETURN_IF_ERROR(expr::CheckPathDepth(path, kKind));
    projection.paths.push_back(std::move(path.resolved_path));
  }
  std::vector<const DocumentPath*> paths;
  for (const DocumentPath& p : projection.paths) paths.push_back(&p);
  DDB_RETURN_IF_ERROR(expr::CheckPathOverlaps(paths, kKind));
  return projection;
}

namespace {

constexpr std::string_view kKeyKind = "KeyConditionExpression";
// The key-condition rules below answer in the expression's frame, "Invalid
// KeyConditionExpression: <rule>", as the service does (its answers in 2026).

// One "attribute <op> value" term of a key condition, normalised to have the attribute
// first.
struct KeyTerm {
  std::string name;
  KeyCondition::Op op;
  std::vector<const AttributeValue*> values;
};

Status CheckKeyOperators(const Condition& c) {
  auto invalid = [](std::string_view op) {
    return InvalidExpression(kKeyKind,
                             "Invalid operator used in KeyConditionExpression: " + std::string(op));
  };
  switch (c.kind) {
    case Condition::Kind::kOr:
      return invalid("OR");
    case Condition::Kind::kNot:
      return invalid("NOT");
    case Condition::Kind::kIn:
      return invalid("IN");
    case Condition::Kind::kCompare:
      if (c.op == CompareOp::kNe) return invalid("<>");
      return Status::Ok();
    case Condition::Kind::kFunction:
      if (c.operands[0].text != "begins_with") return invalid(c.operands[0].text);
      return Status::Ok();
    case Condition::Kind::kBetween:
      return Status::Ok();
    case Condition::Kind::kAnd:
      for (const Condition& child : c.children) DDB_RETURN_IF_ERROR(CheckKeyOperators(child));
      return Status::Ok();
  }
  return Status::Ok();
}

void FlattenAnd(const Condition& c, std::vector<const Condition*>* terms) {
  if (c.kind == Condition::Kind::kAnd) {
    for (const Condition& child : c.children) FlattenAnd(child, terms);
  } else {
    terms->push_back(&c);
  }
}

KeyCondition::Op ToKeyOp(CompareOp op, bool flipped) {
  switch (op) {
    case CompareOp::kLt:
      return flipped ? KeyCondition::Op::kGt : KeyCondition::Op::kLt;
    case CompareOp::kLe:
      return flipped ? KeyCondition::Op::kGe : KeyCondition::Op::kLe;
    case CompareOp::kGt:
      return flipped ? KeyCondition::Op::kLt : KeyCondition::Op::kGt;
    case CompareOp::kGe:
      return flipped ? KeyCondition::Op::kLe : KeyCondition::Op::kGe;
    default:
      return KeyCondition::Op::kEq;
  }
}

Result<KeyTerm> ToKeyTerm(const Condition& c) {
  const std::vector<Operand>* operands = &c.operands;
  if (c.kind == Condition::Kind::kFunction) operands = &c.operands[0].args;
  if (c.kind == Condition::Kind::kBetween || c.kind == Condition::Kind::kFunction) {
    std::string_view op = c.kind == Condition::Kind::kBetween ? "BETWEEN" : "begins_with";
    if ((*operands)[0].kind != Operand::Kind::kPath) {
      return InvalidExpression(kKeyKind,
                               "Invalid condition in KeyConditionExpression: " + std::string(op) +
                                   " operator must have the key attribute as its first operand");
    }
  }
  KeyTerm term;
  int path_at = -1;
  for (size_t i = 0; i < operands->size(); ++i) {
    const Operand& o = (*operands)[i];
    if (o.kind == Operand::Kind::kFunction) {
      return InvalidExpression(kKeyKind,
                               "KeyConditionExpressions cannot contain nested operations");
    }
    if (o.kind == Operand::Kind::kPath) {
      if (path_at >= 0) {
        return InvalidExpression(
            kKeyKind,
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
            "condition");
      }
      if (o.resolved_path.size() > 1) {
        return InvalidExpression(kKeyKind,
                                 "KeyConditionExpressions cannot have conditions on nested "
                                 "attributes");
      }
      path_at = static_cast<int>(i);
      term.name = o.resolved_path[0].name;
    } else {
      term.values.push_back(o.value.get());
    }
  }
  if (path_at < 0) {
    return InvalidExpression(kKeyKind,
                             "Invalid condition in KeyConditionExpression: No key attribute "
                             "specified");
  }
  switch (c.kind) {
    case Condition::Kind::kBetween:
      term.op = KeyCondition::Op::kBetween;
      break;
    case Condition::Kind::kFunction:
      term.op = KeyCondition::Op::kBeginsWith;
      break;
    default:
      term.op = ToKeyOp(c.op, path_at == 1);
      break;
  }
  return term;
}

Status CheckKeyType(const KeyTerm& term, AttributeType type) {
  if (term.op == KeyCondition::Op::kBeginsWith && type == AttributeType::kN) {
    return IncorrectOperandType(kKeyKind, "begins_with", AttributeType::kN);
  }
  for (const AttributeValue* v : term.values) {
    if (v->type() != type) {
      return Error::Validation(
          "One or more parameter values were invalid: Condition parameter type does not match "
          "schema type");
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckKeyConditionForm(std::string_view text, Placeholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(Condition tree, ParseAndCompile(text, kKeyKind, placeholders));
  DDB_RETURN_IF_ERROR(CheckKeyOperators(tree));
  std::vector<const Condition*> conditions;
  FlattenAnd(tree, &conditions);
  std::set<std::string> names;
  for (const Condition* c : conditions) {
    DDB_ASSIGN_OR_RETURN(KeyTerm term, ToKeyTerm(*c));
    if (!names.insert(term.name).second) {
      return InvalidExpression(kKeyKind,
                               "KeyConditionExpressions must only contain one condition per key");
    }
  }
  return Status::Ok();
}

Result<KeyCondition> CompileKeyCondition(std::string_view text, const std::string& hash_key,
                                         AttributeType hash_type, const std::string* range_key,
                                         AttributeType range_type, Placeholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(Condition tree, ParseAndCompile(text, kKeyKind, placeholders));
  DDB_RETURN_IF_ERROR(CheckKeyOperators(tree));
  std::vector<const Condition*> conditions;
  FlattenAnd(tree, &conditions);
  std::vector<KeyTerm> terms;
  for (const Condition* c : conditions) {
    DDB_ASSIGN_OR_RETURN(KeyTerm term, ToKeyTerm(*c));
    for (const KeyTerm& seen : terms) {
      if (seen.name == term.name) {
        return InvalidExpression(kKeyKind,
                                 "KeyConditionExpressions must only contain one condition per "
                                 "key");
      }
    }
    terms.push_back(std::move(term));
  }
  if (terms.size() > 2) return Error::Validation("Conditions can be of length 1 or 2 only");

  const KeyTerm* hash = nullptr;
  const KeyTerm* range = nullptr;
  for (const KeyTerm& term : terms) {
    if (term.name == hash_key) {
      hash = &term;
      DDB_RETURN_IF_ERROR(CheckKeyType(term, hash_type));
    } else if (range_key != nullptr && term.name == *range_key) {
      range = &term;
      DDB_RETURN_IF_ERROR(CheckKeyType(term, range_type));
    }
  }
  auto missed = [](const std::string& name) {
    return Error::Validation("Query condition missed key schema element: " + name);
  };
  const Error not_supported = Error::Validation("Query key condition not supported");
  if (range_key == nullptr) {
    if (terms.size() > 1) return not_supported;
    if (hash == nullptr) return missed(hash_key);
  } else {
    if (hash == nullptr) return missed(hash_key);
    if (terms.size() > 1 && range == nullptr) return missed(*range_key);
  }
  if (hash->op != KeyCondition::Op::kEq) return not_supported;

  KeyCondition result;
  result.hash_name = hash_key;
  result.hash_value = *hash->values[0];
  result.hash_values.push_back(result.hash_value);
  if (range != nullptr) {
    result.sort_op = range->op;
    result.sort_name = *range_key;
    result.sort_value = *range->values[0];
    if (range->values.size() > 1) result.sort_value2 = *range->values[1];
  }
  return result;
}

Result<KeyCondition> CompileKeyCondition(std::string_view text, const KeyAttributes& hash_attrs,
                                         const KeyAttributes& range_attrs,
                                         Placeholders* placeholders) {
  if (hash_attrs.size() == 1 && range_attrs.size() <= 1) {
    return CompileKeyCondition(text, hash_attrs[0].first, hash_attrs[0].second,
                               range_attrs.empty() ? nullptr : &range_attrs[0].first,
                               range_attrs.empty() ? AttributeType::kS : range_attrs[0].second,
                               placeholders);
  }
  DDB_ASSIGN_OR_RETURN(Condition tree, ParseAndCompile(text, kKeyKind, placeholders));
  DDB_RETURN_IF_ERROR(CheckKeyOperators(tree));
  std::vector<const Condition*> conditions;
  FlattenAnd(tree, &conditions);
  std::map<std::string, KeyTerm> terms;
  for (const Condition* c : conditions) {
    DDB_ASSIGN_OR_RETURN(KeyTerm term, ToKeyTerm(*c));
    std::string name = term.name;
    if (!terms.emplace(name, std::move(term)).second) {
      return InvalidExpression(kKeyKind,
                               "KeyConditionExpressions must only contain one condition per key");
    }
  }
  const Error not_supported = Error::Validation("Query key condition not supported");
  KeyCondition result;
  size_t used = 0;
  for (const auto& [name, type] : hash_attrs) {
    auto it = terms.find(name);
    if (it == terms.end()) {
      return Error::Validation("Query condition missed key schema element: " + name);
    }
    DDB_RETURN_IF_ERROR(CheckKeyType(it->second, type));
    if (it->second.op != KeyCondition::Op::kEq) return not_supported;
    result.hash_values.push_back(*it->second.values[0]);
    ++used;
  }
  result.hash_name = hash_attrs[0].first;
  result.hash_value = result.hash_values[0];
  bool ended = false;  // a range condition or a gap ends the usable run of RANGE attributes
  for (const auto& [name, type] : range_attrs) {
    auto it = terms.find(name);
    if (it == terms.end()) {
      ended = true;
      continue;
    }
    if (ended) {
      return Error::Validation(
          "Query condition missed key schema element: " +
          range_attrs[result.sort_prefix.size() + (result.sort_op ? 1 : 0)].first);
    }
    DDB_RETURN_IF_ERROR(CheckKeyType(it->second, type));
    ++used;
    if (it->second.op == KeyCondition::Op::kEq) {
      result.sort_prefix.push_back(*it->second.values[0]);
      continue;
    }
    result.sort_op = it->second.op;
    result.sort_name = name;
    result.sort_value = *it->second.values[0];
    if (it->second.values.size() > 1) result.sort_value2 = *it->second.values[1];
    ended = true;
  }
  if (used != terms.size()) return not_supported;  // a condition on a non-key attribute
  // The last equality becomes the sort condition, so readers handle one shape.
  if (!result.sort_op && !result.sort_prefix.empty()) {
    result.sort_op = KeyCondition::Op::kEq;
    result.sort_value = result.sort_prefix.back();
    result.sort_name = range_attrs[result.sort_prefix.size() - 1].first;
    result.sort_prefix.pop_back();
  }
  return result;
}

Status CheckPlaceholdersNeedExpressions(bool has_names, bool has_values, bool any_expression,
                                        bool any_value_expression,
                                        std::string_view value_expressions) {
  if (has_names && !any_expression) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (has_values && !any_value_expression) {
    bool plural = value_expressions.find(" and ") != std::string_view::npos;
    return Error::Validation(
        "ExpressionAttributeValues can only be specified when using "
        "expressions: " +
        std::string(value_expressions) + (plural ? " are null" : " is null"));
  }
  return Status::Ok();
}

}  // namespace ddb
