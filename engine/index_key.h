// Secondary-index entries: their RocksDB keys (indexes column family) and values.
//
//   entry key := index_id (fixed32 BE) | token (fixed64 BE) | ipk_len (fixed16 BE) | ipk
//                | isk | table pk (fixed16 BE len + bytes) | table sk (raw, last)
//
//   ipk   = the index partition key's bytes: for one HASH attribute its plain bytes (as in
//           item keys: S UTF-8, N normalised text, B raw); for several (multi-attribute GSI
//           keys) the ordered encodings of each, concatenated.
//   token = by the table's key format (key_codec.h): 1 XXH3_64bits(ipk); 2 ServiceHash of
//           the index key values' ServiceKeyBytes.
//   isk   = the ordered encoding of each RANGE attribute in key-schema order:
//           N by AppendNumberKey (self-delimiting), S and B escaped (0x00 -> 0x00 0xFF)
//           and terminated by 0x00 0x01, so that shorter values sort first and the
//           components can be followed by more bytes.
//   The table's primary key comes last, so equal index keys are distinct entries in a
//   stable order; in key format 2 after its ServiceHash (fixed64 BE; of the table key values'
//   ServiceKeyBytes), which is the service's order of the items that share an index key.
//   entry value := the projected item, encoded as in ddb/stored_item.h.
//
// DO NOT change without a format version bump: it is on disk.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/types.h"

namespace ddb {

// What maintaining and reading one index needs, resolved from the table description.
struct IndexSchema {
  uint32_t index_id = 0;
  std::string name;
  bool global = false;
  std::vector<std::pair<std::string, AttributeType>> hash_attrs;   // 1..4
  std::vector<std::pair<std::string, AttributeType>> range_attrs;  // 0..4
  ProjectionType projection = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;  // INCLUDE
  bool backfilling = false;                     // a GSI added to a live table, not yet readable
  // The table's own key attributes (always projected, and the entry key's suffix).
  std::string table_hash;
  std::string table_range;  // empty when the table has no sort key
  int key_format = 1;       // the table's (TableInfo::key_format)
};

// Appends the ordered, self-delimiting encoding of an index key component.
void AppendIndexKeyComponent(std::string* dst, const AttributeValue& value);

// Appends the escaped bytes of an S or B value without the terminator: every component
// that begins with the value begins with these bytes (begins_with on an index sort key).
void AppendIndexKeyPrefix(std::string* dst, const AttributeValue& value);

// The index partition key bytes of "values" (one per HASH attribute).
std::string IndexPartitionBytes(const std::vector<const AttributeValue*>& values);

// The entry key prefix of one index partition: index_id | token | ipk_len | ipk, for the
// index key values "values" (one per HASH attribute).
std::string IndexPartitionPrefix(const IndexSchema& index,
                                 const std::vector<const AttributeValue*>& values);

// The item's values of the index's partition key attributes (one per HASH attribute), or
// nullopt when the item is not indexed (IndexEntry's rule: every key attribute present, of
// its type, within the key limits).
std::optional<std::vector<const AttributeValue*>> IndexedPartitionValues(const IndexSchema& index,
                                                                         const Item& item);

struct IndexEntryData {
  std::string key;
  std::string value;  // the encoded projected item
  int64_t size = 0;   // what IndexSizeBytes counts: projected item size + 100 bytes overhead
};

// The entry of "item" in the index, or nullopt when the item lacks an index key attribute
// or has one of another type (sparse index).
std::optional<IndexEntryData> IndexEntry(const IndexSchema& index, const Item& item);

// The key of "item"'s entry in the index and the entry's IndexSizeBytes size, without
// encoding the entry (capacity accounting); nullopt when the item is not indexed.
std::optional<std::pair<std::string, int64_t>> IndexEntryKeyAndSize(const IndexSchema& index,
                                                                    const Item& item);

// The IndexSizeBytes size of "item"'s entry in the index (projected item size + 100 bytes),
// without its key. REQUIRES: the item is indexed.
int64_t IndexEntrySize(const IndexSchema& index, const Item& item);

// Whether two items have the same entry content in the index (same projected attributes).
bool SameIndexProjection(const IndexSchema& index, const Item& a, const Item& b);

// The attributes of "item" that the index projects (keys always included).
Item ProjectForIndex(const IndexSchema& index, const Item& item);

// Whether the index projects the top-level attribute "name" (its keys and the table's
// always; INCLUDE's list; everything for ALL).
bool IndexProjects(const IndexSchema& index, std::string_view name);

}  // namespace ddb
