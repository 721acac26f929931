#include "engine/index_key.h"

#include <algorithm>

#include "ddb/limits.h"
#include "ddb/number.h"
#include "ddb/stored_item.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"

namespace ddb {

void AppendIndexKeyPrefix(std::string* dst, const AttributeValue& value) {
  for (char c : value.scalar()) {
    dst->push_back(c);
    if (c == '\0') dst->push_back('\xff');
  }
}

void AppendIndexKeyComponent(std::string* dst, const AttributeValue& value) {
  if (value.type() == AttributeType::kN) {
    AppendNumberKey(dst, value.scalar());
    return;
  }
  AppendIndexKeyPrefix(dst, value);
  dst->push_back('\0');
  dst->push_back('\x01');
}

std::string IndexPartitionBytes(const std::vector<const AttributeValue*>& values) {
  if (values.size() == 1) return values[0]->scalar();
  std::string out;
  for (const AttributeValue* v : values) AppendIndexKeyComponent(&out, *v);
  return out;
}

std::string IndexPartitionPrefix(const IndexSchema& index,
                                 const std::vector<const AttributeValue*>& values) {
  const std::string ipk = IndexPartitionBytes(values);
  uint64_t token;
  if (index.key_format >= kKeyFormatServiceOrder) {
    std::string bytes;
    for (const AttributeValue* v : values) AppendServiceKeyBytes(&bytes, *v);
    token = ServiceHash(bytes);
  } else {
    token = Xxh3Token(ipk);
  }
  std::string key;
  key.reserve(14 + ipk.size());
  PutFixed32BE(&key, index.index_id);
  PutFixed64BE(&key, token);
  PutFixed16BE(&key, static_cast<uint16_t>(ipk.size()));
  key.append(ipk);
  return key;
}

namespace {

// The item's value of an index key attribute, or nullptr when the item is not indexed by it:
// absent, of another type, empty, or longer than the service's key limit (writes refuse such
// values; a backfill skips the items that have them, as the service does).
const AttributeValue* KeyAttribute(const Item& item, const std::pair<std::string, AttributeType>& a,
                                   size_t max_size) {
  auto it = item.find(a.first);
  if (it == item.end() || it->second.type() != a.second) return nullptr;
  const std::string& bytes = it->second.scalar();
  if (a.second != AttributeType::kN && (bytes.empty() || bytes.size() > max_size)) return nullptr;
  return &it->second;
}

}  // namespace

std::optional<std::vector<const AttributeValue*>> IndexedPartitionValues(const IndexSchema& index,
                                                                         const Item& item) {
  std::vector<const AttributeValue*> hash;
  for (const auto& a : index.hash_attrs) {
    const AttributeValue* v = KeyAttribute(item, a, kMaxPartitionKeySize);
    if (!v) return std::nullopt;
    hash.push_back(v);
  }
  for (const auto& a : index.range_attrs) {
    if (!KeyAttribute(item, a, kMaxSortKeySize)) return std::nullopt;
  }
  return hash;
}

namespace {

// The entry key of an item in the index, or nullopt when it is not indexed.
std::optional<std::string> EntryKey(const IndexSchema& index, const Item& item);

}  // namespace

std::optional<std::pair<std::string, int64_t>> IndexEntryKeyAndSize(const IndexSchema& index,
                                                                    const Item& item) {
  std::optional<std::string> key = EntryKey(index, item);
  if (!key) return std::nullopt;
  return std::make_pair(std::move(*key), IndexEntrySize(index, item));
}

int64_t IndexEntrySize(const IndexSchema& index, const Item& item) {
  // The developer guide counts 100 bytes of overhead per index entry. The projected item's
  // size without building it (every write charges it, per GSI): ItemSize's sum over the
  // attributes the index projects.
  size_t size = 0;
  if (index.projection == ProjectionType::kAll) {
    size = ItemSize(item);
  } else {
    for (const auto& [name, value] : item) {
      if (IndexProjects(index, name)) size += name.size() + AttributeValueSize(value);
    }
  }
  return static_cast<int64_t>(size) + 100;
}

bool SameIndexProjection(const IndexSchema& index, const Item& a, const Item& b) {
  if (index.projection == ProjectionType::kAll) return a == b;
  return ProjectForIndex(index, a) == ProjectForIndex(index, b);
}

std::optional<IndexEntryData> IndexEntry(const IndexSchema& index, const Item& item) {
  std::optional<std::string> key = EntryKey(index, item);
  if (!key) return std::nullopt;
  IndexEntryData entry;
  entry.key = std::move(*key);
  // The developer guide counts 100 bytes of overhead per index entry.
  if (index.projection == ProjectionType::kAll) {  // the whole item: no projected copy
    EncodeItem(item, &entry.value);
    entry.size = static_cast<int64_t>(ItemSize(item)) + 100;
    return entry;
  }
  Item projected = ProjectForIndex(index, item);
  EncodeItem(projected, &entry.value);
  entry.size = static_cast<int64_t>(ItemSize(projected)) + 100;
  return entry;
}

namespace {

std::optional<std::string> EntryKey(const IndexSchema& index, const Item& item) {
  std::optional<std::vector<const AttributeValue*>> hash = IndexedPartitionValues(index, item);
  if (!hash) return std::nullopt;
  std::string key = IndexPartitionPrefix(index, *hash);
  for (const auto& a : index.range_attrs) AppendIndexKeyComponent(&key, item.at(a.first));
  if (index.key_format >= kKeyFormatServiceOrder) {
    std::string bytes;
    AppendServiceKeyBytes(&bytes, item.at(index.table_hash));
    if (!index.table_range.empty()) AppendServiceKeyBytes(&bytes, item.at(index.table_range));
    PutFixed64BE(&key, ServiceHash(bytes));
  }
  const std::string& table_pk = item.at(index.table_hash).scalar();
  PutFixed16BE(&key, static_cast<uint16_t>(table_pk.size()));
  key.append(table_pk);
  if (!index.table_range.empty()) AppendSortKey(&key, item.at(index.table_range));
  return key;
}

}  // namespace

bool IndexProjects(const IndexSchema& index, std::string_view name) {
  auto named = [&](const auto& a) { return a.first == name; };
  return index.projection == ProjectionType::kAll || name == index.table_hash ||
         (!index.table_range.empty() && name == index.table_range) ||
         std::any_of(index.hash_attrs.begin(), index.hash_attrs.end(), named) ||
         std::any_of(index.range_attrs.begin(), index.range_attrs.end(), named) ||
         (index.projection == ProjectionType::kInclude &&
          std::find(index.non_key_attributes.begin(), index.non_key_attributes.end(), name) !=
              index.non_key_attributes.end());
}

Item ProjectForIndex(const IndexSchema& index, const Item& item) {
  if (index.projection == ProjectionType::kAll) return item;
  Item out;
  auto keep = [&](const std::string& name) {
    auto it = item.find(name);
    if (it != item.end()) out.insert(*it);
  };
  keep(index.table_hash);
  if (!index.table_range.empty()) keep(index.table_range);
  for (const auto& a : index.hash_attrs) keep(a.first);
  for (const auto& a : index.range_attrs) keep(a.first);
  if (index.projection == ProjectionType::kInclude) {
    for (const auto& n : index.non_key_attributes) keep(n);
  }
  return out;
}

}  // namespace ddb
