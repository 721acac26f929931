#include <algorithm>

#include "engine/capacity/write_capacity.h"
#include "engine/catalog.h"
#include "engine/index_key.h"

namespace ddb {
namespace {

constexpr size_t kReadUnitBytes = 4096;
constexpr size_t kWriteUnitBytes = 1024;

double Units(size_t bytes, size_t unit) {
  return static_cast<double>(std::max<size_t>(1, (bytes + unit - 1) / unit));
}

}  // namespace

void ConsumedCapacity::AddTable(double units, bool write) {
  table_units += units;
  capacity_units += units;
  (write ? write_capacity_units : read_capacity_units) += units;
}

void ConsumedCapacity::AddIndex(const std::string& index, bool global, double units, bool write) {
  (global ? global_secondary_indexes : local_secondary_indexes)[index] += units;
  capacity_units += units;
  (write ? write_capacity_units : read_capacity_units) += units;
}

void ConsumedCapacity::Merge(const ConsumedCapacity& other) {
  capacity_units += other.capacity_units;
  read_capacity_units += other.read_capacity_units;
  write_capacity_units += other.write_capacity_units;
  table_units += other.table_units;
  for (const auto& [name, u] : other.local_secondary_indexes) local_secondary_indexes[name] += u;
  for (const auto& [name, u] : other.global_secondary_indexes) global_secondary_indexes[name] += u;
}

double ReadUnits(size_t bytes, bool consistent, bool transactional) {
  double units = Units(bytes, kReadUnitBytes);
  if (transactional) return units * 2;
  return consistent ? units : units / 2;
}

double WriteUnits(size_t bytes, bool transactional) {
  return Units(bytes, kWriteUnitBytes) * (transactional ? 2 : 1);
}

WriteSizes AddWriteCapacity(const TableInfo& table, const std::optional<Item>& old_item,
                            const std::optional<Item>& new_item, bool transactional,
                            ConsumedCapacity* out) {
  WriteSizes sizes;
  if (old_item) sizes.old_size = static_cast<int64_t>(ItemSize(*old_item));
  if (new_item) sizes.new_size = static_cast<int64_t>(ItemSize(*new_item));
  const int64_t size = std::max<int64_t>({sizes.old_size, sizes.new_size, 0});
  out->AddTable(WriteUnits(static_cast<size_t>(size), transactional), /*write=*/true);
  for (const IndexSchema& index : table.indexes) {
    const bool before = old_item && IndexedPartitionValues(index, *old_item);
    const bool after = new_item && IndexedPartitionValues(index, *new_item);
    if (!before && !after) continue;
    // The entry keys only matter when both items are indexed (a new item's, with its hashes,
    // would cost a PutItem on a table with a GSI ~5k instructions for nothing).
    std::optional<std::pair<std::string, int64_t>> old_entry, new_entry;
    if (before && after) {
      old_entry = IndexEntryKeyAndSize(index, *old_item);
      new_entry = IndexEntryKeyAndSize(index, *new_item);
    }
    const bool moved = old_entry && new_entry && old_entry->first != new_entry->first;
    if (before && after && !moved && SameIndexProjection(index, *old_item, *new_item)) {
      continue;  // the entry does not change: no index write
    }
    // Entry sizes count the 100-byte overhead only for IndexSizeBytes, not for capacity; a
    // size already computed with the key is not computed again.
    auto entry_units = [&](const std::optional<std::pair<std::string, int64_t>>& entry,
                           const Item& item) {
      const int64_t size = entry ? entry->second : IndexEntrySize(index, item);
      return WriteUnits(static_cast<size_t>(size - 100));
    };
    double units = 0;
    if (moved) {
      units = entry_units(old_entry, *old_item) + entry_units(new_entry, *new_item);
    } else {
      units = std::max(before ? entry_units(old_entry, *old_item) : 0.0,
                       after ? entry_units(new_entry, *new_item) : 0.0);
    }
    out->AddIndex(index.name, index.global, units, /*write=*/true);
  }
  return sizes;
}

}  // namespace ddb
