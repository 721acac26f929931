// The service's quotas on a table's and a GSI's throughput, checked by CreateTable and
// UpdateTable with its messages. They also bound the partition model's work: the number of
// partitions follows from the throughput (partition_model.h), so no request can ask for
// more than a few dozen.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"

namespace ddb {

// Per table and per GSI, for reads and for writes, as DescribeLimits answers
// (TableMaxReadCapacityUnits, TableMaxWriteCapacityUnits).
inline constexpr int64_t kTableMaxCapacityUnits = 40000;
// Per account and region, over every provisioned table and GSI (AccountMaxReadCapacityUnits,
// AccountMaxWriteCapacityUnits).
inline constexpr int64_t kAccountMaxCapacityUnits = 80000;
// Above this a value is out of bounds before any quota is looked at.
inline constexpr int64_t kMaxCapacityUnitsValue = 1'000'000'000'000;

// The table's or an index's (`index`, "" for the table) provisioned units against
// kMaxCapacityUnitsValue. Errors: kValidation ("Given value N for ReadCapacityUnits is out of
// bounds").
Status CheckThroughputBounds(const ProvisionedThroughput& t, const std::string& index = "");

// Every throughput of a CreateTable request: provisioned, on-demand maximums and warm
// throughput of the table and of each GSI. Errors: kValidation ("Given value N for
// ReadCapacityUnits is out of bounds"), kLimitExceeded (above a quota).
Status CheckThroughputQuotas(const CreateTableRequest& req, const std::string& region);
// CreateTable's provisioned units (the table's and its GSIs') added to what `existing` tables
// of the account already reserve. Errors: kLimitExceeded.
Status CheckAccountQuota(const CreateTableRequest& req,
                         const std::vector<const TableDescription*>& existing,
                         const std::string& region);
// The same for what an UpdateTable request sets (the table's and the GSIs' it creates or
// updates).
Status CheckThroughputQuotas(const UpdateTableRequest& req, const std::string& region);

}  // namespace ddb
