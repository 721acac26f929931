#include "engine/capacity/throughput_quotas.h"

#include <tuple>
#include <vector>

namespace ddb {
namespace {

const std::string kHowToRaise =
    " Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
    "higher limits.";

// `index`: "" for the table. Messages recorded from the service (LimitExceededException on
// CreateTable and UpdateTable); the per-index wording follows the per-table one.
Status CheckProvisioned(const ProvisionedThroughput& t, const std::string& index,
                        const std::string& region) {
  const std::string for_index = index.empty() ? "" : " for index " + index;
  DDB_RETURN_IF_ERROR(CheckThroughputBounds(t, index));
  for (auto [units, name] : {std::pair{t.read_capacity_units, "ReadCapacityUnits"},
                             std::pair{t.write_capacity_units, "WriteCapacityUnits"}}) {
    if (units > kTableMaxCapacityUnits) {
      const std::string per = index.empty() ? "per table" : "per index";
      return Error(ErrorCode::kLimitExceeded,
                   std::string("The requested ") + name + for_index + ", " + std::to_string(units) +
                       ", is above the " + per + " maximum for the account in " + region + ". " +
                       (index.empty() ? "Per table" : "Per index") +
                       " maximum: " + std::to_string(kTableMaxCapacityUnits) + "." + kHowToRaise);
    }
  }
  return Status::Ok();
}

// On-demand maximums and warm throughput: "Subscriber limit exceeded: Requested
// MaxReadRequestUnits for OnDemandThroughput for table exceeds TableMaxReadCapacityUnits of
// the account in region R" (for an index: "for index : NAME").
Status CheckRate(int64_t units, bool read, const char* member, const char* parameter,
                 const std::string& index, const std::string& region) {
  if (units <= kTableMaxCapacityUnits) return Status::Ok();
  const std::string subject = index.empty() ? "table" : "index : " + index;
  return Error(ErrorCode::kLimitExceeded,
               std::string("Subscriber limit exceeded: Requested ") + member + " for " + parameter +
                   " for " + subject + " exceeds " +
                   (read ? "TableMaxReadCapacityUnits" : "TableMaxWriteCapacityUnits") +
                   " of the account in region " + region);
}

Status CheckOnDemand(const OnDemandThroughput& t, const std::string& index,
                     const std::string& region) {
  DDB_RETURN_IF_ERROR(CheckRate(t.max_read_request_units, true, "MaxReadRequestUnits",
                                "OnDemandThroughput", index, region));
  return CheckRate(t.max_write_request_units, false, "MaxWriteRequestUnits", "OnDemandThroughput",
                   index, region);
}

Status CheckWarm(const WarmThroughput& t, const std::string& index, const std::string& region) {
  DDB_RETURN_IF_ERROR(CheckRate(t.read_units_per_second, true, "ReadUnitsPerSecond",
                                "WarmThroughput", index, region));
  return CheckRate(t.write_units_per_second, false, "WriteUnitsPerSecond", "WarmThroughput", index,
                   region);
}

Status CheckIndex(const SecondaryIndexDefinition& index, const std::string& region) {
  if (index.provisioned_throughput) {
    DDB_RETURN_IF_ERROR(CheckProvisioned(*index.provisioned_throughput, index.index_name, region));
  }
  if (index.on_demand_throughput) {
    DDB_RETURN_IF_ERROR(CheckOnDemand(*index.on_demand_throughput, index.index_name, region));
  }
  return Status::Ok();
}

Status CheckTable(const std::optional<ProvisionedThroughput>& provisioned,
                  const std::optional<OnDemandThroughput>& on_demand,
                  const std::optional<WarmThroughput>& warm, const std::string& region) {
  if (provisioned) DDB_RETURN_IF_ERROR(CheckProvisioned(*provisioned, "", region));
  if (on_demand) DDB_RETURN_IF_ERROR(CheckOnDemand(*on_demand, "", region));
  if (warm) DDB_RETURN_IF_ERROR(CheckWarm(*warm, "", region));
  return Status::Ok();
}

}  // namespace

Status CheckThroughputBounds(const ProvisionedThroughput& t, const std::string& index) {
  const std::string for_index = index.empty() ? "" : " for index " + index;
  for (auto [units, name] : {std::pair{t.read_capacity_units, "ReadCapacityUnits"},
                             std::pair{t.write_capacity_units, "WriteCapacityUnits"}}) {
    if (units > kMaxCapacityUnitsValue) {
      return Error::Validation("Given value " + std::to_string(units) + " for " + name +
                               " is out of bounds" + for_index);
    }
  }
  return Status::Ok();
}

Status CheckThroughputQuotas(const CreateTableRequest& req, const std::string& region) {
  DDB_RETURN_IF_ERROR(CheckTable(req.provisioned_throughput, req.on_demand_throughput,
                                 req.warm_throughput, region));
  for (const SecondaryIndexDefinition& index : req.global_secondary_indexes) {
    DDB_RETURN_IF_ERROR(CheckIndex(index, region));
  }
  return Status::Ok();
}

Status CheckAccountQuota(const CreateTableRequest& req,
                         const std::vector<const TableDescription*>& existing,
                         const std::string& region) {
  if (req.billing_mode == BillingMode::kPayPerRequest || !req.provisioned_throughput) {
    return Status::Ok();
  }
  ProvisionedThroughput requested = *req.provisioned_throughput, reserved;
  auto add = [](ProvisionedThroughput* sum, const ProvisionedThroughput& t) {
    sum->read_capacity_units += t.read_capacity_units;
    sum->write_capacity_units += t.write_capacity_units;
  };
  for (const SecondaryIndexDefinition& index : req.global_secondary_indexes) {
    if (index.provisioned_throughput) add(&requested, *index.provisioned_throughput);
  }
  for (const TableDescription* d : existing) {
    if (d->billing_mode != BillingMode::kProvisioned) continue;
    add(&reserved, d->provisioned_throughput);
    for (const SecondaryIndexDefinition& index : d->global_secondary_indexes) {
      if (index.provisioned_throughput) add(&reserved, *index.provisioned_throughput);
    }
  }
  for (auto [want, have, name] :
       {std::tuple{requested.read_capacity_units, reserved.read_capacity_units,
                   "ReadCapacityUnits"},
        std::tuple{requested.write_capacity_units, reserved.write_capacity_units,
                   "WriteCapacityUnits"}}) {
    if (want + have <= kAccountMaxCapacityUnits) continue;
    // The service's text (LimitExceededException on CreateTable).
    return Error(ErrorCode::kLimitExceeded,
                 std::string("This request would have caused the ") + name +
                     " limit to be exceeded for the account in " + region + ". Current " + name +
                     " reserved by the account: " + std::to_string(have) +
                     ". Limit: " + std::to_string(kAccountMaxCapacityUnits) +
                     ". Requested: " + std::to_string(want) + "." + kHowToRaise);
  }
  return Status::Ok();
}

Status CheckThroughputQuotas(const UpdateTableRequest& req, const std::string& region) {
  DDB_RETURN_IF_ERROR(CheckTable(req.provisioned_throughput, req.on_demand_throughput,
                                 req.warm_throughput, region));
  for (const GlobalSecondaryIndexUpdate& update : req.global_secondary_index_updates) {
    if (update.kind != GlobalSecondaryIndexUpdate::Kind::kDelete) {
      DDB_RETURN_IF_ERROR(CheckIndex(update.index, region));
    }
  }
  return Status::Ok();
}

}  // namespace ddb
