// The operations of global tables version 2017.11.29 (Legacy), answered as the service
// answers them today: it creates no such tables any more, so CreateGlobalTable is refused
// naming the version, the operations on one answer GlobalTableNotFoundException (also for a
// 2019.11.21 table's name), and ListGlobalTables lists none. Recorded by the AWS-run tests of
// scylladb's test/alternator/test_global_tables.py; the API reference still describes the old
// behaviour. Version 2019.11.21 (UpdateTable's ReplicaUpdates) is issue 32's.
#include <string>

#include "ddb/limits.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

// GlobalTableName: required, a table name's length and characters.
Result<std::string> ReadGlobalTableName(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "GlobalTableName"));
  if (!name) {
    v->NotNull("globalTableName");
    return std::string();
  }
  TableNameViolations(*name, "globalTableName", v->list());
  return std::string(*name);
}

Result<std::string> NotFound(const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadGlobalTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return Error(ErrorCode::kGlobalTableNotFound,
               "Global table with name '" + name + "' does not exist.");
}

}  // namespace

Result<std::string> HandleCreateGlobalTable(Engine&, const RequestContext&,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadGlobalTableName(request, &v));
  if (!Present(request, "ReplicationGroup")) v.NotNull("replicationGroup");
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return Error::Validation(
      "DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB "
      "global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).");
}

Result<std::string> HandleDescribeGlobalTable(Engine&, const RequestContext&,
                                              const JsonObject& request) {
  return NotFound(request);
}

Result<std::string> HandleUpdateGlobalTable(Engine&, const RequestContext&,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadGlobalTableName(request, &v));
  if (!Present(request, "ReplicaUpdates")) v.NotNull("replicaUpdates");
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return NotFound(request);
}

Result<std::string> HandleDescribeGlobalTableSettings(Engine&, const RequestContext&,
                                                      const JsonObject& request) {
  return NotFound(request);
}

Result<std::string> HandleUpdateGlobalTableSettings(Engine&, const RequestContext&,
                                                    const JsonObject& request) {
  return NotFound(request);
}

// Limit 1..100 and RegionName as the API reference gives them; no table to list.
Result<std::string> HandleListGlobalTables(Engine&, const RequestContext&,
                                           const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit) v.Range(*limit, "limit", 1, 100);
  DDB_ASSIGN_OR_RETURN(auto start, GetString(request, "ExclusiveStartGlobalTableName"));
  if (start) TableNameViolations(*start, "exclusiveStartGlobalTableName", v.list());
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return std::string(R"({"GlobalTables":[]})");
}

}  // namespace ddb::protocol
