#include "engine/table_holds.h"

namespace ddb {

void TableHolds::Expire() {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(held_, [&](const auto& entry) { return entry.second.until <= now; });
}

void TableHolds::Hold(const std::string& name, TableStatus status,
                      std::optional<TableDescription> dropped) {
  if (!enabled()) return;
  if (dropped) dropped->table_status = TableStatus::kDeleting;
  std::lock_guard lock(mu_);
  Expire();
  held_[name] = Held{status, std::chrono::steady_clock::now() + hold_, std::move(dropped)};
}

void TableHolds::HoldForImport(const std::string& name) {
  std::lock_guard lock(mu_);
  if (importing_.insert(name).second) ++importing_count_;
}

void TableHolds::ReleaseImport(const std::string& name) {
  std::lock_guard lock(mu_);
  if (importing_.erase(name) > 0) --importing_count_;
}

std::optional<TableStatus> TableHolds::StatusOf(const std::string& name) {
  if (!enabled() && importing_count_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  if (importing_.count(name)) return TableStatus::kCreating;
  if (!enabled()) return std::nullopt;
  Expire();
  auto it = held_.find(name);
  if (it == held_.end()) return std::nullopt;
  return it->second.status;
}

std::optional<TableDescription> TableHolds::Deleting(const std::string& name) {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mu_);
  Expire();
  auto it = held_.find(name);
  if (it == held_.end() || it->second.status != TableStatus::kDeleting) return std::nullopt;
  return it->second.dropped;
}

std::vector<std::string> TableHolds::DeletingNames() {
  std::vector<std::string> names;
  if (!enabled()) return names;
  std::lock_guard lock(mu_);
  Expire();
  for (const auto& [name, held] : held_) {
    if (held.status == TableStatus::kDeleting) names.push_back(name);
  }
  return names;
}

Error TableHolds::InUse(TableStatus status, const std::string& name) {
  const char* what = status == TableStatus::kCreating   ? "created"
                     : status == TableStatus::kUpdating ? "updated"
                                                        : "deleted";
  return Error::InUse("Attempt to change a resource which is still in use: Table is being " +
                      std::string(what) + ": " + name);
}

}  // namespace ddb
