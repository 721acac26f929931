// BackupRegistry: backup records in the meta family, and the pins on tables' history.
#include "engine/backup/backup_registry.h"

#include "ddb/stored_item.h"
#include "engine/storage/store_format.h"

namespace ddb {
namespace {

constexpr std::string_view kBackupPrefix = "backup/";
constexpr std::string_view kBackupPrefixEnd = "backup0";  // '/' + 1

std::string BackupKey(std::string_view id) {
  std::string k(kBackupPrefix);
  k.append(id);
  return k;
}

AttributeValue Num(int64_t n) { return AttributeValue::N(std::to_string(n)); }

}  // namespace

std::string EncodeBackup(const BackupRecord& b) {
  Item r;
  r["Format"] = Num(kBackupRecordFormat);
  r["Id"] = AttributeValue::S(b.id);
  r["Name"] = AttributeValue::S(b.name);
  r["Type"] = AttributeValue::S(std::string(EnumName(b.type)));
  r["CreatedMs"] = Num(static_cast<int64_t>(b.created_ms));
  if (b.expiry_ms) r["ExpiryMs"] = Num(static_cast<int64_t>(*b.expiry_ms));
  r["TableId"] = Num(b.table_id);
  r["TableName"] = AttributeValue::S(b.table_name);
  r["Table"] = AttributeValue::B(b.table_record);
  r["SizeBytes"] = Num(b.size_bytes);
  r["ItemCount"] = Num(b.item_count);
  std::string out;
  EncodeItem(r, &out);
  return out;
}

Result<BackupRecord> DecodeBackup(std::string_view value) {
  Item r;
  if (!DecodeItem(value, &r) || !r.count("Format") || !r.count("Id") || !r.count("Table")) {
    return Error::Internal("unreadable backup record");
  }
  if (int64_t f = std::stoll(r.at("Format").scalar()); f > kBackupRecordFormat) {
    return NewerFormat("backup " + r.at("Id").scalar(), f, kBackupRecordFormat);
  }
  BackupRecord b;
  b.id = r.at("Id").scalar();
  b.name = r.at("Name").scalar();
  b.type = EnumFromName<BackupType>(r.at("Type").scalar()).value_or(BackupType::kUser);
  b.created_ms = std::stoull(r.at("CreatedMs").scalar());
  if (auto it = r.find("ExpiryMs"); it != r.end()) b.expiry_ms = std::stoull(it->second.scalar());
  b.table_id = static_cast<uint32_t>(std::stoul(r.at("TableId").scalar()));
  b.table_name = r.at("TableName").scalar();
  b.table_record = r.at("Table").scalar();
  b.size_bytes = std::stoll(r.at("SizeBytes").scalar());
  b.item_count = std::stoll(r.at("ItemCount").scalar());
  return b;
}

Result<std::unique_ptr<BackupRegistry>> BackupRegistry::Load(Storage* storage) {
  std::unique_ptr<BackupRegistry> registry(new BackupRegistry(storage));
  Status status = Status::Ok();
  DDB_RETURN_IF_ERROR(storage->ForEach(
      Cf::kMeta, kBackupPrefix, kBackupPrefixEnd, [&](std::string_view, std::string_view v) {
        Result<BackupRecord> b = DecodeBackup(v);
        if (!b.ok()) {
          status = b.error();
          return false;
        }
        registry->pins_[b.value().table_id].insert(b.value().created_ms);
        registry->backups_[b.value().id] = std::move(b).value();
        return true;
      }));
  DDB_RETURN_IF_ERROR(status);
  return registry;
}

Status BackupRegistry::Add(const BackupRecord& b) {
  Storage::Batch batch(*storage_);
  batch.Put(Cf::kMeta, BackupKey(b.id), EncodeBackup(b));
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  std::lock_guard lock(mu_);
  backups_[b.id] = b;
  pins_[b.table_id].insert(b.created_ms);
  return Status::Ok();
}

Status BackupRegistry::Remove(const std::string& id) {
  Storage::Batch batch(*storage_);
  batch.Delete(Cf::kMeta, BackupKey(id));
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  std::lock_guard lock(mu_);
  auto it = backups_.find(id);
  if (it == backups_.end()) return Status::Ok();
  auto pins = pins_.find(it->second.table_id);
  if (pins != pins_.end()) {
    if (auto one = pins->second.find(it->second.created_ms); one != pins->second.end()) {
      pins->second.erase(one);
    }
    if (pins->second.empty()) pins_.erase(pins);
  }
  backups_.erase(it);
  return Status::Ok();
}

std::optional<BackupRecord> BackupRegistry::Find(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = backups_.find(id);
  if (it == backups_.end()) return std::nullopt;
  return it->second;
}

std::vector<BackupRecord> BackupRegistry::List() const {
  std::lock_guard lock(mu_);
  std::vector<BackupRecord> out;
  out.reserve(backups_.size());
  for (const auto& [id, b] : backups_) out.push_back(b);
  return out;
}

void BackupRegistry::Pin(uint32_t table_id, uint64_t ms) {
  std::lock_guard lock(mu_);
  pins_[table_id].insert(ms);
}

void BackupRegistry::Unpin(uint32_t table_id, uint64_t ms) {
  std::lock_guard lock(mu_);
  auto pins = pins_.find(table_id);
  if (pins == pins_.end()) return;
  if (auto one = pins->second.find(ms); one != pins->second.end()) pins->second.erase(one);
  if (pins->second.empty()) pins_.erase(pins);
}

std::optional<uint64_t> BackupRegistry::OldestPin(uint32_t table_id) const {
  std::lock_guard lock(mu_);
  auto pins = pins_.find(table_id);
  if (pins == pins_.end() || pins->second.empty()) return std::nullopt;
  return *pins->second.begin();
}

std::vector<uint32_t> BackupRegistry::PinnedIds() const {
  std::lock_guard lock(mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, pins] : pins_) ids.push_back(id);
  return ids;
}

void BackupRegistry::BeginRestoreFrom(const std::string& id) {
  std::lock_guard lock(mu_);
  restoring_.insert(id);
}

void BackupRegistry::EndRestoreFrom(const std::string& id) {
  std::lock_guard lock(mu_);
  if (auto it = restoring_.find(id); it != restoring_.end()) restoring_.erase(it);
}

bool BackupRegistry::RestoringFrom(const std::string& id) const {
  std::lock_guard lock(mu_);
  return restoring_.count(id) > 0;
}

}  // namespace ddb
