// UpdateExpression: compile (parse + checks that need no item + placeholder resolution)
// and apply (a pure function of the compiled update and the old item).
//
// Apply follows the service's semantics
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html):
//   - every SET right-hand side is read from the item as it was before the update, so
//     "SET a = :v, b = a" copies the old a ("test_update_expression_multi_with_copy");
//   - list indexes, in every clause, refer to the list before the update: writes are done
//     in ascending path order (so several SETs past the end of a list append in index
//     order) and REMOVEs last, in descending order (so removing a[1] does not shift a[3]);
//   - overlapping or conflicting target paths are rejected at compile time, so the actions
//     touch disjoint parts of the item and their relative order does not matter otherwise.
#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_set>

#include "ddb/limits.h"
#include "ddb/number.h"
#include "engine/expression/expression.h"
#include "engine/expression/expression_parser.h"
#include "engine/expression/expression_resolve.h"

namespace ddb {

using expr::InvalidExpression;
using expr::Operand;
using expr::UpdateAction;

namespace {

constexpr std::string_view kKind = "UpdateExpression";

// Visits every operand of an action in text order: target, value, value2.
template <typename Action, typename F>
Status ForEachActionOperand(Action& action, F&& f) {
  DDB_RETURN_IF_ERROR(f(action.target));
  if (action.kind != UpdateAction::Kind::kRemove) DDB_RETURN_IF_ERROR(f(action.value));
  if (action.arith != 0) DDB_RETURN_IF_ERROR(f(action.value2));
  return Status::Ok();
}

Status ForEachOperandRecursive(const Operand& op, const std::function<Status(const Operand&)>& f) {
  DDB_RETURN_IF_ERROR(f(op));
  for (const Operand& arg : op.args) DDB_RETURN_IF_ERROR(ForEachOperandRecursive(arg, f));
  return Status::Ok();
}

bool IsConditionFunction(std::string_view name) {
  return name == "attribute_exists" || name == "attribute_not_exists" || name == "attribute_type" ||
         name == "begins_with" || name == "contains" || name == "size";
}

// ADD / DELETE name operand types with these words.
std::string_view LongTypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kS:
      return "STRING";
    case AttributeType::kN:
      return "NUMBER";
    case AttributeType::kB:
      return "BINARY";
    case AttributeType::kBool:
      return "BOOLEAN";
    case AttributeType::kNull:
      return "NULL";
    case AttributeType::kL:
      return "LIST";
    case AttributeType::kM:
      return "MAP";
    default:
      return AttributeTypeName(type);
  }
}

Error IncorrectOperandType(std::string_view function, AttributeType type) {
  return InvalidExpression(kKind,
                           "Incorrect operand type for operator or function; operator or "
                           "function: " +
                               std::string(function) +
                               ", operand type: " + std::string(AttributeTypeName(type)));
}

// Arity and operand rules of if_not_exists / list_append (recursively) in a SET value.
Status CheckSetOperand(const Operand& op, bool inside_list_append) {
  if (op.kind != Operand::Kind::kFunction) return Status::Ok();
  const std::string& name = op.text;
  if (name == "list_append" && inside_list_append) {
    return InvalidExpression(
        kKind,
        "The function is not allowed to be used this way in an expression; function: " + name);
  }
  if (op.args.size() != 2) {
    return InvalidExpression(kKind,
                             "Incorrect number of operands for operator or function; "
                             "operator or function: " +
                                 name + ", number of operands: " + std::to_string(op.args.size()));
  }
  if (name == "if_not_exists") {
    if (op.args[0].kind != Operand::Kind::kPath) {
      return InvalidExpression(
          kKind, "Operator or function requires a document path; operator or function: " + name);
    }
  } else {
    for (const Operand& arg : op.args) {
      if (arg.kind == Operand::Kind::kValue && arg.value->type() != AttributeType::kL) {
        return IncorrectOperandType(name, arg.value->type());
      }
    }
  }
  for (const Operand& arg : op.args) {
    DDB_RETURN_IF_ERROR(CheckSetOperand(arg, name == "list_append"));
  }
  return Status::Ok();
}

}  // namespace

Result<UpdatePtr> CompileUpdate(std::string_view text, Placeholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(std::shared_ptr<const expr::ParsedUpdate> parsed, expr::ParseUpdate(text));
  // The checks run in the order the service reports them.
  for (const UpdateAction& action : parsed->actions) {
    DDB_RETURN_IF_ERROR(ForEachActionOperand(
        action, [](const Operand& o) { return expr::CheckReservedWords(o, kKind); }));
  }
  for (const UpdateAction& action : parsed->actions) {
    DDB_RETURN_IF_ERROR(ForEachActionOperand(action, [](const Operand& top) {
      return ForEachOperandRecursive(top, [](const Operand& o) -> Status {
        if (o.kind != Operand::Kind::kFunction || o.text == "if_not_exists" ||
            o.text == "list_append") {
          return Status::Ok();
        }
        if (IsConditionFunction(o.text)) {
          return InvalidExpression(
              kKind, "The function is not allowed in an update expression; function: " + o.text);
        }
        return InvalidExpression(kKind, "Invalid function name; function: " + o.text);
      });
    }));
  }
  if (!parsed->duplicate_section.empty()) {
    return InvalidExpression(kKind, "The \"" + parsed->duplicate_section +
                                        "\" section can only be used once in an update "
                                        "expression;");
  }
  auto compiled = std::make_shared<CompiledUpdate>();
  compiled->actions = parsed->actions;
  for (UpdateAction& action : compiled->actions) {
    DDB_RETURN_IF_ERROR(ForEachActionOperand(
        action, [&](Operand& o) { return expr::ResolveNames(&o, kKind, placeholders); }));
  }
  for (UpdateAction& action : compiled->actions) {
    DDB_RETURN_IF_ERROR(ForEachActionOperand(
        action, [&](Operand& o) { return expr::ResolveValues(&o, kKind, placeholders); }));
  }
  for (const UpdateAction& action : compiled->actions) {
    DDB_RETURN_IF_ERROR(ForEachActionOperand(
        action, [](const Operand& o) { return expr::CheckPathDepth(o, kKind); }));
  }
  std::vector<const DocumentPath*> targets;
  for (const UpdateAction& action : compiled->actions) {
    targets.push_back(&action.target.resolved_path);
  }
  DDB_RETURN_IF_ERROR(expr::CheckPathOverlaps(targets, kKind));
  for (const UpdateAction& action : compiled->actions) {
    if (action.kind == UpdateAction::Kind::kAdd || action.kind == UpdateAction::Kind::kDelete) {
      AttributeType type = action.value.value->type();
      bool ok = action.value.value->is_set() ||
                (action.kind == UpdateAction::Kind::kAdd && type == AttributeType::kN);
      if (!ok) {
        return InvalidExpression(
            kKind, "Incorrect operand type for operator or function; operator: " +
                       std::string(action.kind == UpdateAction::Kind::kAdd ? "ADD" : "DELETE") +
                       ", operand type: " + std::string(LongTypeName(type)));
      }
    } else if (action.kind == UpdateAction::Kind::kSet) {
      DDB_RETURN_IF_ERROR(CheckSetOperand(action.value, false));
      if (action.arith != 0) {
        DDB_RETURN_IF_ERROR(CheckSetOperand(action.value2, false));
        for (const Operand* o : {&action.value, &action.value2}) {
          if (o->kind == Operand::Kind::kValue && o->value->type() != AttributeType::kN) {
            return IncorrectOperandType(std::string(1, action.arith), o->value->type());
          }
        }
      }
    }
  }
  return UpdatePtr(std::move(compiled));
}

std::vector<DocumentPath> UpdatedPaths(const CompiledUpdate& update) {
  std::vector<DocumentPath> paths;
  for (const UpdateAction& action : update.actions) paths.push_back(action.target.resolved_path);
  return paths;
}

bool UpdateOnlyRemoves(const CompiledUpdate& update) {
  for (const UpdateAction& action : update.actions) {
    if (action.kind == UpdateAction::Kind::kSet || action.kind == UpdateAction::Kind::kAdd) {
      return false;
    }
  }
  return true;
}

size_t UpdateActionsCost(const CompiledUpdate& update) {
  // Measured against the service (tests/tier3/limits/itemSizeBySurface.test.ts in the
  // conformance suite): 3 bytes a statement, 19 a SET, 2 a REMOVE, one more for a list
  // index in the path (measured for a SET with one index; a map key costs nothing). ADD
  // and DELETE were not measured; like SET they carry a value, so they cost what it does.
  constexpr size_t kStatement = 3, kSet = 19, kRemove = 2, kListIndex = 1;
  size_t cost = kStatement;
  for (const UpdateAction& action : update.actions) {
    cost += action.kind == UpdateAction::Kind::kRemove ? kRemove : kSet;
    for (const PathElement& e : action.target.resolved_path) {
      if (e.index >= 0) cost += kListIndex;
    }
  }
  return cost;
}

namespace {

Error InvalidPath() {
  return Error::Validation(
      "The document path provided in the update expression is invalid for "
      "update");
}
Error IncorrectDataType() {
  return Error::Validation("An operand in the update expression has an incorrect data type");
}
Error MissingAttribute() {
  return Error::Validation(
      "The provided expression refers to an attribute that does not exist "
      "in the item");
}

Result<AttributeValue> EvaluateSetOperand(const Operand& op, const Item& item) {
  switch (op.kind) {
    case Operand::Kind::kValue:
      return *op.value;
    case Operand::Kind::kPath: {
      const AttributeValue* v = ResolvePath(item, op.resolved_path);
      if (v == nullptr) return MissingAttribute();
      return *v;
    }
    case Operand::Kind::kFunction:
      break;
  }
  if (op.text == "if_not_exists") {
    const AttributeValue* v = ResolvePath(item, op.args[0].resolved_path);
    if (v != nullptr) return *v;
    return EvaluateSetOperand(op.args[1], item);
  }
  // list_append
  DDB_ASSIGN_OR_RETURN(AttributeValue a, EvaluateSetOperand(op.args[0], item));
  DDB_ASSIGN_OR_RETURN(AttributeValue b, EvaluateSetOperand(op.args[1], item));
  if (a.type() != AttributeType::kL || b.type() != AttributeType::kL) return IncorrectDataType();
  std::vector<AttributeValue> list = std::move(a.mutable_list());
  for (AttributeValue& v : b.mutable_list()) list.push_back(std::move(v));
  return AttributeValue::L(std::move(list));
}

Result<AttributeValue> EvaluateSetValue(const UpdateAction& action, const Item& item) {
  DDB_ASSIGN_OR_RETURN(AttributeValue a, EvaluateSetOperand(action.value, item));
  if (action.arith == 0) return a;
  DDB_ASSIGN_OR_RETURN(AttributeValue b, EvaluateSetOperand(action.value2, item));
  if (a.type() != AttributeType::kN || b.type() != AttributeType::kN) return IncorrectDataType();
  DDB_ASSIGN_OR_RETURN(std::string sum, action.arith == '+'
                                            ? AddNumbers(a.scalar(), b.scalar())
                                            : SubtractNumbers(a.scalar(), b.scalar()));
  return AttributeValue::N(std::move(sum));
}

// Where the last element of a path lives: a map entry or a list position. A path whose
// parent is missing or not of the kind its last element needs is "invalid for update".
struct Slot {
  AttributeMap* map = nullptr;
  std::string key;
  std::vector<AttributeValue>* list = nullptr;
  size_t index = 0;

  AttributeValue* Get() const {
    if (map != nullptr) {
      auto it = map->find(key);
      return it == map->end() ? nullptr : &it->second;
    }
    return index < list->size() ? &(*list)[index] : nullptr;
  }
  // Replaces the value, or adds it: a list index past the end appends.
  void Put(AttributeValue value) const {
    if (map != nullptr) {
      (*map)[key] = std::move(value);
    } else if (index < list->size()) {
      (*list)[index] = std::move(value);
    } else {
      list->push_back(std::move(value));
    }
  }
  void Erase() const {
    if (map != nullptr) {
      map->erase(key);
    } else if (index < list->size()) {
      list->erase(list->begin() + index);
    }
  }
};

Result<Slot> FindSlot(Item* item, const DocumentPath& path) {
  Slot slot;
  if (path.size() == 1) {
    slot.map = item;
    slot.key = path[0].name;
    return slot;
  }
  auto it = item->find(path[0].name);
  if (it == item->end()) return InvalidPath();
  AttributeValue* parent = &it->second;
  for (size_t i = 1; i + 1 < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.index >= 0) {
      if (parent->type() != AttributeType::kL ||
          static_cast<size_t>(e.index) >= parent->list().size()) {
        return InvalidPath();
      }
      parent = &parent->mutable_list()[e.index];
    } else {
      if (parent->type() != AttributeType::kM) return InvalidPath();
      auto child = parent->mutable_map().find(e.name);
      if (child == parent->mutable_map().end()) return InvalidPath();
      parent = &child->second;
    }
  }
  const PathElement& last = path.back();
  if (last.index >= 0) {
    if (parent->type() != AttributeType::kL) return InvalidPath();
    slot.list = &parent->mutable_list();
    slot.index = static_cast<size_t>(last.index);
  } else {
    if (parent->type() != AttributeType::kM) return InvalidPath();
    slot.map = &parent->mutable_map();
    slot.key = last.name;
  }
  return slot;
}

// Path order for applying actions: element by element, indexes numerically; a prefix
// first. (Paths never mix a name and an index at one position with equal prefixes: such
// paths conflict and are rejected at compile time.)
bool PathLess(const DocumentPath& a, const DocumentPath& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i].index != b[i].index) return a[i].index < b[i].index;
    if (a[i].name != b[i].name) return a[i].name < b[i].name;
  }
  return a.size() < b.size();
}

Result<AttributeValue> SetUnion(const AttributeValue& a, const AttributeValue& b) {
  std::vector<std::string> members = a.set();
  members.insert(members.end(), b.set().begin(), b.set().end());
  SortSet(a.type(), &members);
  members.erase(std::unique(members.begin(), members.end()), members.end());
  switch (a.type()) {
    case AttributeType::kSS:
      return AttributeValue::SS(std::move(members));
    case AttributeType::kNS:
      return AttributeValue::NS(std::move(members));
    default:
      return AttributeValue::BS(std::move(members));
  }
}

Status ApplyAdd(const Slot& slot, const AttributeValue& value) {
  AttributeValue* existing = slot.Get();
  if (existing == nullptr) {
    slot.Put(value);
    return Status::Ok();
  }
  if (existing->type() != value.type()) return IncorrectDataType();
  if (value.type() == AttributeType::kN) {
    DDB_ASSIGN_OR_RETURN(std::string sum, AddNumbers(existing->scalar(), value.scalar()));
    *existing = AttributeValue::N(std::move(sum));
    return Status::Ok();
  }
  DDB_ASSIGN_OR_RETURN(*existing, SetUnion(*existing, value));
  return Status::Ok();
}

Status ApplyDelete(const Slot& slot, const AttributeValue& value) {
  AttributeValue* existing = slot.Get();
  if (existing == nullptr) return Status::Ok();
  if (existing->type() != value.type()) return IncorrectDataType();
  std::vector<std::string>& members = existing->mutable_set();
  // Members are normalised (numbers too), so text equality is value equality. A hash set of
  // the members to delete: a search of the list for each member took minutes of a core for
  // sets of 100,000 (issue 29).
  const std::unordered_set<std::string_view> gone(value.set().begin(), value.set().end());
  members.erase(std::remove_if(members.begin(), members.end(),
                               [&](const std::string& m) { return gone.count(m) != 0; }),
                members.end());
  // DynamoDB has no empty sets: deleting the last member removes the attribute.
  if (members.empty()) slot.Erase();
  return Status::Ok();
}

}  // namespace

Status ApplyUpdate(const CompiledUpdate& update, Item* item) {
  // Right-hand sides first, all from the old item. No two SETs share a path (nor a path and
  // its parent: CheckPathOverlaps), so every value lands whole in the new item: once they pass
  // the item size limit together, so would the item, and evaluating the rest (one copy each of
  // values a request may repeat hundreds of times) is not worth it.
  std::vector<AttributeValue> set_values(update.actions.size());
  size_t set_bytes = 0;
  for (size_t i = 0; i < update.actions.size(); ++i) {
    if (update.actions[i].kind == UpdateAction::Kind::kSet) {
      DDB_ASSIGN_OR_RETURN(set_values[i], EvaluateSetValue(update.actions[i], *item));
      set_bytes += AttributeValueSize(set_values[i]);
      if (set_bytes > kMaxItemSize) {
        return Error::Validation("Item size to update has exceeded the maximum allowed size");
      }
    }
  }
  std::vector<size_t> writes, removes;
  for (size_t i = 0; i < update.actions.size(); ++i) {
    (update.actions[i].kind == UpdateAction::Kind::kRemove ? removes : writes).push_back(i);
  }
  auto path_of = [&](size_t i) -> const DocumentPath& {
    return update.actions[i].target.resolved_path;
  };
  std::stable_sort(writes.begin(), writes.end(),
                   [&](size_t a, size_t b) { return PathLess(path_of(a), path_of(b)); });
  std::stable_sort(removes.begin(), removes.end(),
                   [&](size_t a, size_t b) { return PathLess(path_of(b), path_of(a)); });
  for (size_t i : writes) {
    const UpdateAction& action = update.actions[i];
    DDB_ASSIGN_OR_RETURN(Slot slot, FindSlot(item, path_of(i)));
    switch (action.kind) {
      case UpdateAction::Kind::kSet:
        slot.Put(std::move(set_values[i]));
        break;
      case UpdateAction::Kind::kAdd:
        DDB_RETURN_IF_ERROR(ApplyAdd(slot, *action.value.value));
        break;
      case UpdateAction::Kind::kDelete:
        DDB_RETURN_IF_ERROR(ApplyDelete(slot, *action.value.value));
        break;
      case UpdateAction::Kind::kRemove:
        break;
    }
  }
  for (size_t i : removes) {
    DDB_ASSIGN_OR_RETURN(Slot slot, FindSlot(item, path_of(i)));
    slot.Erase();
  }
  return Status::Ok();
}

}  // namespace ddb
