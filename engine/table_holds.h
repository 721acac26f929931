// Tables shown CREATING, UPDATING or DELETING for EngineOptions::table_status_hold_ms after
// CreateTable, UpdateTable and DeleteTable, as the service shows them (DynamoDB Local's
// -delayTransientStatuses). A hold is only a deadline read on lookup: no thread, and a restart
// ends every hold (the table as stored is already what the operation made of it: created,
// updated or gone).
// Thread safety: every member may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"

namespace ddb {

class TableHolds {
 public:
  explicit TableHolds(int hold_ms) : hold_(hold_ms) {}
  bool enabled() const { return hold_.count() > 0; }

  // `name` is shown as `status` until the hold ends; a DELETING table (already dropped) keeps
  // its last description, for DescribeTable and ListTables.
  void Hold(const std::string& name, TableStatus status,
            std::optional<TableDescription> dropped = std::nullopt);
  // A table an import is filling: CREATING (whatever table_status_hold_ms) until released.
  void HoldForImport(const std::string& name);
  void ReleaseImport(const std::string& name);
  // CREATING, UPDATING or DELETING while held; nullopt otherwise.
  std::optional<TableStatus> StatusOf(const std::string& name);
  // The description of a table held DELETING (TableStatus DELETING).
  std::optional<TableDescription> Deleting(const std::string& name);
  // Names of the tables held DELETING, sorted.
  std::vector<std::string> DeletingNames();

  // The service's refusal of a change to a held table: kResourceInUse "Attempt to change a
  // resource which is still in use: Table is being created: NAME" (updated, deleted).
  static Error InUse(TableStatus status, const std::string& name);

 private:
  struct Held {
    TableStatus status;
    std::chrono::steady_clock::time_point until;
    std::optional<TableDescription> dropped;
  };
  // Erases holds that have ended; mu_ held.
  void Expire();

  const std::chrono::milliseconds hold_;
  std::mutex mu_;
  std::map<std::string, Held> held_;
  std::set<std::string> importing_;      // guarded by mu_
  std::atomic<int> importing_count_{0};  // importing_.size(), read without the lock
};

}  // namespace ddb
