// Catalog: the tables that exist, cached in memory and persisted in the catalog column
// family (table name -> table record). A table record is the TableDescription written as
// an Item with item_codec (fields named as in DescribeTable) plus the numeric table id that
// prefixes the table's item keys. Table ids are never reused, so the items of a deleted
// table can never reappear under a new table of the same name.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/index_key.h"
#include "engine/storage.h"

namespace ddb {

struct TableInfo {
  uint32_t id = 0;
  TableDescription description;  // item_count/table_size_bytes are read live, not from here
  // Secondary indexes, LSIs first, then GSIs, each with its own id (the prefix of its
  // entries in the indexes column family; ids share the table-id sequence).
  std::vector<IndexSchema> indexes;
  bool has_lsi() const;
  bool has_gsi() const;
  const IndexSchema* FindIndex(const std::string& name) const;
};

class Catalog {
 public:
  // Loads every table record. Errors: kInternal (unreadable record).
  static Result<std::unique_ptr<Catalog>> Load(Storage* storage);

  // Null when there is no such table.
  std::shared_ptr<const TableInfo> Find(const std::string& name) const;
  std::shared_ptr<const TableInfo> FindById(uint32_t id) const;
  // Table names in ascending byte order.
  std::vector<std::string> Names() const;

  // Assigns an id and persists the table. Errors: kResourceInUse (name taken), kInternal.
  Result<std::shared_ptr<const TableInfo>> Create(TableDescription description);
  // Replaces the table's description with what "change" makes of a copy, assigning ids to
  // new indexes, and persists it. Errors: kResourceNotFound, those of "change", kInternal.
  Result<std::shared_ptr<const TableInfo>> Update(
      const std::string& name, const std::function<Status(TableDescription*)>& change);
  // Forgets the table and removes its items. Errors: kResourceNotFound, kInternal.
  Result<std::shared_ptr<const TableInfo>> Drop(const std::string& name);

 private:
  explicit Catalog(Storage* storage) : storage_(storage) {}
  Storage* storage_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::shared_ptr<const TableInfo>> tables_;  // guarded by mu_
  std::map<uint32_t, std::shared_ptr<const TableInfo>> by_id_;      // guarded by mu_
  uint32_t next_id_ = 1;                                            // guarded by mu_
};

// TableCreationParameters (ImportTable's) as an item, in the table record's fields, for import
// records (imports.cc); and back.
Item TableCreationRecord(const CreateTableRequest& req);
CreateTableRequest TableCreationFrom(const Item& record);

// Meta-family key of a table's or index's live (item count, item bytes) pair.
std::string StatsKey(uint32_t id);

}  // namespace ddb
