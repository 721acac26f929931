// Evaluation of compiled conditions and projections against an item: pure functions, so a
// conditional write may evaluate them again after a retry.
#include "engine/expression/expression_eval.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "ddb/number.h"
#include "engine/expression/expression.h"
#include "engine/expression/expression_resolve.h"

namespace ddb {

using expr::CompareOp;
using expr::Condition;
using expr::Operand;

namespace {

// size() of a string counts UTF-16 code units, as the service does (its strings are Java
// strings): one per character, two for a character outside the Basic Multilingual Plane
// (a 4-byte UTF-8 sequence). Item sizes, by contrast, count UTF-8 bytes.
size_t Utf16Length(std::string_view utf8) {
  size_t units = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    units += c >= 0xF0 ? 2 : 1;
  }
  return units;
}

}  // namespace

const AttributeValue* ResolvePath(const Item& item, const DocumentPath& path) {
  if (path.empty() || path[0].index >= 0) return nullptr;
  auto it = item.find(path[0].name);
  if (it == item.end()) return nullptr;
  const AttributeValue* v = &it->second;
  for (size_t i = 1; i < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.index >= 0) {
      if (v->type() != AttributeType::kL) return nullptr;
      const auto& list = v->list();
      if (static_cast<size_t>(e.index) >= list.size()) return nullptr;
      v = &list[e.index];
    } else {
      if (v->type() != AttributeType::kM) return nullptr;
      auto child = v->map().find(e.name);
      if (child == v->map().end()) return nullptr;
      v = &child->second;
    }
  }
  return v;
}

namespace expr {

const AttributeValue* EvaluateOperand(const Operand& op, const Item* item,
                                      AttributeValue* scratch) {
  switch (op.kind) {
    case Operand::Kind::kValue:
      return op.value.get();
    case Operand::Kind::kPath:
      return item == nullptr ? nullptr : ResolvePath(*item, op.resolved_path);
    case Operand::Kind::kFunction: {
      // size() is the only function that yields a value in a condition.
      if (op.text != "size" || op.args.size() != 1) return nullptr;
      AttributeValue arg_scratch;
      const AttributeValue* v = EvaluateOperand(op.args[0], item, &arg_scratch);
      if (v == nullptr) return nullptr;
      size_t size;
      switch (v->type()) {
        case AttributeType::kS:
          size = Utf16Length(v->scalar());
          break;
        case AttributeType::kB:
          size = v->scalar().size();
          break;
        case AttributeType::kSS:
        case AttributeType::kNS:
        case AttributeType::kBS:
          size = v->set().size();
          break;
        case AttributeType::kL:
          size = v->list().size();
          break;
        case AttributeType::kM:
          size = v->map().size();
          break;
        default:
          return nullptr;
      }
      *scratch = AttributeValue::N(std::to_string(size));
      return scratch;
    }
  }
  return nullptr;
}

bool InConstants::Contains(const AttributeValue& v) const {
  switch (v.type()) {
    case AttributeType::kS:
      return s.count(v.scalar()) != 0;
    case AttributeType::kN:
      return n.count(v.scalar()) != 0;
    case AttributeType::kB:
      return b.count(v.scalar()) != 0;
    default:
      return std::any_of(others.begin(), others.end(),
                         [&v](const std::shared_ptr<const AttributeValue>& o) { return *o == v; });
  }
}

}  // namespace expr

namespace {

// <0, 0, >0 for two values of the same orderable type (N, S, B); nullopt otherwise, which
// makes every ordering comparison false, as in the service.
std::optional<int> Order(const AttributeValue* a, const AttributeValue* b) {
  if (a == nullptr || b == nullptr || a->type() != b->type()) return std::nullopt;
  switch (a->type()) {
    case AttributeType::kN:
      return CompareNumbers(a->scalar(), b->scalar());
    case AttributeType::kS:
    case AttributeType::kB:
      // std::string compares bytes as unsigned char: DynamoDB's UTF-8 / binary order.
      return a->scalar().compare(b->scalar());
    default:
      return std::nullopt;
  }
}

bool Compare(CompareOp op, const AttributeValue* a, const AttributeValue* b) {
  switch (op) {
    case CompareOp::kEq:
      return a != nullptr && b != nullptr && *a == *b;
    case CompareOp::kNe:
      return !(a != nullptr && b != nullptr && *a == *b);
    default:
      break;
  }
  std::optional<int> order = Order(a, b);
  if (!order) return false;
  switch (op) {
    case CompareOp::kLt:
      return *order < 0;
    case CompareOp::kLe:
      return *order <= 0;
    case CompareOp::kGt:
      return *order > 0;
    case CompareOp::kGe:
      return *order >= 0;
    default:
      return false;
  }
}

bool SetContains(const AttributeValue& set, const std::string& member) {
  if (set.type() == AttributeType::kNS) {
    // Members are normalised, so text equality is value equality.
    return std::find(set.set().begin(), set.set().end(), member) != set.set().end();
  }
  return std::binary_search(set.set().begin(), set.set().end(), member);
}

bool Contains(const AttributeValue* haystack, const AttributeValue* needle) {
  if (haystack == nullptr || needle == nullptr) return false;
  switch (haystack->type()) {
    case AttributeType::kS:
    case AttributeType::kB:
      return needle->type() == haystack->type() &&
             haystack->scalar().find(needle->scalar()) != std::string::npos;
    case AttributeType::kSS:
      return needle->type() == AttributeType::kS && SetContains(*haystack, needle->scalar());
    case AttributeType::kNS:
      return needle->type() == AttributeType::kN && SetContains(*haystack, needle->scalar());
    case AttributeType::kBS:
      return needle->type() == AttributeType::kB && SetContains(*haystack, needle->scalar());
    case AttributeType::kL:
      for (const AttributeValue& element : haystack->list()) {
        if (element == *needle) return true;
      }
      return false;
    default:
      return false;
  }
}

bool EvaluateFunction(const Operand& fn, const Item* item) {
  AttributeValue s0, s1;
  const std::string& name = fn.text;
  const AttributeValue* a = expr::EvaluateOperand(fn.args[0], item, &s0);
  if (name == "attribute_exists") return a != nullptr;
  if (name == "attribute_not_exists") return a == nullptr;
  const AttributeValue* b = expr::EvaluateOperand(fn.args[1], item, &s1);
  if (name == "attribute_type") {
    return a != nullptr && b != nullptr && b->type() == AttributeType::kS &&
           AttributeTypeName(a->type()) == b->scalar();
  }
  if (name == "begins_with") {
    return a != nullptr && b != nullptr && a->type() == b->type() &&
           (a->type() == AttributeType::kS || a->type() == AttributeType::kB) &&
           a->scalar().compare(0, b->scalar().size(), b->scalar()) == 0;
  }
  if (name == "contains") return Contains(a, b);
  return false;
}

bool Evaluate(const Condition& c, const Item* item) {
  switch (c.kind) {
    case Condition::Kind::kAnd:
      return Evaluate(c.children[0], item) && Evaluate(c.children[1], item);
    case Condition::Kind::kOr:
      return Evaluate(c.children[0], item) || Evaluate(c.children[1], item);
    case Condition::Kind::kNot:
      return !Evaluate(c.children[0], item);
    case Condition::Kind::kFunction:
      return EvaluateFunction(c.operands[0], item);
    case Condition::Kind::kCompare: {
      AttributeValue s0, s1;
      return Compare(c.op, expr::EvaluateOperand(c.operands[0], item, &s0),
                     expr::EvaluateOperand(c.operands[1], item, &s1));
    }
    case Condition::Kind::kBetween: {
      AttributeValue s0, s1, s2;
      const AttributeValue* v = expr::EvaluateOperand(c.operands[0], item, &s0);
      std::optional<int> low = Order(v, expr::EvaluateOperand(c.operands[1], item, &s1));
      std::optional<int> high = Order(v, expr::EvaluateOperand(c.operands[2], item, &s2));
      return low && high && *low >= 0 && *high <= 0;
    }
    case Condition::Kind::kIn: {
      AttributeValue s0;
      const AttributeValue* v = expr::EvaluateOperand(c.operands[0], item, &s0);
      if (v == nullptr) return false;
      if (c.in_constants) return c.in_constants->Contains(*v);
      for (size_t i = 1; i < c.operands.size(); ++i) {
        AttributeValue s;
        const AttributeValue* candidate = expr::EvaluateOperand(c.operands[i], item, &s);
        if (candidate != nullptr && *candidate == *v) return true;
      }
      return false;
    }
  }
  return false;
}

// The selected paths as a tree: a node keeps its whole value (leaf) or the children named
// by the paths below it.
struct ProjectionNode {
  bool leaf = false;
  std::map<std::string, ProjectionNode> names;
  std::map<int, ProjectionNode> indexes;
};

std::optional<AttributeValue> Project(const AttributeValue& value, const ProjectionNode& node) {
  if (node.leaf) return value;
  if (value.type() == AttributeType::kM && !node.names.empty()) {
    AttributeMap out;
    for (const auto& [name, child] : node.names) {
      auto it = value.map().find(name);
      if (it == value.map().end()) continue;
      if (auto projected = Project(it->second, child)) out.emplace(name, std::move(*projected));
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::M(std::move(out));
  }
  if (value.type() == AttributeType::kL && !node.indexes.empty()) {
    std::vector<AttributeValue> out;
    for (const auto& [index, child] : node.indexes) {
      if (static_cast<size_t>(index) >= value.list().size()) break;
      if (auto projected = Project(value.list()[index], child)) {
        out.push_back(std::move(*projected));
      }
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::L(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

namespace {

bool OperandReferences(const expr::Operand& op, const std::string& name) {
  if (op.kind == expr::Operand::Kind::kPath) {
    return !op.resolved_path.empty() && op.resolved_path.front().name == name;
  }
  for (const auto& arg : op.args) {
    if (OperandReferences(arg, name)) return true;
  }
  return false;
}

bool References(const expr::Condition& c, const std::string& name) {
  for (const auto& op : c.operands) {
    if (OperandReferences(op, name)) return true;
  }
  for (const auto& child : c.children) {
    if (References(child, name)) return true;
  }
  return false;
}

}  // namespace

bool ConditionReferences(const CompiledCondition& condition, const std::string& name) {
  return References(condition.root, name);
}

namespace {

void CollectNames(const expr::Operand& op, std::vector<std::string>* names) {
  if (op.kind == expr::Operand::Kind::kPath && !op.resolved_path.empty()) {
    const std::string& name = op.resolved_path.front().name;
    if (std::find(names->begin(), names->end(), name) == names->end()) names->push_back(name);
  }
  for (const auto& arg : op.args) CollectNames(arg, names);
}

void CollectNames(const expr::Condition& c, std::vector<std::string>* names) {
  for (const auto& op : c.operands) CollectNames(op, names);
  for (const auto& child : c.children) CollectNames(child, names);
}

}  // namespace

std::vector<std::string> ConditionAttributeNames(const CompiledCondition& condition) {
  std::vector<std::string> names;
  CollectNames(condition.root, &names);
  return names;
}

bool EvaluateCondition(const CompiledCondition& condition, const Item* item) {
  return Evaluate(condition.root, item);
}

Item ApplyProjection(const Projection& projection, const Item& item) {
  ProjectionNode root;
  for (const DocumentPath& path : projection.paths) {
    ProjectionNode* node = &root;
    for (const PathElement& e : path) {
      node = e.index >= 0 ? &node->indexes[e.index] : &node->names[e.name];
    }
    node->leaf = true;
  }
  Item out;
  for (const auto& [name, child] : root.names) {
    auto it = item.find(name);
    if (it == item.end()) continue;
    if (auto projected = Project(it->second, child)) out.emplace(name, std::move(*projected));
  }
  return out;
}

}  // namespace ddb
