// EngineImpl's link to the partition model: which partition a request lands in, and
// what it cost there.
#include <chrono>

#include "engine/engine_impl.h"

namespace ddb {
namespace {

// The OnDemandThroughput maximums, if any, into `c` (per second; -1 in the API: none).
void SetOnDemandMaximums(const std::optional<OnDemandThroughput>& t, ResourceCapacity* c) {
  if (!t) return;
  c->max_read_units = static_cast<double>(std::max<int64_t>(t->max_read_request_units, 0));
  c->max_write_units = static_cast<double>(std::max<int64_t>(t->max_write_request_units, 0));
}

ResourceCapacity TableCapacity(const TableDescription& d) {
  ResourceCapacity c;
  c.on_demand = d.billing_mode == BillingMode::kPayPerRequest;
  c.read_units = static_cast<double>(d.provisioned_throughput.read_capacity_units);
  c.write_units = static_cast<double>(d.provisioned_throughput.write_capacity_units);
  SetOnDemandMaximums(d.on_demand_throughput, &c);
  return c;
}

ResourceCapacity IndexCapacity(const TableDescription& d, const std::string& index) {
  ResourceCapacity c;
  c.on_demand = d.billing_mode == BillingMode::kPayPerRequest;
  for (const auto& g : d.global_secondary_indexes) {
    if (g.index_name != index) continue;
    if (g.provisioned_throughput) {
      c.read_units = static_cast<double>(g.provisioned_throughput->read_capacity_units);
      c.write_units = static_cast<double>(g.provisioned_throughput->write_capacity_units);
    }
    SetOnDemandMaximums(g.on_demand_throughput, &c);
  }
  return c;
}

// The partition key (its bytes) and token of an item in a GSI, if it is indexed.
std::optional<std::pair<std::string, uint64_t>> IndexPartitionOf(const IndexSchema& index,
                                                                 const Item& item) {
  std::optional<std::vector<const AttributeValue*>> values = IndexedPartitionValues(index, item);
  if (!values) return std::nullopt;
  std::string bytes = IndexPartitionBytes(*values);
  uint64_t token = TokenOfKey(IndexPartitionPrefix(index, *values));
  return std::make_pair(std::move(bytes), token);
}

}  // namespace

Status EngineImpl::AdmitKey(const TableInfo& table, const Item& item_or_key, bool write) {
  if (!partitions->simulating()) return Status::Ok();
  const TableDescription& d = table.description;
  const AttributeValue& pk_value = item_or_key.at(d.hash_key());
  const std::string& pk = KeyBytes(pk_value);
  if (Status admitted = partitions->Admit(table.id, d.table_name, "", TableCapacity(d),
                                          PartitionToken(table.key_format, pk_value), write);
      !admitted.ok()) {
    const std::string* range = d.range_key();
    auto sk = range ? item_or_key.find(*range) : item_or_key.end();
    contributors.Record(table.id, pk, sk != item_or_key.end() ? &KeyBytes(sk->second) : nullptr, 0,
                        /*throttled=*/true);
    return admitted;
  }
  if (!write) return Status::Ok();
  // A write also needs room in the GSI partitions it will write (back-pressure, as in the
  // service).
  for (const IndexSchema& index : table.indexes) {
    if (!index.global) continue;
    auto part = IndexPartitionOf(index, item_or_key);
    if (!part) continue;
    DDB_RETURN_IF_ERROR(partitions->Admit(index.index_id, d.table_name, index.name,
                                          IndexCapacity(d, index.name), part->second, true));
  }
  return Status::Ok();
}

void EngineImpl::ChargeWrite(const TableInfo& table, const Item& item_or_key,
                             const std::optional<Item>& old_item,
                             const std::optional<Item>& new_item, const ConsumedCapacity& cost,
                             WriteSizes sizes, std::string_view item_key) {
  const TableDescription& d = table.description;
  // LSI writes land in the table's partition (an LSI shares its partition key).
  double units = cost.table_units;
  for (const auto& [name, u] : cost.local_secondary_indexes) units += u;
  ChargeTableWrite(table, item_or_key, sizes.old_size, sizes.new_size, units, item_key);
  for (const auto& [name, u] : cost.global_secondary_indexes) {
    const IndexSchema* index = table.FindIndex(name);
    if (!index) continue;
    // The entry's partition before and after: an item whose index partition key changed
    // leaves one partition, its entry's bytes with it, and joins another, which is charged
    // the units.
    auto before = old_item ? IndexPartitionOf(*index, *old_item) : std::nullopt;
    auto after = new_item ? IndexPartitionOf(*index, *new_item) : std::nullopt;
    const int64_t before_bytes = before ? IndexEntrySize(*index, *old_item) : 0;
    const int64_t after_bytes = after ? IndexEntrySize(*index, *new_item) : 0;
    const std::string& capacity_name = name;
    auto charge = [&](const std::pair<std::string, uint64_t>& part, double units, int64_t items,
                      int64_t bytes) {
      partitions->Charge(index->index_id, d.table_name, capacity_name,
                         IndexCapacity(d, capacity_name), part.second, part.first, units, true,
                         items, bytes);
    };
    if (before && after && before->first == after->first) {
      charge(*after, u, 0, after_bytes - before_bytes);
    } else if (after) {
      if (before) charge(*before, 0, -1, -before_bytes);
      charge(*after, u, 1, after_bytes);
    } else if (before) {
      charge(*before, u, -1, -before_bytes);
    } else {
      continue;
    }
    contributors.Record(index->index_id, after ? after->first : before->first, nullptr, u, false);
  }
}

void EngineImpl::ChargeTableWrite(const TableInfo& table, const Item& item_or_key, int64_t old_size,
                                  int64_t new_size, double units, std::string_view item_key) {
  const TableDescription& d = table.description;
  const AttributeValue& pk_value = item_or_key.at(d.hash_key());
  const std::string& pk = KeyBytes(pk_value);
  const int64_t items = (new_size >= 0 ? 1 : 0) - (old_size >= 0 ? 1 : 0);
  const int64_t bytes = std::max<int64_t>(new_size, 0) - std::max<int64_t>(old_size, 0);
  const uint64_t token =
      item_key.empty() ? PartitionToken(table.key_format, pk_value) : TokenOfKey(item_key);
  partitions->Charge(table.id, d.table_name, "", TableCapacity(d), token, pk, units, true, items,
                     bytes);
  if (const std::string* range = d.range_key()) {
    auto sk = item_or_key.find(*range);
    contributors.Record(table.id, pk, sk != item_or_key.end() ? &KeyBytes(sk->second) : nullptr,
                        units, false);
  } else {
    contributors.Record(table.id, pk, nullptr, units, false);
  }
}

Status EngineImpl::AdmitRead(const TableInfo& table, const IndexSchema* index, uint64_t token) {
  if (!partitions->simulating()) return Status::Ok();
  const TableDescription& d = table.description;
  if (index && index->global) {
    return partitions->Admit(index->index_id, d.table_name, index->name,
                             IndexCapacity(d, index->name), token, false);
  }
  return partitions->Admit(table.id, d.table_name, "", TableCapacity(d), token, false);
}

void EngineImpl::ChargeRead(const TableInfo& table, const IndexSchema* index, uint64_t token,
                            const std::string& key, double units) {
  const TableDescription& d = table.description;
  if (index && index->global) {
    partitions->Charge(index->index_id, d.table_name, index->name, IndexCapacity(d, index->name),
                       token, key, units, false, 0, 0);
    contributors.Record(index->index_id, key, nullptr, units, false);
    return;
  }
  partitions->Charge(table.id, d.table_name, "", TableCapacity(d), token, key, units, false, 0, 0);
  contributors.Record(table.id, key, nullptr, units, false);
}

std::optional<ItemCollectionMetrics> EngineImpl::CollectionMetrics(const TableInfo& table,
                                                                   const Item& item_or_key,
                                                                   bool requested) {
  if (!requested || !table.has_lsi()) return std::nullopt;
  const TableDescription& d = table.description;
  const AttributeValue& pk = item_or_key.at(d.hash_key());
  // The collection: the partition's items plus their LSI entries.
  int64_t bytes = 0;
  auto add_range = [&](Cf cf, const std::string& prefix) {
    std::string end = prefix;
    while (!end.empty() && static_cast<uint8_t>(end.back()) == 0xff) end.pop_back();
    if (!end.empty()) end.back() = static_cast<char>(static_cast<uint8_t>(end.back()) + 1);
    LogIfFailed(storage->ForEach(cf, prefix, end,
                                 [&](std::string_view, std::string_view value) {
                                   Item item;
                                   if (DecodeItem(value, &item)) {
                                     bytes += static_cast<int64_t>(ItemSize(item));
                                   }
                                   return true;
                                 }),
                "ItemCollectionMetrics of table " + d.table_name + " counted in part");
  };
  add_range(Cf::kItems, EncodeItemKey(table.id, table.key_format, pk, nullptr));
  for (const IndexSchema& index : table.indexes) {
    if (!index.global) add_range(Cf::kIndexes, IndexPartitionPrefix(index, {&pk}));
  }
  ItemCollectionMetrics m;
  m.item_collection_key = Item{{d.hash_key(), pk}};
  double gb = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  m.size_estimate_lower_gb = static_cast<double>(static_cast<int64_t>(gb));
  m.size_estimate_upper_gb = m.size_estimate_lower_gb + 1;
  return m;
}

EngineMetrics Engine::GetMetrics() {
  EngineMetrics m;
  m.resources = impl_->partitions->Snapshot();
  for (const std::string& name : impl_->catalog->Names()) {
    auto table = impl_->catalog->Find(name);
    if (!table) continue;
    TableFigures t;
    t.name = name;
    auto stats = [&](uint32_t id) {
      auto v = impl_->storage->GetStats(StatsKey(id));
      return v.ok() ? v.value() : std::pair<int64_t, int64_t>{0, 0};
    };
    std::tie(t.item_count, t.size_bytes) = stats(table->id);
    for (const IndexSchema& index : table->indexes) {
      auto [count, size] = stats(index.index_id);
      t.indexes.push_back({index.name, count, size});
    }
    m.tables.push_back(std::move(t));
  }
  m.contributor_insights = impl_->ContributorRankings();
  m.ttl_deleted_items = impl_->ttl_deleted_items.load();
  m.ttl_delete_errors = impl_->ttl_delete_errors.load();
  m.ttl_examined_entries = impl_->ttl_examined_entries.load();
  m.housekeeping = impl_->housekeeping->Figures();
  const StorageHealth health = impl_->storage->GetHealth();
  m.storage_read_only = health.read_only;
  m.storage_disk_full = health.disk_full;
  m.storage_write_stops = health.write_stops;
  m.storage_write_resumes = health.write_resumes;
  m.storage_cache_capacity_bytes = health.cache_capacity_bytes;
  m.storage_cache_usage_bytes = health.cache_usage_bytes;
  m.storage_memtable_bytes = health.memtable_bytes;
  m.storage_pending_compaction_bytes = health.pending_compaction_bytes;
  m.storage_running_compactions = health.running_compactions;
  uint64_t safe = impl_->sequencer->SafePoint();
  uint64_t applied = impl_->gsi_applier->watermark();
  // Only with simulated lag do GSIs lag: otherwise their entries are written with the items.
  m.gsi_pending_changes = safe > applied && !impl_->GsisInline() ? safe - applied : 0;
  m.gsi_unreadable_changes = impl_->gsi_applier->unreadable_changes();
  m.gsi_apply_errors = impl_->gsi_applier->apply_errors();
  m.gsi_wait_timeouts = impl_->gsi_applier->wait_timeouts();
  if (m.gsi_pending_changes > 0) {
    // The oldest record still to apply says how far behind the GSIs are in time.
    uint64_t oldest_ms = 0;
    impl_->LogIfFailed(
        impl_->storage->ForEach(Cf::kChanges, ChangeKey(applied + 1), ChangeKey(safe + 1),
                                [&](std::string_view key, std::string_view value) {
                                  ChangeRecord r;
                                  if (DecodeChange(key, value, &r)) oldest_ms = r.commit_time_ms;
                                  return false;
                                }),
        "cannot read the change log for ddb_gsi_lag_seconds");
    uint64_t now_ms = impl_->NowMs();
    if (oldest_ms && now_ms > oldest_ms) m.gsi_lag_ms = now_ms - oldest_ms;
  }
  for (const auto& [table_id, index] : impl_->vectors->All()) {
    auto table = impl_->catalog->FindById(table_id);
    if (!table) continue;
    VectorIndexFigures f;
    f.table = table->description.table_name;
    f.index = index->definition().index_name;
    f.vectors = index->Size();
    f.memory_bytes = index->MemoryBytes();
    f.graph = index->HasGraph();
    f.graph_declined = index->GraphDeclined();
    m.vector_indexes.push_back(std::move(f));
  }
  return m;
}

}  // namespace ddb
