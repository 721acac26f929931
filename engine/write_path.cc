#include "engine/write_path.h"

#include <set>

#include "ddb/stored_item.h"
#include "engine/engine_impl.h"
#include "engine/global_tables.h"
#include "engine/index_maintenance.h"
#include "engine/item_validation.h"
#include "engine/storage/key_codec.h"
#include "engine/transactions.h"
#include "engine/ttl/ttl_index.h"
#include "engine/vector/vector_index.h"

namespace ddb {
namespace {

Placeholders PlaceholdersOf(const ConditionalWrite& w) {
  Placeholders p;
  p.names = w.expression_attribute_names ? &*w.expression_attribute_names : nullptr;
  p.values = w.expression_attribute_values ? &*w.expression_attribute_values : nullptr;
  return p;
}

std::string ItemKeyOf(const TableInfo& table, const Item& item_or_key) {
  const TableDescription& d = table.description;
  const std::string* range = d.range_key();
  return EncodeItemKey(table.id, table.key_format, item_or_key.at(d.hash_key()),
                       range ? &item_or_key.at(*range) : nullptr);
}

// UpdateItem's item-size rule, as the service applies it (measured in 2026; the record is
// the conformance suite's tests/tier3/limits/itemSizeBySurface.test.ts): the attributes the
// update writes, as they are in the finished item (a removed one counts nothing), plus what
// its actions cost (UpdateActionsCost), must fit in 400 KB. The key and the attributes the
// update leaves alone are not counted, so with a short key the limit binds below the
// finished item's own (which is checked as well).
bool UpdateItemSizeFits(const CompiledUpdate& update, const std::vector<DocumentPath>& paths,
                        const Item& finished) {
  std::set<std::string_view> written;
  for (const DocumentPath& path : paths) written.insert(path.front().name);
  size_t bytes = UpdateActionsCost(update);
  for (std::string_view name : written) {
    auto it = finished.find(name);
    if (it != finished.end()) bytes += name.size() + AttributeValueSize(it->second);
  }
  return bytes <= kMaxItemSize;
}

}  // namespace

Result<PreparedWrite> CompileWriteExpressions(PreparedWrite::Kind kind,
                                              const std::optional<std::string>& update_expression,
                                              const ConditionalWrite& w) {
  PreparedWrite p;
  p.kind = kind;
  bool has_update = kind == PreparedWrite::Kind::kUpdate && update_expression.has_value();
  bool any_expression = w.condition_expression.has_value() || has_update;
  DDB_RETURN_IF_ERROR(CheckPlaceholdersNeedExpressions(
      w.expression_attribute_names.has_value(), w.expression_attribute_values.has_value(),
      any_expression, any_expression,
      kind == PreparedWrite::Kind::kUpdate ? "UpdateExpression and ConditionExpression"
                                           : "ConditionExpression"));
  Placeholders placeholders = PlaceholdersOf(w);
  if (has_update) {
    DDB_ASSIGN_OR_RETURN(p.update, CompileUpdate(*update_expression, &placeholders));
    p.updated_paths = UpdatedPaths(*p.update);
  }
  if (w.condition_expression) {
    DDB_ASSIGN_OR_RETURN(p.condition, CompileCondition(*w.condition_expression,
                                                       "ConditionExpression", &placeholders));
  }
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  p.return_old_on_condition_failure = w.return_old_on_condition_failure;
  return p;
}

Status ValidatePutItemKeys(const TableInfo& table, const Item& item) {
  DDB_RETURN_IF_ERROR(ValidateItemKeys(table.description, item));
  DDB_RETURN_IF_ERROR(ValidateIndexKeys(table.indexes, item));
  return ValidateVectorAttributes(table.description, item);
}

Status BindWrite(std::shared_ptr<const TableInfo> table, const Item& item_or_key, PreparedWrite* p,
                 bool check_keys, bool keep_item) {
  const TableDescription& d = table->description;
  if (p->kind == PreparedWrite::Kind::kPut) {
    if (check_keys) DDB_RETURN_IF_ERROR(ValidatePutItemKeys(*table, item_or_key));
    DDB_RETURN_IF_ERROR(ValidateItemSize(item_or_key));
  } else if (check_keys) {
    DDB_RETURN_IF_ERROR(ValidateKey(d, item_or_key));
  }
  for (const auto& path : p->updated_paths) {
    for (const auto& k : d.key_schema) {
      if (path.front().name == k.attribute_name) {
        return Error::Validation(
            "One or more parameter values were invalid: Cannot update attribute " +
            k.attribute_name + ". This attribute is part of the key");
      }
    }
  }
  p->key = ItemKeyOf(*table, item_or_key);
  if (keep_item) p->item_or_key = item_or_key;
  p->table = std::move(table);
  return Status::Ok();
}

Result<std::optional<Item>> PreparedWrite::Apply(const std::optional<Item>& old) const {
  if (condition && !EvaluateCondition(*condition, old ? &*old : nullptr)) {
    Error e(ErrorCode::kConditionalCheckFailed, "The conditional request failed");
    if (return_old_on_condition_failure && old) {
      auto detail = std::make_shared<ErrorDetail>();
      detail->item = old;
      e.WithDetail(std::move(detail));
    }
    return e;
  }
  switch (kind) {
    case Kind::kPut:
      return std::optional<Item>(item_or_key);
    case Kind::kDelete:
      return std::optional<Item>();
    case Kind::kConditionCheck:
      return old;  // unchanged; callers do not write it
    case Kind::kUpdate:
      break;
  }
  // An update that only takes things away creates nothing, as in the service.
  if (!old && update && UpdateOnlyRemoves(*update)) return std::optional<Item>();
  Item item = old ? *old : item_or_key;
  if (update) DDB_RETURN_IF_ERROR(ApplyUpdate(*update, &item));
  DDB_RETURN_IF_ERROR(ValidateIndexKeys(table->indexes, item, /*by_update=*/true));
  DDB_RETURN_IF_ERROR(ValidateVectorAttributes(table->description, item));
  if (ItemSize(item) > kMaxItemSize ||
      (update_item_size_rule && update && !UpdateItemSizeFits(*update, updated_paths, item))) {
    return Error::Validation("Item size to update has exceeded the maximum allowed size");
  }
  if (update) DDB_RETURN_IF_ERROR(ValidateItemNesting(item));
  return std::optional<Item>(std::move(item));
}

std::optional<Item> UpdateReturnValues(ReturnValues rv, const PreparedWrite& write,
                                       std::optional<Item> old, std::optional<Item> updated) {
  switch (rv) {
    case ReturnValues::kNone:
      return std::nullopt;
    case ReturnValues::kAllOld:
      return old;
    case ReturnValues::kAllNew:
      return updated;
    case ReturnValues::kUpdatedOld:
    case ReturnValues::kUpdatedNew: {
      const std::optional<Item>& source = rv == ReturnValues::kUpdatedOld ? old : updated;
      if (!source || write.updated_paths.empty()) return std::nullopt;
      Item projected = ApplyProjection(Projection{write.updated_paths}, *source);
      if (projected.empty()) return std::nullopt;
      return projected;
    }
  }
  return std::nullopt;
}

// --- The write core: every write of an item goes through AddWrite and Commit. ---

Status EngineImpl::AddWrite(uint32_t table_id, const std::string& key,
                            const std::optional<Item>& old, const std::optional<Item>& updated,
                            Storage::Batch* batch, std::vector<uint64_t>* sequences,
                            WriteOrigin origin, uint64_t stamp) {
  // The indexes as of now, under the item's lock: a GSI added since the caller looked the
  // table up must see this write (its backfill takes the same lock per item).
  std::shared_ptr<const TableInfo> current = catalog->FindById(table_id);
  if (!current) return TableNotFound();
  int64_t old_size = old ? static_cast<int64_t>(ItemSize(*old)) : 0;
  int64_t new_size = 0;
  std::string value;  // the new item, encoded (kept for the change record)
  if (updated) {
    EncodeItem(*updated, &value);
    batch->Put(Cf::kItems, key, value);
    new_size = static_cast<int64_t>(ItemSize(*updated));
  } else {
    batch->Delete(Cf::kItems, key);
  }
  int64_t item_delta = (updated ? 1 : 0) - (old ? 1 : 0);
  if (item_delta || new_size != old_size) {
    batch->AddToStats(StatsKey(table_id), item_delta, new_size - old_size);
  }
  if (current->has_lsi()) AddIndexUpdates(*current, /*global=*/false, old, updated, batch);
  // History for point-in-time restores and backups: the old image, at the batch's commit time
  // (taken under the item's lock, so one item's records are in commit order).
  if (KeepsHistory(*current) && !(old && updated && *old == *updated)) {
    std::string old_value;
    if (old) EncodeItem(*old, &old_value);
    AddHistory(table_id, key, old ? &old_value : nullptr, batch);
  }
  // (PutWithoutIndexes skips all of the below for tables that need none of it: keep the two
  // in step when a table gains another kind of consumer.)
  // The Time to Live record follows the item's expiry. The note is taken before the commit,
  // with the item's lock held until after it (TtlWriteNotes::Note).
  if (const std::optional<std::string>& ttl = current->description.ttl_attribute) {
    std::optional<uint64_t> put = AddTtlEntryUpdates(table_id, *ttl, key, old, updated, batch);
    if (put) ttl_notes.Note(table_id, *put);
  }
  // GSIs and vector indexes: in read-your-writes mode (the default) GSI entries go into this
  // batch, as the LSIs' do, and vector indexes (in memory) learn of the write once the batch
  // commits, still under the item's lock, so an index is never behind the items a reader has
  // seen written. With simulated lag both learn of the write from the change log, appended
  // in the same batch, with the sequence taken under the item's lock so that one item's
  // changes are logged in order. The table's stream gets a record with the same sequence,
  // unless nothing changed (the service writes no stream record for a write that leaves
  // the item as it was).
  const TableDescription& d = current->description;
  bool logged = current->has_gsi() || !d.vector_indexes.empty();
  if (GsisInline()) {
    if (current->has_gsi()) {
      AddIndexUpdates(*current, /*global=*/true, old, updated, batch, nullptr, storage.get());
    }
    if (!d.vector_indexes.empty()) AddVectorUpdates(*current, key, updated, batch);
    logged = false;
  }
  const bool changes = (old || updated) && !(old && updated && *old == *updated);
  bool stream = d.stream_specification && d.latest_stream_label && changes;
  // A global table's item keeps the stamp of its last write, another Region's (which
  // ApplyReplicated compares) or a new one, greater than the item's (global_tables.cc).
  if (!d.replicas.empty() && (origin == WriteOrigin::kReplicated || changes)) {
    if (origin != WriteOrigin::kReplicated) {
      DDB_ASSIGN_OR_RETURN(std::optional<uint64_t> stored, ReplicationStampOf(key));
      stamp = NextReplicationStamp(stored.value_or(0));
    }
    batch->Put(Cf::kMeta, ReplicationStampKey(key), EncodeReplicationStamp(stamp));
  } else {
    stamp = 0;
  }
  // A Kinesis streaming destination gets the change too (kinesis_destinations.cc).
  const bool kinesis = changes && !d.kinesis_destinations.empty() && KinesisStreamOf(d);
  if (logged || stream || kinesis) {
    uint64_t sequence = sequencer->Begin();
    sequences->push_back(sequence);
    std::string old_value;
    if (old) EncodeItem(*old, &old_value);
    std::string change = EncodeChange(table_id, NowMs(), key, old ? &old_value : nullptr,
                                      updated ? &value : nullptr);
    if (stream) {
      // Looked at again now that the sequence is taken: a stream closed in between has
      // already fixed its last sequence (CloseStream) and must get no record past it.
      auto again = catalog->FindById(table_id);
      stream = again && again->description.stream_specification &&
               again->description.latest_stream_label == d.latest_stream_label;
    }
    if (stream) {
      batch->Put(Cf::kStreams, StreamRecordKey(table_id, *d.latest_stream_label, sequence),
                 EncodeStreamRecord(origin, change, stamp));
    }
    if (logged) batch->Put(Cf::kChanges, ChangeKey(sequence), change);
    if (kinesis) AddKinesisChange(*current, key, old, updated, origin, sequence, batch);
  }
  return Status::Ok();
}

Status EngineImpl::Commit(Storage::Batch& batch, const std::vector<uint64_t>& sequences,
                          WriteSync sync) {
  Status written = storage->Write(batch, sync);
  for (uint64_t s : sequences) sequencer->End(s);
  return written;
}

Result<std::optional<Item>> EngineImpl::Mutate(const TableInfo& table, const std::string& key,
                                               const ComputeNewItem& compute,
                                               std::optional<Item>* new_item, WriteOrigin origin,
                                               WriteSync sync) {
  // A multi-Region strongly consistent table's write: claimed in every Region first, and
  // applied in the others before it is acknowledged (global_tables.h).
  std::shared_ptr<const Engine::StrongWriteHooks> hooks;
  if (table.description.multi_region_strong && origin != WriteOrigin::kReplicated) {
    hooks = StrongHooks();
  }
  if (!hooks) return MutateHere(table, key, compute, new_item, origin, sync, nullptr);
  Item key_attributes;
  if (!KeyAttributesOfItemKey(table.description, key, &key_attributes)) {
    return Error::Internal("unreadable item key");
  }
  std::string item_id;
  EncodeItem(key_attributes, &item_id);
  const std::string& name = table.description.table_name;
  DDB_RETURN_IF_ERROR(hooks->claim(name, item_id));
  ReplicatedChange change;
  change.key = std::move(key_attributes);
  Result<std::optional<Item>> done =
      MutateHere(table, key, compute, new_item, origin, sync, &change);
  if (!done.ok() || change.stamp == 0) {
    hooks->release(name, item_id);
    return done;
  }
  DDB_RETURN_IF_ERROR(hooks->replicate(name, item_id, change));
  return done;
}

Result<std::optional<Item>> EngineImpl::MutateHere(const TableInfo& table, const std::string& key,
                                                   const ComputeNewItem& compute,
                                                   std::optional<Item>* new_item,
                                                   WriteOrigin origin, WriteSync sync,
                                                   ReplicatedChange* committed) {
  std::lock_guard lock(StripeFor(key));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, ReadItem(key));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> updated, compute(old));
  if (!old && !updated) return old;  // deleting what is not there writes nothing
  Storage::Batch batch(*storage);
  std::vector<uint64_t> sequences;
  Status added = AddWrite(table.id, key, old, updated, &batch, &sequences, origin);
  if (!added.ok()) {
    for (uint64_t s : sequences) sequencer->End(s);
    return added.error();
  }
  DDB_RETURN_IF_ERROR(Commit(batch, sequences, sync));
  if (committed) {
    // The write's stamp, still under the item's lock (0: it changed nothing, so took none).
    DDB_ASSIGN_OR_RETURN(std::optional<uint64_t> stamp, ReplicationStampOf(key));
    const bool changed = !(old && updated && *old == *updated);
    committed->stamp = changed ? stamp.value_or(0) : 0;
    committed->commit_time_ms = NowMs();
    committed->new_image = updated;
  }
  if (new_item) *new_item = std::move(updated);
  return old;
}

Result<std::optional<int64_t>> EngineImpl::PutWithoutIndexes(uint32_t table_id,
                                                             const std::string& key,
                                                             const Item& item, int64_t item_size) {
  if (transaction_claims.HeldForWriting(key)) return TransactionConflict();
  std::lock_guard lock(StripeFor(key));
  // As AddWrite: the table as of now, so that an index created meanwhile sees this write.
  std::shared_ptr<const TableInfo> current = catalog->FindById(table_id);
  if (!current) return TableNotFound();
  // A stream or a Kinesis destination needs the old item too (images, and no record for an
  // unchanged item), and so does Time to Live (the old item's record entry).
  if (!current->indexes.empty() || current->description.stream_specification ||
      current->description.ttl_attribute || !current->description.vector_indexes.empty() ||
      !current->description.kinesis_destinations.empty()) {
    return std::optional<int64_t>();
  }
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> raw, storage->Get(Cf::kItems, key));
  int64_t old_size = -1;
  if (raw) {
    std::optional<size_t> size = EncodedItemSize(*raw);
    if (!size) return Error::Internal("unreadable item");
    old_size = static_cast<int64_t>(*size);
  }
  std::string value;
  EncodeItem(item, &value);
  Storage::Batch batch(*storage);
  batch.Put(Cf::kItems, key, value);
  // The old image as stored, not decoded.
  if (KeepsHistory(*current) && !(raw && *raw == value))
    AddHistory(table_id, key, raw ? &*raw : nullptr, &batch);
  if (old_size < 0 || old_size != item_size) {
    batch.AddToStats(StatsKey(table_id), old_size < 0 ? 1 : 0,
                     item_size - std::max<int64_t>(old_size, 0));
  }
  DDB_RETURN_IF_ERROR(storage->Write(batch));
  return std::optional<int64_t>(old_size);
}

Result<std::optional<Item>> EngineImpl::Write(const PreparedWrite& write,
                                              std::optional<Item>* new_item) {
  if (transaction_claims.HeldForWriting(write.key)) return TransactionConflict();
  return Mutate(
      *write.table, write.key, [&](const std::optional<Item>& old) { return write.Apply(old); },
      new_item);
}

}  // namespace ddb
