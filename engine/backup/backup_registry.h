// On-demand backups as stored, and the pins they (and restores in progress) put on a table's
// items and history. A backup is a restore point: the source table's id, a time, and the
// source's table record as it was; its data is the table's items now with the history since
// undone (history.h), so keeping it costs what changed since. Records live in the meta family:
//
//   "backup/" | id  ->  backup record: an item-codec Item (Format, Id, Name, Type, CreatedMs,
//                       ExpiryMs, TableId, Table (the catalog record, B), SizeBytes, ItemCount)
//
// id := 14-digit zero-padded creation ms "-" 8 hex digits, as in the service's backup ARNs
// (arn:aws:dynamodb:<region>:<account>:table/<name>/backup/<id>), so ids sort by creation.
// Thread safety: BackupRegistry's methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/storage/storage.h"

namespace ddb {

// The version of backup records (store_format.h). DO NOT CHANGE the meaning of 1: on disk.
inline constexpr int64_t kBackupRecordFormat = 1;

struct BackupRecord {
  std::string id;
  std::string name;
  BackupType type = BackupType::kUser;
  uint64_t created_ms = 0;            // the restore point: every change at or before it, none after
  std::optional<uint64_t> expiry_ms;  // SYSTEM backups of deleted tables
  uint32_t table_id = 0;              // the source table's id (its items and history stay)
  std::string table_record;           // the source's catalog record as of the backup
  std::string table_name;             // from the record, for listing
  int64_t size_bytes = 0;
  int64_t item_count = 0;
};

std::string EncodeBackup(const BackupRecord& b);
// Errors: kInternal (malformed, or a newer format).
Result<BackupRecord> DecodeBackup(std::string_view value);

class BackupRegistry {
 public:
  // Loads every backup record. Errors: kInternal.
  static Result<std::unique_ptr<BackupRegistry>> Load(Storage* storage);

  // Persists (synced) and pins the backup's table at its time. Errors: kInternal.
  Status Add(const BackupRecord& b);
  // Removes the record (synced) and its pin. Errors: kInternal.
  Status Remove(const std::string& id);
  std::optional<BackupRecord> Find(const std::string& id) const;
  // Every backup, by id (creation time).
  std::vector<BackupRecord> List() const;

  // Pins table `table_id` at `ms`: its history after ms (and, once it is deleted, its items)
  // stay while pinned. Backups pin through Add; restores in progress pin their source.
  void Pin(uint32_t table_id, uint64_t ms);
  void Unpin(uint32_t table_id, uint64_t ms);
  std::optional<uint64_t> OldestPin(uint32_t table_id) const;
  bool Pinned(uint32_t table_id) const { return OldestPin(table_id).has_value(); }
  std::vector<uint32_t> PinnedIds() const;
  // Restores in progress from backup `id` (DeleteBackup refuses meanwhile).
  void BeginRestoreFrom(const std::string& id);
  void EndRestoreFrom(const std::string& id);
  bool RestoringFrom(const std::string& id) const;

 private:
  explicit BackupRegistry(Storage* storage) : storage_(storage) {}
  Storage* storage_;
  mutable std::mutex mu_;
  std::map<std::string, BackupRecord> backups_;       // guarded by mu_
  std::map<uint32_t, std::multiset<uint64_t>> pins_;  // guarded by mu_
  std::multiset<std::string> restoring_;              // guarded by mu_
};

}  // namespace ddb
