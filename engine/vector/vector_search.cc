// Vector indexes in the engine: their contents rebuilt at open and filled by the backfill of
// an index added with UpdateTable, the write path's hook (AddVectorUpdates), and
// SearchVectors. The in-memory index itself is vector_index.h.
//
// SearchVectors' messages: verified (the developer guide's troubleshooting page, quoted as
// the service's) "Provided TopK value is out of valid range", "SearchConditionExpression must
// be provided when SearchSchema has a HASH key", "Invalid comparator used in
// SearchConditionExpression", "Cannot search backfilling vector index: <name>", "The table
// does not have the specified index: <name>". Guessed: the others, in the service's usual
// wording.
#include <algorithm>
#include <mutex>

#include "engine/engine_impl.h"
#include "engine/expression/expression_ast.h"
#include "engine/expression/expression_parser.h"
#include "engine/storage/key_codec.h"
#include "engine/vector/vector_index.h"

namespace ddb {
namespace {

using expr::CompareOp;
using expr::Condition;
using expr::Operand;
using expr::ParseCondition;
using expr::PathToken;

// Items read from the table per chunk while filling an index.
constexpr size_t kVectorFillChunk = 1000;

// SearchConditionExpression: a conjunction of equalities between a SearchSchema attribute
// and a value ("a = :v AND #b = :w"), as the service accepts today.
Result<VectorIndex::Equalities> CompileSearchCondition(const std::string& text,
                                                       Placeholders* placeholders) {
  DDB_ASSIGN_OR_RETURN(std::shared_ptr<const Condition> tree,
                       ParseCondition(text, "SearchConditionExpression"));
  VectorIndex::Equalities out;
  std::vector<const Condition*> todo{tree.get()};
  while (!todo.empty()) {
    const Condition* c = todo.back();
    todo.pop_back();
    switch (c->kind) {
      case Condition::Kind::kAnd:
        for (const Condition& child : c->children) todo.push_back(&child);
        continue;
      case Condition::Kind::kOr:
      case Condition::Kind::kNot:
        return Error::Validation(
            std::string("Invalid operator used in SearchConditionExpression: ") +
            (c->kind == Condition::Kind::kOr ? "OR" : "NOT"));
      case Condition::Kind::kFunction:
        return Error::Validation("Invalid operator used in SearchConditionExpression: " +
                                 c->operands[0].text);
      case Condition::Kind::kBetween:
      case Condition::Kind::kIn:
        return Error::Validation("Invalid comparator used in SearchConditionExpression");
      case Condition::Kind::kCompare:
        break;
    }
    if (c->op != CompareOp::kEq) {
      return Error::Validation("Invalid comparator used in SearchConditionExpression");
    }
    const Operand* path = &c->operands[0];
    const Operand* value = &c->operands[1];
    if (path->kind != Operand::Kind::kPath) std::swap(path, value);
    if (path->kind != Operand::Kind::kPath || value->kind != Operand::Kind::kValue ||
        path->path.size() != 1 || path->path[0].kind == PathToken::Kind::kIndex) {
      return Error::Validation(
          "Invalid SearchConditionExpression: each condition must compare a SearchSchema "
          "attribute with a value");
    }
    std::string name = path->path[0].text;
    if (path->path[0].kind == PathToken::Kind::kNameRef) {
      const auto* names = placeholders->names;
      auto it = names ? names->find(name) : decltype(names->end()){};
      if (!names || it == names->end()) {
        return Error::Validation(
            "An expression attribute name used in the document path is not defined; attribute "
            "name: " +
            name);
      }
      placeholders->used_names.insert(name);
      name = it->second;
    }
    const Item* values = placeholders->values;
    auto v = values ? values->find(value->text) : Item::const_iterator{};
    if (!values || v == values->end()) {
      return Error::Validation(
          "An expression attribute value used in expression is not defined; attribute value: " +
          value->text);
    }
    placeholders->used_values.insert(value->text);
    out.emplace_back(std::move(name), v->second);
  }
  return out;
}

}  // namespace

Status EngineImpl::LoadVectorIndexes() {
  for (const std::string& name : catalog->Names()) {
    auto table = catalog->Find(name);
    // A table a restore is filling gets its items without the write path: its indexes are
    // filled on their first search instead (VectorIndexOf).
    if (!table || table->description.vector_indexes.empty() || table->restore_job) continue;
    for (const auto& def : table->description.vector_indexes) {
      std::shared_ptr<VectorIndex> index = vectors->Create(table->id, def);
      // The items as stored: at open no writer runs yet.
      DDB_RETURN_IF_ERROR(storage->ForEach(Cf::kItems, TablePrefix(table->id),
                                           TablePrefixEnd(table->id),
                                           [&](std::string_view key, std::string_view value) {
                                             Item item;
                                             if (DecodeItem(value, &item)) {
                                               index->Apply(std::string(key), item);
                                             }
                                             return true;
                                           }));
      if (def.backfilling) MarkVectorBackfilled(name, def.index_name);
    }
  }
  vectors->Nudge();
  return Status::Ok();
}

void EngineImpl::MarkVectorBackfilled(const std::string& table_name,
                                      const std::string& index_name) {
  Result<std::shared_ptr<const TableInfo>> updated =
      catalog->Update(table_name, [&](TableDescription* d) {
        for (auto& v : d->vector_indexes) {
          if (v.index_name != index_name) continue;
          v.index_status = IndexStatus::kActive;
          v.backfilling = false;
        }
        return Status::Ok();
      });
  // Not found: the table went meanwhile, and the index with it.
  if (!updated.ok() && updated.error().code() != ErrorCode::kResourceNotFound) {
    LogIfFailed(updated.status(), "cannot mark vector index " + table_name + "/" + index_name +
                                      " ACTIVE (rebuilt at the next open)");
  }
}

void EngineImpl::BackfillVectorIndex(uint32_t table_id, std::string table_name,
                                     std::string index_name) {
  if (options.index_status_hold_ms > 0 && !HoldIndexStatus()) return;
  std::shared_ptr<VectorIndex> index = vectors->Find(table_id, index_name);
  if (!index) return;
  // A storage error stops the backfill; the index stays CREATING until the next open, which
  // rebuilds it.
  const std::string stopped = "vector index backfill of " + table_name + "/" + index_name +
                              " stopped (rebuilt at the next open)";
  std::string next = TablePrefix(table_id);
  const std::string end = TablePrefixEnd(table_id);
  while (!stopping) {
    if (vectors->Find(table_id, index_name) != index) return;  // deleted meanwhile
    std::vector<std::string> keys;
    Status s = storage->ForEach(Cf::kItems, next, end, [&](std::string_view key, std::string_view) {
      keys.emplace_back(key);
      return keys.size() < kVectorFillChunk;
    });
    if (!s.ok()) return LogIfFailed(s, stopped);
    for (const std::string& key : keys) {
      // Under the item's lock: a writer of this item applies its change at its commit, under
      // the same lock, so the entry is never older than the item.
      std::lock_guard lock(StripeFor(key));
      Result<std::optional<Item>> item = ReadItem(key);
      if (!item.ok()) return LogIfFailed(item.status(), stopped);
      index->Apply(key, item.value());
    }
    if (keys.size() < kVectorFillChunk) break;
    next = keys.back();
    next.push_back('\0');
  }
  if (stopping) return;  // rebuilt, and marked ACTIVE, at the next open
  vectors->Nudge();
  if (options.index_status_hold_ms > 0 && !HoldIndexStatus()) return;
  // Deleted since the last chunk (and perhaps created again under its name, with a walk of
  // its own): this walk must not mark the new one ACTIVE.
  if (vectors->Find(table_id, index_name) != index) return;
  MarkVectorBackfilled(table_name, index_name);
}

void EngineImpl::AddVectorUpdates(const TableInfo& table, const std::string& key,
                                  const std::optional<Item>& updated, Storage::Batch* batch) {
  for (const auto& def : table.description.vector_indexes) {
    std::shared_ptr<VectorIndex> index = vectors->Find(table.id, def.index_name);
    if (!index) continue;  // created after this write began: its fill reads the item
    VectorIndexes* registry = vectors.get();
    batch->after_commit.push_back([index, key, updated, registry] {
      index->Apply(key, updated);
      if (index->WantsGraph()) registry->Nudge();
    });
  }
}

void EngineImpl::ApplyVectorChange(const TableInfo& table, const ChangeRecord& record) {
  for (const auto& def : table.description.vector_indexes) {
    std::shared_ptr<VectorIndex> index = vectors->Find(table.id, def.index_name);
    if (!index) continue;  // not filled yet: its fill reads the item
    index->Apply(record.item_key, record.new_image);
    if (index->WantsGraph()) vectors->Nudge();
  }
}

std::shared_ptr<VectorIndex> EngineImpl::VectorIndexOf(const TableInfo& table,
                                                       const VectorIndexDefinition& def) {
  if (auto index = vectors->Find(table.id, def.index_name)) return index;
  // A table that came with its definitions but no contents (a restore or an import): filled
  // now, as a backfill would (registered first, so that writes meanwhile reach it).
  static std::mutex fill_mu;
  std::lock_guard fill(fill_mu);
  if (auto index = vectors->Find(table.id, def.index_name)) return index;
  std::shared_ptr<VectorIndex> index = vectors->Create(table.id, def);
  std::vector<std::string> keys;
  LogIfFailed(storage->ForEach(Cf::kItems, TablePrefix(table.id), TablePrefixEnd(table.id),
                               [&](std::string_view key, std::string_view) {
                                 keys.emplace_back(key);
                                 return true;
                               }),
              "vector index " + table.description.table_name + "/" + def.index_name +
                  " filled only in part (rebuilt at the next open)");
  for (const std::string& key : keys) {
    std::lock_guard lock(StripeFor(key));
    Result<std::optional<Item>> item = ReadItem(key);
    if (item.ok()) index->Apply(key, item.value());
  }
  vectors->Nudge();
  return index;
}

namespace {

// SearchVectors' steps.

// The request's expressions, compiled: the SearchConditionExpression's equalities and the
// ProjectionExpression. Errors: kValidation.
struct SearchExpressions {
  VectorIndex::Equalities filter;
  std::optional<Projection> projection;
};
Result<SearchExpressions> CompileSearchExpressions(const SearchVectorsRequest& req) {
  Placeholders placeholders;
  placeholders.names = req.expression_attribute_names ? &*req.expression_attribute_names : nullptr;
  placeholders.values =
      req.expression_attribute_values ? &*req.expression_attribute_values : nullptr;
  SearchExpressions e;
  if (req.search_condition_expression) {
    DDB_ASSIGN_OR_RETURN(e.filter,
                         CompileSearchCondition(*req.search_condition_expression, &placeholders));
  }
  if (req.projection_expression) {
    DDB_ASSIGN_OR_RETURN(e.projection,
                         CompileProjection(*req.projection_expression, &placeholders));
  }
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  return e;
}

// The table's vector index `index_name`, if it may be searched now. Errors:
// kResourceNotFound, kValidation (backfilling, not ACTIVE).
Result<const VectorIndexDefinition*> SearchableIndex(const TableDescription& d,
                                                     const std::string& index_name) {
  const VectorIndexDefinition* def = nullptr;
  for (const auto& v : d.vector_indexes) {
    if (v.index_name == index_name) def = &v;
  }
  if (!def) {
    return Error::NotFound("Requested resource not found: Index: " + index_name + " not found");
  }
  if (def->backfilling) {
    return Error::Validation("Cannot search backfilling vector index: " + index_name);
  }
  if (def->index_status != IndexStatus::kActive) {
    return Error::Validation("The table does not have the specified index: " + index_name);
  }
  return def;
}

// The condition against the index's SearchSchema: attributes of the schema, of their
// defined types, and the HASH element when there is one. Errors: kValidation.
Status CheckSearchCondition(const VectorIndex::Equalities& filter, const TableDescription& d,
                            const VectorIndexDefinition& def) {
  const std::string* hash = def.partition_key();
  bool hash_given = false;
  for (const auto& condition : filter) {
    // Not a structured binding: clang 14 (the fuzz and sanitizer builds) cannot capture one.
    const std::string& name = condition.first;
    const AttributeValue& value = condition.second;
    auto e = std::find_if(def.search_schema.begin(), def.search_schema.end(),
                          [&](const SearchSchemaElement& s) { return s.attribute_name == name; });
    if (e == def.search_schema.end()) {
      return Error::Validation("Invalid SearchConditionExpression: attribute " + name +
                               " is not in the SearchSchema of index " + def.index_name);
    }
    ScalarType want = d.AttributeTypeOf(name);
    AttributeType type = want == ScalarType::kS   ? AttributeType::kS
                         : want == ScalarType::kN ? AttributeType::kN
                                                  : AttributeType::kB;
    if (value.type() != type) {
      return Error::Validation("Condition parameter type does not match schema type");
    }
    if (hash && name == *hash) hash_given = true;
  }
  if (hash && !hash_given) {
    return Error::Validation(
        "SearchConditionExpression must be provided when SearchSchema has a HASH key");
  }
  return Status::Ok();
}

// The attributes the index projects, unless it projects ALL: the table's keys, the
// SearchSchema and the NonKeyAttributes.
std::vector<std::string> ProjectedAttributes(const TableDescription& d,
                                             const VectorIndexDefinition& def) {
  std::vector<std::string> keep;
  if (def.projection.projection_type == ProjectionType::kAll) return keep;
  for (const auto& k : d.key_schema) keep.push_back(k.attribute_name);
  for (const auto& e : def.search_schema) keep.push_back(e.attribute_name);
  for (const auto& n : def.projection.non_key_attributes) keep.push_back(n);
  return keep;
}

// A hit's item as the index projects it (`keep`: ProjectedAttributes), then as the
// ProjectionExpression does. The vector attribute comes back only when a ProjectionExpression
// names it, whatever the projection type (the service's rule, as AWS's DynamoDB skill for
// coding assistants, references/vector-search.md, quotes it: "The vector attribute is
// excluded by default, even under ProjectionType: ALL").
Item ProjectHit(Item item, const VectorIndexDefinition& def, const std::vector<std::string>& keep,
                const std::optional<Projection>& projection) {
  Item projected;
  if (def.projection.projection_type == ProjectionType::kAll) {
    projected = std::move(item);
  } else {
    for (const auto& name : keep) {
      auto it = item.find(name);
      if (it != item.end()) projected.insert(*it);
    }
    if (auto it = item.find(def.vector_attribute); projection && it != item.end()) {
      projected.insert(*it);
    }
  }
  if (projection) return ApplyProjection(*projection, projected);
  projected.erase(def.vector_attribute);
  return projected;
}

}  // namespace

Result<SearchVectorsResult> Engine::SearchVectors(const RequestContext&,
                                                  const SearchVectorsRequest& req) {
  // The request itself first: TopK, then its expressions.
  if (req.top_k < 1 || req.top_k > kMaxTopK) {
    // The service's words, as references/vector-search.md (above) quotes them.
    return Error::Validation("Provided TopK value '" + std::to_string(req.top_k) +
                             "' is out of valid range. The value must be between 1 and " +
                             std::to_string(kMaxTopK) + " inclusive");
  }
  DDB_ASSIGN_OR_RETURN(SearchExpressions expressions, CompileSearchExpressions(req));
  DDB_ASSIGN_OR_RETURN(std::shared_ptr<const TableInfo> table, impl_->FindTable(req.table_name));
  const TableDescription& d = table->description;
  DDB_ASSIGN_OR_RETURN(const VectorIndexDefinition* def, SearchableIndex(d, req.index_name));
  DDB_RETURN_IF_ERROR(CheckSearchCondition(expressions.filter, d, *def));
  DDB_ASSIGN_OR_RETURN(std::vector<float> query,
                       SearchVectorOf(req.search_vector, def->dimensions));

  std::shared_ptr<VectorIndex> index = impl_->VectorIndexOf(*table, *def);
  ++impl_->vector_searches;
  std::vector<VectorIndex::Hit> hits =
      index->Search(query, static_cast<size_t>(req.top_k), expressions.filter);
  const std::vector<std::string> keep = ProjectedAttributes(d, *def);
  SearchVectorsResult result;
  int64_t bytes = static_cast<int64_t>(query.size() * sizeof(float));
  for (const auto& hit : hits) {
    DDB_ASSIGN_OR_RETURN(std::optional<Item> item, impl_->ReadItem(hit.key));
    if (!item) continue;  // deleted since the search saw it
    Item projected = ProjectHit(std::move(*item), *def, keep, expressions.projection);
    bytes += static_cast<int64_t>(ItemSize(projected));
    result.results.push_back(SearchResultItem{std::move(projected), hit.score});
  }
  // VectorSearchRequestBytes: the service's rule is not published; counted here as the
  // search vector's float32 bytes plus the bytes of the items returned (guessed).
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    result.vector_search_request_bytes = bytes;
  }
  return result;
}

}  // namespace ddb
