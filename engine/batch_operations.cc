// BatchGetItem and BatchWriteItem: many independent single-item operations, validated as a
// whole first (one bad request fails the batch before anything is read or written).
#include <algorithm>
#include <map>
#include <set>

#include "engine/capacity/write_capacity.h"
#include "engine/engine_impl.h"
#include "engine/expression/expression.h"
#include "engine/item_validation.h"
#include "engine/vector/vector_index.h"

namespace ddb {
namespace {

constexpr size_t kMaxBatchGetKeys = 100;
constexpr size_t kMaxBatchWriteRequests = 25;
constexpr size_t kMaxBatchGetResponseBytes = 16 * 1024 * 1024;

const Error& DuplicateKeys() {
  static const Error e = Error::Validation("Provided list of item keys contains duplicates");
  return e;
}

}  // namespace

namespace {

// BatchGetItem's steps.

// One table's part of a BatchGetItem, validated.
struct BatchGetPlan {
  std::shared_ptr<const TableInfo> table;
  std::optional<Projection> projection;
  std::vector<std::string> keys;  // item keys, in request order
};

// Validates every table, key and projection before anything is read: every table's
// projection first, then the tables and keys (the service's order).
Result<std::vector<BatchGetPlan>> PlanBatchGet(EngineImpl& impl, const BatchGetItemRequest& req) {
  std::vector<BatchGetPlan> plans;
  for (const auto& [name, ka] : req.request_items) {
    BatchGetPlan plan;
    DDB_ASSIGN_OR_RETURN(
        plan.projection,
        CompileReadProjection(
            ka.projection_expression, ka.attributes_to_get,
            ka.expression_attribute_names ? &*ka.expression_attribute_names : nullptr));
    plans.push_back(std::move(plan));
  }
  // Keys sent twice are refused before any table is looked up (the service's order); the
  // check with the key schema below also catches keys that differ only in extra attributes.
  for (const auto& [name, ka] : req.request_items) {
    for (size_t i = 0; i < ka.keys.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (ka.keys[i] == ka.keys[j]) return DuplicateKeys();
      }
    }
  }
  for (size_t t = 0; t < plans.size(); ++t) {
    const auto& [name, ka] = req.request_items[t];
    BatchGetPlan& plan = plans[t];
    DDB_ASSIGN_OR_RETURN(plan.table, impl.FindTable(name));
    std::set<std::string> seen;
    for (const auto& key : ka.keys) {
      DDB_RETURN_IF_ERROR(ValidateKey(plan.table->description, key));
      std::string k = impl.ItemKeyOf(*plan.table, key);
      if (!seen.insert(k).second) return DuplicateKeys();
      plan.keys.push_back(std::move(k));
    }
  }
  return plans;
}

// What the reads of one BatchGetItem have done so far, across its tables.
struct BatchGetProgress {
  size_t bytes = 0;      // of the items in the response
  bool full = false;     // the response reached kMaxBatchGetResponseBytes
  size_t processed = 0;  // keys read
  std::optional<Error> throttle;
};

// Reads one table's keys into *found, charging each read to *capacity; a key throttled, or
// past a full response, goes to *unprocessed.
Status ReadBatchTable(EngineImpl& impl, const BatchGetPlan& plan, const KeysAndAttributes& ka,
                      BatchGetProgress* progress, std::vector<Item>* found,
                      KeysAndAttributes* unprocessed, ConsumedCapacity* capacity) {
  for (size_t i = 0; i < plan.keys.size(); ++i) {
    if (progress->full) {
      unprocessed->keys.push_back(ka.keys[i]);
      continue;
    }
    // A throttled key is left for the caller to retry, as the service does.
    Status admitted = impl.AdmitKey(*plan.table, ka.keys[i], /*write=*/false);
    if (!admitted.ok()) {
      if (admitted.error().code() != ErrorCode::kProvisionedThroughputExceeded) {
        return admitted.error();
      }
      if (!progress->throttle) progress->throttle = admitted.error();
      unprocessed->keys.push_back(ka.keys[i]);
      continue;
    }
    DDB_ASSIGN_OR_RETURN(std::optional<Item> item, impl.ReadItem(plan.keys[i]));
    double units = ReadUnits(item ? ItemSize(*item) : 0, ka.consistent_read);
    const std::string& pk = KeyBytes(ka.keys[i].at(plan.table->description.hash_key()));
    impl.ChargeRead(*plan.table, nullptr, TokenOfKey(plan.keys[i]), pk, units);
    capacity->AddTable(units, false);
    ++progress->processed;
    if (!item) continue;
    Item out = plan.projection ? ApplyProjection(*plan.projection, *item) : *item;
    size_t size = ItemSize(out);
    if (progress->bytes + size > kMaxBatchGetResponseBytes) {
      // The response is full: this key and every later one are left for the next call.
      progress->full = true;
      unprocessed->keys.push_back(ka.keys[i]);
      continue;
    }
    progress->bytes += size;
    found->push_back(std::move(out));
  }
  return Status::Ok();
}

}  // namespace

Result<BatchGetItemResult> Engine::BatchGetItem(const BatchGetItemRequest& req) {
  size_t total = 0;
  for (const auto& [name, ka] : req.request_items) total += ka.keys.size();
  if (total > kMaxBatchGetKeys) {
    return Error::Validation("Too many items requested for the BatchGetItem call");
  }
  DDB_ASSIGN_OR_RETURN(std::vector<BatchGetPlan> plans, PlanBatchGet(*impl_, req));
  BatchGetItemResult result;
  BatchGetProgress progress;
  for (size_t t = 0; t < plans.size(); ++t) {
    const auto& [name, ka] = req.request_items[t];
    std::vector<Item> found;
    KeysAndAttributes unprocessed;
    ConsumedCapacity capacity{name};
    DDB_RETURN_IF_ERROR(
        ReadBatchTable(*impl_, plans[t], ka, &progress, &found, &unprocessed, &capacity));
    result.responses.push_back({name, std::move(found)});
    if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
      result.consumed_capacity.push_back(std::move(capacity));
    }
    if (!unprocessed.keys.empty()) {
      unprocessed.projection_expression = ka.projection_expression;
      unprocessed.attributes_to_get = ka.attributes_to_get;
      unprocessed.expression_attribute_names = ka.expression_attribute_names;
      unprocessed.consistent_read = ka.consistent_read;
      result.unprocessed_keys.push_back({name, std::move(unprocessed)});
    }
  }
  // When every key was throttled the call itself fails, so that SDKs back off.
  if (progress.processed == 0 && progress.throttle) return *progress.throttle;
  return result;
}

Result<BatchWriteItemResult> Engine::BatchWriteItem(const BatchWriteItemRequest& req) {
  size_t total = 0;
  for (const auto& [name, writes] : req.request_items) total += writes.size();
  if (total > kMaxBatchWriteRequests) {
    return Error::Validation("Too many items requested for the BatchWriteItem call");
  }
  struct Planned {
    std::shared_ptr<const TableInfo> table;
    std::string key;
    const WriteRequest* write;
  };
  std::vector<Planned> planned;
  // An item over the size limit is refused before any table is looked up (the service's
  // order).
  for (const auto& [name, writes] : req.request_items) {
    for (const auto& w : writes) {
      if (w.is_put) DDB_RETURN_IF_ERROR(ValidateItemSize(w.item));
    }
  }
  for (const auto& [name, writes] : req.request_items) {
    DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(name));
    std::set<std::string> seen;
    for (const auto& w : writes) {
      if (w.is_put) {
        // A key attribute missing or of the wrong type is "does not match the schema" here,
        // as the service answers BatchWriteItem (PutItem names the attribute or the types).
        for (const auto& k : table->description.key_schema) {
          if (!w.item.count(k.attribute_name)) {
            return Error::Validation("The provided key element does not match the schema");
          }
        }
        DDB_RETURN_IF_ERROR(ValidateKeyValues(table->description, w.item));
        DDB_RETURN_IF_ERROR(ValidateItem(table->description, w.item));
        DDB_RETURN_IF_ERROR(ValidateIndexKeys(table->indexes, w.item));
        DDB_RETURN_IF_ERROR(ValidateVectorAttributes(table->description, w.item));
      } else {
        DDB_RETURN_IF_ERROR(ValidateKey(table->description, w.item));
      }
      std::string key = impl_->ItemKeyOf(*table, w.item);
      if (!seen.insert(key).second) return DuplicateKeys();
      planned.push_back({table, std::move(key), &w});
    }
  }
  // Each write stands alone, as in the service: a batch is not a transaction.
  BatchWriteItemResult result;
  std::map<std::string, ConsumedCapacity> capacity;
  std::optional<Error> throttle;
  // Whether the partitions admit p's write; a throttled write is left for the caller to
  // retry, as the service does. Each write is admitted after the one before it is charged,
  // so that a batch cannot overdraw a partition.
  auto admit = [&](const Planned& p) -> Result<bool> {
    Status admitted = impl_->AdmitKey(*p.table, p.write->item, /*write=*/true);
    if (admitted.ok()) return true;
    if (admitted.error().code() != ErrorCode::kProvisionedThroughputExceeded) {
      return admitted.error();
    }
    if (!throttle) throttle = admitted.error();
    EntryFor(&result.unprocessed_items, p.table->description.table_name).push_back(*p.write);
    return false;
  };
  auto charge = [&](const Planned& p, const std::optional<Item>& old,
                    const std::optional<Item>& updated) {
    const std::string& name = p.table->description.table_name;
    auto [it, fresh] = capacity.try_emplace(name, ConsumedCapacity{name});
    ConsumedCapacity cost(name);
    const WriteSizes sizes = AddWriteCapacity(*p.table, old, updated, false, &cost);
    impl_->ChargeWrite(*p.table, p.write->item, old, updated, cost, sizes, p.key);
    it->second.Merge(cost);
  };
  std::vector<const Planned*> grouped, one_by_one, written;
  for (const auto& p : planned) {
    // A multi-Region strongly consistent table's write is claimed in every Region first
    // (EngineImpl::Mutate), item by item.
    (p.table->description.multi_region_strong ? one_by_one : grouped).push_back(&p);
  }
  // The others commit in one WriteBatch under their items' locks, as a transaction does:
  // one trip through RocksDB's write queue and one merge into each table's stats for the
  // whole call instead of one per item (bulk loads are made of these calls). They are
  // charged before the commit, so that each admission sees the writes before it.
  if (!grouped.empty()) {
    std::vector<std::string> keys;
    keys.reserve(grouped.size());
    for (const Planned* p : grouped) keys.push_back(p->key);
    StripeLocks locks(*impl_, keys);
    Storage::Batch batch(*impl_->storage);
    std::vector<uint64_t> sequences;
    auto abandon = [&](const Error& e) {
      for (uint64_t s : sequences) impl_->sequencer->End(s);
      return e;
    };
    for (const Planned* p : grouped) {
      Result<bool> admitted = admit(*p);
      if (!admitted.ok()) return abandon(admitted.error());
      if (!*admitted) continue;
      Result<std::optional<Item>> old = impl_->ReadItem(p->key);
      if (!old.ok()) return abandon(old.error());
      std::optional<Item> updated =
          p->write->is_put ? std::optional<Item>(p->write->item) : std::optional<Item>();
      if (*old || updated) {
        Status added = impl_->AddWrite(p->table->id, p->key, *old, updated, &batch, &sequences,
                                       WriteOrigin::kRequest);
        if (!added.ok()) return abandon(added.error());
      }
      charge(*p, *old, updated);
      written.push_back(p);
    }
    DDB_RETURN_IF_ERROR(impl_->Commit(batch, sequences, WriteSync::kDeferred));
  }
  for (const Planned* p : one_by_one) {
    DDB_ASSIGN_OR_RETURN(bool admitted, admit(*p));
    if (!admitted) continue;
    std::optional<Item> updated =
        p->write->is_put ? std::optional<Item>(p->write->item) : std::optional<Item>();
    DDB_ASSIGN_OR_RETURN(
        std::optional<Item> old,
        impl_->Mutate(
            *p->table, p->key,
            [&](const std::optional<Item>&) { return Result<std::optional<Item>>(updated); },
            nullptr, WriteOrigin::kRequest, WriteSync::kDeferred));
    charge(*p, old, updated);
    written.push_back(p);
  }
  const size_t processed = written.size();
  for (const Planned* p : written) {
    std::optional<ItemCollectionMetrics> metrics =
        impl_->CollectionMetrics(*p->table, p->write->item, req.return_item_collection_metrics);
    if (metrics) {
      EntryFor(&result.item_collection_metrics, p->table->description.table_name)
          .push_back(std::move(*metrics));
    }
  }
  // One fsync for the whole call (under --durability fsync), before it is acknowledged: its
  // writes were deferred, and a synced write makes every write before it durable.
  if (processed > 0) DDB_RETURN_IF_ERROR(impl_->storage->Sync());
  if (processed == 0 && throttle) return *throttle;
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    for (auto& [name, c] : capacity) result.consumed_capacity.push_back(std::move(c));
  }
  return result;
}

}  // namespace ddb
