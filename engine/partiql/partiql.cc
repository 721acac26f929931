// PartiQL statements compiled to the engine's own operations. The WHERE clause and SET
// values are rendered as DynamoDB expressions with generated placeholders (#pN, :pN), so
// conditions, filters and updates keep the exact semantics and messages of the expression
// engine.
#include <algorithm>
#include <map>

#include "ddb/engine.h"
#include "engine/expression/expression.h"
#include "engine/partiql/partiql_index.h"
#include "engine/partiql/partiql_parser.h"
#include "engine/transactions.h"

namespace ddb {
namespace {

using partiql::Expr;
using partiql::Statement;

// The names and values the generated expressions refer to.
class Generated {
 public:
  std::string Name(const std::string& attribute) {
    auto [it, added] = by_attribute_.emplace(attribute, "");
    if (added) {
      it->second = "#p" + std::to_string(by_attribute_.size());
      names_[it->second] = attribute;
    }
    return it->second;
  }
  std::string Path(const DocumentPath& path) {
    std::string out;
    for (const PathElement& e : path) {
      if (e.index >= 0) {
        out += "[" + std::to_string(e.index) + "]";
      } else {
        if (!out.empty()) out += ".";
        out += Name(e.name);
      }
    }
    return out;
  }
  std::string Value(const AttributeValue& v) {
    std::string name = ":p" + std::to_string(values_.size() + 1);
    values_[name] = v;
    return name;
  }
  template <typename Request>  // ConditionalWrite or ReadRequestBase
  void ApplyTo(Request* r) const {
    if (!names_.empty()) r->expression_attribute_names = names_;
    if (!values_.empty()) r->expression_attribute_values = values_;
  }
  const std::map<std::string, std::string>& names() const { return names_; }
  const Item& values() const { return values_; }

 private:
  std::map<std::string, std::string> by_attribute_;
  std::map<std::string, std::string> names_;
  Item values_;
};

Error Unsupported(const std::string& what) {
  return Error::Validation("Statement wasn't well formed, can't be processed: " + what);
}

// A condition (or an operand of one) as expression text; every node that is not a leaf is
// parenthesised once, so the result never has the redundant parentheses the expression
// parser refuses.
Result<std::string> Render(const Expr& e, Generated* ph) {
  auto arg = [&](size_t i) { return Render(e.args[i], ph); };
  switch (e.kind) {
    case Expr::Kind::kPath:
      return ph->Path(e.path);
    case Expr::Kind::kValue:
      return ph->Value(e.value);
    case Expr::Kind::kCompare: {
      DDB_ASSIGN_OR_RETURN(std::string a, arg(0));
      DDB_ASSIGN_OR_RETURN(std::string b, arg(1));
      return "(" + a + " " + e.op + " " + b + ")";
    }
    case Expr::Kind::kBetween: {
      DDB_ASSIGN_OR_RETURN(std::string s, arg(0));
      DDB_ASSIGN_OR_RETURN(std::string lo, arg(1));
      DDB_ASSIGN_OR_RETURN(std::string hi, arg(2));
      return "(" + s + " BETWEEN " + lo + " AND " + hi + ")";
    }
    case Expr::Kind::kIn: {
      DDB_ASSIGN_OR_RETURN(std::string s, arg(0));
      std::string out = "(" + s + " IN (";
      for (size_t i = 1; i < e.args.size(); ++i) {
        DDB_ASSIGN_OR_RETURN(std::string c, arg(i));
        out += (i > 1 ? ", " : "") + c;
      }
      return out + "))";
    }
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr: {
      DDB_ASSIGN_OR_RETURN(std::string a, arg(0));
      DDB_ASSIGN_OR_RETURN(std::string b, arg(1));
      return "(" + a + (e.kind == Expr::Kind::kAnd ? " AND " : " OR ") + b + ")";
    }
    case Expr::Kind::kNot: {
      DDB_ASSIGN_OR_RETURN(std::string a, arg(0));
      return "(NOT " + a + ")";
    }
    case Expr::Kind::kMissing:
    case Expr::Kind::kNull: {
      if (e.args[0].kind != Expr::Kind::kPath) return Unsupported("IS needs an attribute path");
      const std::string p = ph->Path(e.args[0].path);
      if (e.kind == Expr::Kind::kMissing) {
        return std::string(e.negated ? "attribute_exists(" : "attribute_not_exists(") + p + ")";
      }
      // PartiQL: MISSING IS NULL too.
      const std::string null_type = ph->Value(AttributeValue::S("NULL"));
      if (e.negated) {
        return "(attribute_exists(" + p + ") AND (NOT attribute_type(" + p + ", " + null_type +
               ")))";
      }
      return "(attribute_not_exists(" + p + ") OR attribute_type(" + p + ", " + null_type + "))";
    }
    case Expr::Kind::kFunction: {
      std::string out = e.op + "(";
      for (size_t i = 0; i < e.args.size(); ++i) {
        DDB_ASSIGN_OR_RETURN(std::string a, arg(i));
        out += (i > 0 ? ", " : "") + a;
      }
      return out + ")";
    }
    case Expr::Kind::kAdd:
    case Expr::Kind::kSub: {
      DDB_ASSIGN_OR_RETURN(std::string a, arg(0));
      DDB_ASSIGN_OR_RETURN(std::string b, arg(1));
      return a + (e.kind == Expr::Kind::kAdd ? " + " : " - ") + b;
    }
  }
  return Unsupported("unknown expression");
}

void FlattenAnd(const Expr& e, std::vector<const Expr*>* terms) {
  if (e.kind == Expr::Kind::kAnd) {
    FlattenAnd(e.args[0], terms);
    FlattenAnd(e.args[1], terms);
  } else {
    terms->push_back(&e);
  }
}

bool IsAttribute(const Expr& e, const std::string& name) {
  return e.kind == Expr::Kind::kPath && e.path.size() == 1 && e.path[0].index < 0 &&
         e.path[0].name == name;
}

// "name = value" (either way round): the value, else null.
const AttributeValue* EqualityOn(const Expr& term, const std::string& name) {
  if (term.kind != Expr::Kind::kCompare || term.op != "=") return nullptr;
  if (IsAttribute(term.args[0], name) && term.args[1].kind == Expr::Kind::kValue) {
    return &term.args[1].value;
  }
  if (IsAttribute(term.args[1], name) && term.args[0].kind == Expr::Kind::kValue) {
    return &term.args[0].value;
  }
  return nullptr;
}

// Terms joined by AND, parenthesised once when there are several.
Result<std::string> RenderAll(const std::vector<const Expr*>& terms, Generated* ph) {
  std::string out;
  for (const Expr* t : terms) {
    DDB_ASSIGN_OR_RETURN(std::string r, Render(*t, ph));
    out += (out.empty() ? "" : " AND ") + r;
  }
  return terms.size() > 1 ? "(" + out + ")" : out;
}

struct KeyNames {
  std::string hash;
  std::optional<std::string> range;
};

KeyNames KeysOf(const std::vector<KeySchemaElement>& schema) {
  KeyNames k;
  for (const KeySchemaElement& e : schema) {
    if (e.key_type == KeyType::kHash && k.hash.empty()) k.hash = e.attribute_name;
    if (e.key_type == KeyType::kRange && !k.range) k.range = e.attribute_name;
  }
  return k;
}

// The item key the WHERE clause fixes, and its other terms. Errors: kValidation when an
// equality on a key attribute is missing.
Result<std::pair<Item, std::vector<const Expr*>>> SplitKey(const Statement& st,
                                                           const KeyNames& keys) {
  std::vector<const Expr*> terms;
  if (st.where) FlattenAnd(*st.where, &terms);
  Item key;
  std::vector<const Expr*> rest;
  for (const Expr* t : terms) {
    bool used = false;
    for (const std::string* name : {&keys.hash, keys.range ? &*keys.range : nullptr}) {
      if (name == nullptr || key.count(*name)) continue;
      if (const AttributeValue* v = EqualityOn(*t, *name)) {
        key.emplace(*name, *v);
        used = true;
        break;
      }
    }
    if (!used) rest.push_back(t);
  }
  if (!key.count(keys.hash) || (keys.range && !key.count(*keys.range))) {
    return Error::Validation(
        "Where clause does not contain a mandatory equality on all key attributes");
  }
  return std::make_pair(std::move(key), std::move(rest));
}

// One write statement as a transaction action (the form every write takes here).
struct CompiledWrite {
  TransactWriteAction action;
  ReturnValues return_values = ReturnValues::kNone;
  bool insert = false;
};

Result<CompiledWrite> CompileWrite(const Statement& st, const TableDescription& table,
                                   const ExecuteStatementRequest& req) {
  if (st.index) return Error::Validation("This operation is not supported on an index");
  const KeyNames keys = KeysOf(table.key_schema);
  CompiledWrite w;
  w.action.table_name = st.table;
  w.action.return_old_on_condition_failure = req.return_old_on_condition_failure;
  w.return_values = st.returning;
  Generated ph;
  if (st.kind == Statement::Kind::kInsert) {
    w.insert = true;
    w.action.kind = TransactWriteAction::Kind::kPut;
    w.action.item_or_key = st.item;
    w.action.condition_expression = "attribute_not_exists(" + ph.Name(keys.hash) + ")";
    ph.ApplyTo(&w.action);
    return w;
  }
  DDB_ASSIGN_OR_RETURN(auto split, SplitKey(st, keys));
  w.action.item_or_key = std::move(split.first);
  DDB_ASSIGN_OR_RETURN(std::string rest, RenderAll(split.second, &ph));
  if (st.kind == Statement::Kind::kExists) {
    // A condition check: the item exists and meets the rest of WHERE (the developer guide's
    // "Using the EXISTS function with PartiQL for DynamoDB").
    w.action.kind = TransactWriteAction::Kind::kConditionCheck;
    w.action.condition_expression =
        "attribute_exists(" + ph.Name(keys.hash) + ")" + (rest.empty() ? "" : " AND " + rest);
    ph.ApplyTo(&w.action);
    return w;
  }
  if (st.kind == Statement::Kind::kDelete) {
    // A missing item is deleted quietly; an existing one must meet the rest of WHERE.
    w.action.kind = TransactWriteAction::Kind::kDelete;
    if (!rest.empty()) {
      w.action.condition_expression = "attribute_not_exists(" + ph.Name(keys.hash) + ") OR " + rest;
    }
    ph.ApplyTo(&w.action);
    return w;
  }
  // UPDATE: only an existing item, meeting the rest of WHERE.
  w.action.kind = TransactWriteAction::Kind::kUpdate;
  w.action.condition_expression =
      "attribute_exists(" + ph.Name(keys.hash) + ")" + (rest.empty() ? "" : " AND " + rest);
  std::string set, add, del, remove;
  for (const partiql::SetAction& a : st.sets) {
    const std::string path = ph.Path(a.path);
    if (a.value.kind == Expr::Kind::kFunction &&
        (a.value.op == "set_add" || a.value.op == "set_delete")) {
      if (a.value.args.size() != 2 || a.value.args[1].kind != Expr::Kind::kValue) {
        return Unsupported(a.value.op + " takes an attribute and a set");
      }
      std::string& clause = a.value.op == "set_add" ? add : del;
      clause += (clause.empty() ? "" : ", ") + path + " " + ph.Value(a.value.args[1].value);
      continue;
    }
    DDB_ASSIGN_OR_RETURN(std::string value, Render(a.value, &ph));
    set += (set.empty() ? "" : ", ") + path + " = " + value;
  }
  for (const DocumentPath& p : st.removes) remove += (remove.empty() ? "" : ", ") + ph.Path(p);
  std::string update;
  for (auto [keyword, clause] : {std::pair<const char*, std::string*>{"SET ", &set},
                                 {"REMOVE ", &remove},
                                 {"ADD ", &add},
                                 {"DELETE ", &del}}) {
    if (!clause->empty()) update += (update.empty() ? "" : " ") + std::string(keyword) + *clause;
  }
  w.action.update_expression = std::move(update);
  ph.ApplyTo(&w.action);
  return w;
}

Error DuplicateItem() {
  return Error(ErrorCode::kDuplicateItem, "Duplicate primary key exists in table");
}

// INSERT, UPDATE or DELETE: one PutItem, UpdateItem or DeleteItem.
Result<ExecuteStatementResult> RunWrite(Engine& engine, const CompiledWrite& w,
                                        const ExecuteStatementRequest& req) {
  const TransactWriteAction& a = w.action;
  ExecuteStatementResult result;
  std::optional<Item> returned;
  if (a.kind == TransactWriteAction::Kind::kPut) {
    PutItemRequest put;
    static_cast<ConditionalWrite&>(put) = a;
    put.table_name = a.table_name;
    put.item = a.item_or_key;
    put.return_consumed_capacity = req.return_consumed_capacity;
    Result<PutItemResult> r = engine.PutItem(put);
    if (!r.ok()) {
      if (r.error().code() == ErrorCode::kConditionalCheckFailed) return DuplicateItem();
      return r.error();
    }
    result.consumed_capacity = std::move(r.value().consumed_capacity);
  } else if (a.kind == TransactWriteAction::Kind::kDelete) {
    DeleteItemRequest del;
    static_cast<ConditionalWrite&>(del) = a;
    del.table_name = a.table_name;
    del.key = a.item_or_key;
    del.return_values = w.return_values;
    del.return_consumed_capacity = req.return_consumed_capacity;
    DDB_ASSIGN_OR_RETURN(DeleteItemResult r, engine.DeleteItem(del));
    returned = std::move(r.attributes);
    result.consumed_capacity = std::move(r.consumed_capacity);
  } else {
    UpdateItemRequest update;
    static_cast<ConditionalWrite&>(update) = a;
    update.table_name = a.table_name;
    update.key = a.item_or_key;
    update.update_expression = a.update_expression;
    update.return_values = w.return_values;
    update.return_consumed_capacity = req.return_consumed_capacity;
    update.finished_item_size_only = true;
    DDB_ASSIGN_OR_RETURN(UpdateItemResult r, engine.UpdateItem(update));
    returned = std::move(r.attributes);
    result.consumed_capacity = std::move(r.consumed_capacity);
  }
  if (returned) result.items.push_back(std::move(*returned));
  return result;
}

// A SELECT's WHERE terms: the equality on the partition key of the table or index read and
// a condition on its sort key (when there is such an equality, these become a Query's key
// condition), and the rest (the filter).
struct WhereTerms {
  const Expr* hash = nullptr;
  const Expr* range = nullptr;
  std::vector<const Expr*> rest;
  // An IN on the partition key, when there is no equality: the service decomposes it into
  // one Query per candidate (here it stays a Scan's filter), so the read counts as keyed.
  const Expr* hash_in = nullptr;

  // The terms besides the key condition when the read is keyed, else null.
  std::optional<std::vector<const Expr*>> KeyedFilter() const {
    if (hash) return rest;
    if (!hash_in) return std::nullopt;
    std::vector<const Expr*> others;
    for (const Expr* t : rest) {
      if (t != hash_in) others.push_back(t);
    }
    return others;
  }
};

WhereTerms SplitWhere(const Statement& st, const TableDescription& table) {
  KeyNames keys = KeysOf(table.key_schema);
  if (st.index) {
    for (const auto* list : {&table.local_secondary_indexes, &table.global_secondary_indexes}) {
      for (const auto& index : *list) {
        if (index.index_name == *st.index) keys = KeysOf(index.key_schema);
      }
    }
  }
  std::vector<const Expr*> terms;
  if (st.where) FlattenAnd(*st.where, &terms);
  WhereTerms out;
  for (const Expr* t : terms) {
    if (!out.hash_in && t->kind == Expr::Kind::kIn && IsAttribute(t->args[0], keys.hash) &&
        std::all_of(t->args.begin() + 1, t->args.end(),
                    [](const Expr& c) { return c.kind == Expr::Kind::kValue; })) {
      out.hash_in = t;
    }
    if (!out.hash && EqualityOn(*t, keys.hash)) {
      out.hash = t;
    } else if (!out.range && keys.range) {
      const bool on_range =
          (t->kind == Expr::Kind::kCompare && t->op != "<>" &&
           IsAttribute(t->args[0], *keys.range) && t->args[1].kind == Expr::Kind::kValue) ||
          (t->kind == Expr::Kind::kBetween && IsAttribute(t->args[0], *keys.range)) ||
          (t->kind == Expr::Kind::kFunction && t->op == "begins_with" && t->args.size() == 2 &&
           IsAttribute(t->args[0], *keys.range));
      if (on_range) out.range = t;
    }
  }
  for (const Expr* t : terms) {
    if (out.hash && (t == out.hash || t == out.range)) continue;
    out.rest.push_back(t);
  }
  return out;
}

// A SELECT's WHERE is a statement, not a FilterExpression: the service reports its errors
// without the expression's frame ("Invalid FilterExpression: ").
Error WithoutFilterFrame(Error e) {
  constexpr std::string_view kFrame = "Invalid FilterExpression: ";
  if (e.code() != ErrorCode::kValidation || !e.message().starts_with(kFrame)) return e;
  return Error::Validation(e.message().substr(kFrame.size()));
}

// The service checks a SELECT's WHERE as an expression (operand types and the like) before
// it looks the table up.
Status CheckWhere(const Statement& st) {
  if (!st.where) return Status::Ok();
  Generated ph;
  DDB_ASSIGN_OR_RETURN(std::string text, Render(*st.where, &ph));
  Placeholders placeholders;
  placeholders.names = &ph.names();
  placeholders.values = &ph.values();
  Result<ConditionPtr> compiled = CompileCondition(text, "FilterExpression", &placeholders);
  if (!compiled.ok()) return WithoutFilterFrame(compiled.error());
  return Status::Ok();
}

// PartiQL names a selected path by its last attribute name: SELECT a.b returns {"b": ...}.
// (A path that ends in a list index keeps its place in the item.)
void NameSelectedPaths(const std::vector<DocumentPath>& projection, Item* item) {
  auto renamed = [](const DocumentPath& p) { return p.size() > 1 && p.back().index < 0; };
  if (std::none_of(projection.begin(), projection.end(), renamed)) return;
  Item out;
  for (const DocumentPath& p : projection) {
    if (!renamed(p)) {
      auto it = item->find(p[0].name);
      if (it != item->end()) out[p[0].name] = it->second;
    } else if (const AttributeValue* v = ResolvePath(*item, p)) {
      out[p.back().name] = *v;
    }
  }
  *item = std::move(out);
}
void NameSelectedPaths(const std::vector<DocumentPath>& projection, std::vector<Item>* items) {
  for (Item& item : *items) NameSelectedPaths(projection, &item);
}

// What a SELECT's Query and Scan share: table, index, filter, projection, paging.
Status BuildRead(const Statement& st, const ExecuteStatementRequest& req,
                 const std::vector<const Expr*>& filter, Generated* ph, ReadRequestBase* r) {
  if (!filter.empty()) {
    DDB_ASSIGN_OR_RETURN(std::string text, RenderAll(filter, ph));
    r->filter_expression = std::move(text);
  }
  if (!st.projection.empty()) {
    std::string p;
    for (const DocumentPath& path : st.projection) p += (p.empty() ? "" : ", ") + ph->Path(path);
    r->projection_expression = std::move(p);
  }
  r->table_name = st.table;
  r->index_name = st.index;
  r->consistent_read = req.consistent_read;
  r->limit = req.limit;
  r->exclusive_start_key = req.exclusive_start_key;
  r->return_consumed_capacity = req.return_consumed_capacity;
  return Status::Ok();
}

// SELECT: a Query when WHERE fixes the partition key of the table or index read, else a
// Scan; the other terms filter.
Result<ExecuteStatementResult> RunSelect(Engine& engine, const TableDescription& table,
                                         const Statement& st, const ExecuteStatementRequest& req) {
  WhereTerms where = SplitWhere(st, table);
  if (st.index) {
    const std::optional<std::vector<const Expr*>> keyed = where.KeyedFilter();
    DDB_RETURN_IF_ERROR(
        partiql::CheckIndexRead(table, st, req.consistent_read, keyed ? &*keyed : nullptr));
  }
  Generated ph;
  ReadResult page;
  if (where.hash) {
    QueryRequest q;
    DDB_ASSIGN_OR_RETURN(q.key_condition_expression, Render(*where.hash, &ph));
    if (where.range) {
      DDB_ASSIGN_OR_RETURN(std::string range, Render(*where.range, &ph));
      q.key_condition_expression += " AND " + range;
    }
    DDB_RETURN_IF_ERROR(BuildRead(st, req, where.rest, &ph, &q));
    q.scan_index_forward = !st.descending;
    ph.ApplyTo(&q);
    Result<ReadResult> read = engine.Query(q);
    if (!read.ok()) return WithoutFilterFrame(read.error());
    page = std::move(read).value();
  } else {
    if (st.order_by) {
      return Error::Validation(
          "Must have WHERE clause in the statement when using ORDER BY clause.");
    }
    ScanRequest s;
    DDB_RETURN_IF_ERROR(BuildRead(st, req, where.rest, &ph, &s));
    s.filter_index_entries = true;  // unkeyed: an index's entries are filtered as they are
    ph.ApplyTo(&s);
    Result<ReadResult> read = engine.Scan(s);
    if (!read.ok()) return WithoutFilterFrame(read.error());
    page = std::move(read).value();
  }
  ExecuteStatementResult result;
  result.items = std::move(page.items);
  NameSelectedPaths(st.projection, &result.items);
  result.last_evaluated_key = std::move(page.last_evaluated_key);
  result.consumed_capacity = std::move(page.consumed_capacity);
  return result;
}

// EXISTS is a transaction's condition check, and only that (ddb's wording: the service's for
// EXISTS elsewhere is not on record).
Status OnlyInTransactions(const Statement& st) {
  if (st.kind != Statement::Kind::kExists) return Status::Ok();
  return Error::Validation("EXISTS can be used only in ExecuteTransaction");
}

// One parsed statement, run on the engine's public operations.
Result<ExecuteStatementResult> RunStatement(Engine& engine, const RequestContext& ctx,
                                            const Statement& st,
                                            const ExecuteStatementRequest& req) {
  DDB_RETURN_IF_ERROR(OnlyInTransactions(st));
  DDB_ASSIGN_OR_RETURN(TableDescription table, engine.DescribeTable(ctx, st.table));
  if (st.is_read()) return RunSelect(engine, table, st, req);
  DDB_ASSIGN_OR_RETURN(CompiledWrite w, CompileWrite(st, table, req));
  return RunWrite(engine, w, req);
}

}  // namespace

Result<ExecuteStatementResult> Engine::ExecuteStatement(const RequestContext& ctx,
                                                        const ExecuteStatementRequest& req) {
  DDB_ASSIGN_OR_RETURN(Statement st, partiql::Parse(req.statement, req.parameters));
  if (st.is_read()) DDB_RETURN_IF_ERROR(CheckWhere(st));
  return RunStatement(*this, ctx, st, req);
}

namespace {

// A read in a batch or transaction: one item by its full key. A batch's read that is not
// one (it names an index, misses a key attribute or has other terms) gets the service's
// words; a transaction refuses an index before it looks up any table.
Result<TransactGetAction> CompileKeyRead(const Statement& st, const TableDescription& table,
                                         bool batch) {
  const Error batch_error = Error::Validation(
      "Select statements within BatchExecuteStatement must specify the primary key in the "
      "where clause.");
  if (st.index) {
    return batch ? batch_error : Unsupported("a read by key cannot name an index");
  }
  Result<std::pair<Item, std::vector<const Expr*>>> split = SplitKey(st, KeysOf(table.key_schema));
  if (!split.ok() || !split.value().second.empty()) {
    if (batch) return batch_error;
    if (!split.ok()) return split.error();
    return Error::Validation(
        "Where clause of a read in a batch or transaction may only fix the key attributes");
  }
  TransactGetAction get;
  get.table_name = st.table;
  get.key = std::move(split.value().first);
  if (!st.projection.empty()) {
    Generated ph;
    std::string p;
    for (const DocumentPath& path : st.projection) p += (p.empty() ? "" : ", ") + ph.Path(path);
    get.projection_expression = std::move(p);
    get.expression_attribute_names = ph.names();
  }
  return get;
}

// One member of a BatchExecuteStatement: its error, if any. A member rejected before it ran
// (it does not parse, or is not a single-item read or write of its table) names no table,
// as the service answers; one that ran (or whose table is missing) does. A write's
// RETURNING items come back in the response.
template <typename Account>
std::optional<Error> RunBatchMember(Engine& engine, const RequestContext& ctx,
                                    const Result<Statement>& parsed,
                                    const ExecuteStatementRequest& s, ReturnConsumedCapacity rcc,
                                    BatchStatementResponse* response, Account& account) {
  if (!parsed.ok()) return parsed.error();
  const Statement& st = parsed.value();
  if (Status only = OnlyInTransactions(st); !only.ok()) return only.error();
  Result<TableDescription> table = engine.DescribeTable(ctx, st.table);
  if (!table.ok()) {
    response->table_name = st.table;
    return table.error();
  }
  if (st.is_read()) {
    Result<TransactGetAction> get = CompileKeyRead(st, table.value(), /*batch=*/true);
    if (!get.ok()) return get.error();
    response->table_name = st.table;
    GetItemRequest g;
    g.table_name = get.value().table_name;
    g.key = get.value().key;
    g.projection_expression = get.value().projection_expression;
    g.expression_attribute_names = get.value().expression_attribute_names;
    g.consistent_read = s.consistent_read;
    g.return_consumed_capacity = rcc;
    Result<GetItemResult> r = engine.GetItem(g);
    if (!r.ok()) return r.error();
    account(std::move(r.value().consumed_capacity));
    response->item = std::move(r.value().item);
    if (response->item) NameSelectedPaths(st.projection, &*response->item);
    return std::nullopt;
  }
  Result<CompiledWrite> w = CompileWrite(st, table.value(), s);
  if (!w.ok()) return w.error();
  response->table_name = st.table;
  ExecuteStatementRequest single = s;
  single.return_consumed_capacity = rcc;
  Result<ExecuteStatementResult> r = RunWrite(engine, w.value(), single);
  if (!r.ok()) return r.error();
  account(std::move(r.value().consumed_capacity));
  if (!r.value().items.empty() && !r.value().items[0].empty()) {
    response->item = std::move(r.value().items[0]);
  }
  return std::nullopt;
}

Status CheckAllReadsOrAllWrites(const std::vector<Statement>& statements) {
  for (const Statement& st : statements) {
    if (st.is_read() != statements.front().is_read()) {
      return Error::Validation(
          "Statements must all be reads (SELECT) or all be writes (INSERT, UPDATE, DELETE)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<BatchExecuteStatementResult> Engine::BatchExecuteStatement(
    const RequestContext& ctx, const BatchExecuteStatementRequest& req) {
  if (req.statements.empty() || req.statements.size() > 25) {
    return Error::Validation(
        "1 validation error detected: Value at 'statements' failed to "
        "satisfy constraint: Member must have length less than or equal "
        "to 25");
  }
  BatchExecuteStatementResult result;
  // Parsed once; a statement that does not parse gets its error in its response.
  std::vector<Result<Statement>> statements;
  std::vector<Statement> parsed;
  for (const ExecuteStatementRequest& s : req.statements) {
    statements.push_back(partiql::Parse(s.statement, s.parameters));
    if (statements.back().ok()) parsed.push_back(statements.back().value());
  }
  DDB_RETURN_IF_ERROR(parsed.empty() ? Status::Ok() : CheckAllReadsOrAllWrites(parsed));
  std::vector<ConsumedCapacity> consumed;  // one per table, in order of first use
  auto account = [&](std::optional<ConsumedCapacity> c) {
    if (!c) return;
    for (ConsumedCapacity& t : consumed) {
      if (t.table_name == c->table_name) return t.Merge(*c);
    }
    consumed.push_back(std::move(*c));
  };
  for (size_t i = 0; i < req.statements.size(); ++i) {
    BatchStatementResponse response;
    response.error = RunBatchMember(*this, ctx, statements[i], req.statements[i],
                                    req.return_consumed_capacity, &response, account);
    result.responses.push_back(std::move(response));
  }
  result.consumed_capacity = std::move(consumed);
  return result;
}

Result<ExecuteTransactionResult> Engine::ExecuteTransaction(const RequestContext& ctx,
                                                            const ExecuteTransactionRequest& req) {
  if (req.statements.empty() || req.statements.size() > 100) {
    return Error::Validation(
        "1 validation error detected: Value at 'transactStatements' failed "
        "to satisfy constraint: Member must have length less than or equal "
        "to 100");
  }
  std::vector<Statement> parsed;
  for (const ExecuteStatementRequest& s : req.statements) {
    DDB_ASSIGN_OR_RETURN(Statement st, partiql::Parse(s.statement, s.parameters));
    parsed.push_back(std::move(st));
  }
  DDB_RETURN_IF_ERROR(CheckAllReadsOrAllWrites(parsed));
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (parsed[i].is_read() && parsed[i].index) {
      return Error::Validation("Validation failed in TransactStatements[" + std::to_string(i) +
                               "]: Reads on indices are not supported within transactions.");
    }
  }
  ExecuteTransactionResult result;
  if (parsed.front().is_read()) {
    result.reads = true;
    TransactGetItemsRequest get;
    get.return_consumed_capacity = req.return_consumed_capacity;
    for (const Statement& st : parsed) {
      DDB_ASSIGN_OR_RETURN(TableDescription table, DescribeTable(ctx, st.table));
      DDB_ASSIGN_OR_RETURN(TransactGetAction action, CompileKeyRead(st, table, /*batch=*/false));
      get.actions.push_back(std::move(action));
    }
    DDB_ASSIGN_OR_RETURN(TransactGetItemsResult r, TransactGetItems(get));
    result.items = std::move(r.items);
    for (size_t i = 0; i < result.items.size() && i < parsed.size(); ++i) {
      if (result.items[i]) NameSelectedPaths(parsed[i].projection, &*result.items[i]);
    }
    result.consumed_capacity = std::move(r.consumed_capacity);
    return result;
  }
  TransactWriteItemsRequest write;
  write.client_request_token = req.client_request_token;
  write.return_consumed_capacity = req.return_consumed_capacity;
  std::vector<bool> inserts;
  for (size_t i = 0; i < parsed.size(); ++i) {
    DDB_ASSIGN_OR_RETURN(TableDescription table, DescribeTable(ctx, parsed[i].table));
    DDB_ASSIGN_OR_RETURN(CompiledWrite w, CompileWrite(parsed[i], table, req.statements[i]));
    if (w.return_values != ReturnValues::kNone) {
      return Error::Validation("Validation failed in TransactStatements[" + std::to_string(i) +
                               "]: RETURNING clause is not supported in ExecuteTransaction.");
    }
    inserts.push_back(w.insert);
    write.actions.push_back(std::move(w.action));
  }
  Result<TransactWriteItemsResult> r = TransactWriteItems(write);
  if (!r.ok()) {
    const Error& e = r.error();
    if (e.code() != ErrorCode::kTransactionCanceled || !e.detail()) return e;
    // An INSERT's failed "key absent" condition is a duplicate key.
    std::vector<CancellationReason> reasons = e.detail()->cancellation_reasons;
    for (size_t i = 0; i < reasons.size() && i < inserts.size(); ++i) {
      if (inserts[i] && reasons[i].code == CancellationCode::kConditionalCheckFailed) {
        reasons[i].code = CancellationCode::kDuplicateItem;
        reasons[i].message = "Duplicate primary key exists in table";
      }
    }
    return TransactionCanceled(std::move(reasons));
  }
  result.consumed_capacity = std::move(r.value().consumed_capacity);
  result.replayed = r.value().replayed;
  return result;
}

}  // namespace ddb
