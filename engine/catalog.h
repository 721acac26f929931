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
#include "engine/storage/key_codec.h"
#include "engine/storage/storage.h"
#include "engine/storage/store_format.h"

namespace ddb {

struct TableInfo {
  uint32_t id = 0;
  // How its item keys and its indexes' entry keys hash (key_codec.h): kTableKeyFormat for
  // new tables, the source's for a restore (its keys are copied), 1 for older tables.
  int key_format = kKeyFormatXxh3;
  TableDescription description;  // item_count/table_size_bytes are read live, not from here
  // Secondary indexes, LSIs first, then GSIs, each with its own id (the prefix of its
  // entries in the indexes column family; ids share the table-id sequence).
  std::vector<IndexSchema> indexes;
  // A table being filled by a restore (engine/backup/backups.cc): from the items of table
  // `source_id` as of `as_of_ms` (and, from a backup, which one). Persisted in the record, so
  // a restore cut short by a restart is done again on open.
  struct RestoreJob {
    uint32_t source_id = 0;
    uint64_t as_of_ms = 0;
    std::string backup_id;  // empty for a point-in-time restore
  };
  std::optional<RestoreJob> restore_job;
  // Writes keep history (history.h) because a backup or a restore needs it (PITR tables keep
  // it too, by their description). In memory only: set again at open from the backups.
  bool keep_history = false;
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
  Result<std::shared_ptr<const TableInfo>> Create(
      TableDescription description, std::optional<TableInfo::RestoreJob> restore_job = std::nullopt,
      int key_format = kTableKeyFormat);
  // Replaces the table's description with what "change" makes of a copy, assigning ids to
  // new indexes, and persists it. Errors: kResourceNotFound, those of "change", kInternal.
  // With end_restore, the table's restore job is over (and is dropped from the record).
  Result<std::shared_ptr<const TableInfo>> Update(
      const std::string& name, const std::function<Status(TableDescription*)>& change,
      bool end_restore = false);
  // The same, with the table as it is (its index ids) beside the copy to change, both under
  // the catalog's lock: for a change that applies only to one incarnation of an index name.
  Result<std::shared_ptr<const TableInfo>> Update(
      const std::string& name,
      const std::function<Status(const TableInfo& current, TableDescription*)>& change);
  // What goes into the write that removes a dropped table's record (called under the
  // catalog's lock with the table as it is dropped).
  using DropAlso = std::function<void(const TableInfo& table, Storage::Batch* batch)>;
  // Forgets the table: removes its record, in one write with what `also` adds. Only the
  // record: the table's items, index entries, history and counters are the caller's to
  // remove (DeleteTable's steps, engine/delete_table.cc). Returns the table as it was.
  // Errors: kResourceNotFound, kInternal.
  Result<std::shared_ptr<const TableInfo>> Drop(const std::string& name,
                                                const DropAlso& also = nullptr);
  // Sets TableInfo::keep_history of a table (no-op when it is gone).
  void SetKeepHistory(uint32_t id, bool keep);

 private:
  explicit Catalog(Storage* storage) : storage_(storage) {}
  // Both Updates.
  Result<std::shared_ptr<const TableInfo>> UpdateSeeing(
      const std::string& name,
      const std::function<Status(const TableInfo& current, TableDescription*)>& change,
      bool end_restore);
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
// Meta-family key that marks the items and history of a deleted table as kept for backups.
std::string RetainedKey(uint32_t id);

// A table record as the catalog writes it (for backups, which keep their source table's
// record as it was) and back. Errors: kInternal (unreadable), kInternal (newer format).
std::string EncodeTableRecord(const TableInfo& info);
Result<TableInfo> DecodeTableRecord(std::string_view record);

}  // namespace ddb
