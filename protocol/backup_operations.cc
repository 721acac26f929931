// On-demand backups and restores: CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
// RestoreTableFromBackup, RestoreTableToPointInTime.
#include <algorithm>

#include "ddb/limits.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "util/arn.h"

namespace ddb::protocol {
namespace {

// A timestamp member: epoch seconds, a JSON number (the SDKs send it so).
Result<std::optional<double>> GetTimestamp(const JsonObject& obj, std::string_view key) {
  JsonElement e;
  if (obj.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::optional<double>();
  double d;
  if (e.get(d) == simdjson::SUCCESS) return std::optional<double>(d);
  int64_t i;
  if (e.get(i) == simdjson::SUCCESS) return std::optional<double>(static_cast<double>(i));
  return WrongType(key, "a timestamp");
}

// BackupArn: required, 37..1024 characters.
Result<std::string> ReadBackupArn(const JsonObject& request, std::string_view member,
                                  std::string_view path, bool required, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, member));
  if (!arn) {
    if (required) v->NotNull(path);
    return std::string();
  }
  v->Length(*arn, path, 37, 1024);
  return std::string(*arn);
}

// A name of the table-name form (BackupName, TargetTableName) at `path`.
Result<std::string> ReadName(const JsonObject& request, std::string_view member,
                             std::string_view path, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, member));
  if (!name) {
    v->NotNull(path);
    return std::string();
  }
  TableNameViolations(*name, path, v->list());
  return std::string(*name);
}

void WriteThroughputPair(JsonWriter& w, const ProvisionedThroughput& t) {
  w.BeginObject();
  w.Key("ReadCapacityUnits");
  w.Int(t.read_capacity_units);
  w.Key("WriteCapacityUnits");
  w.Int(t.write_capacity_units);
  w.EndObject();
}

void WriteBackupDetails(JsonWriter& w, const BackupDetails& d) {
  w.BeginObject();
  w.Key("BackupArn");
  w.String(d.backup_arn);
  w.Key("BackupName");
  w.String(d.backup_name);
  w.Key("BackupSizeBytes");
  w.Int(d.backup_size_bytes);
  w.Key("BackupStatus");
  w.String(EnumName(d.backup_status));
  w.Key("BackupType");
  w.String(EnumName(d.backup_type));
  w.Key("BackupCreationDateTime");
  w.Double(d.backup_creation_date_time);
  w.OptionalDouble("BackupExpiryDateTime", d.backup_expiry_date_time);
  w.EndObject();
}

void WriteIndexInfo(JsonWriter& w, const std::vector<SecondaryIndexDefinition>& indexes,
                    bool global) {
  w.BeginArray();
  for (const SecondaryIndexDefinition& idx : indexes) {
    w.BeginObject();
    w.Key("IndexName");
    w.String(idx.index_name);
    w.Key("KeySchema");
    WriteKeySchema(w, idx.key_schema);
    w.Key("Projection");
    w.BeginObject();
    w.Key("ProjectionType");
    w.String(ProjectionTypeName(idx.projection.projection_type));
    if (!idx.projection.non_key_attributes.empty()) {
      std::vector<std::string> names = idx.projection.non_key_attributes;
      std::sort(names.begin(), names.end());
      w.Key("NonKeyAttributes");
      w.BeginArray();
      for (const std::string& n : names) w.String(n);
      w.EndArray();
    }
    w.EndObject();
    if (global) {
      w.Key("ProvisionedThroughput");
      WriteThroughputPair(w, idx.provisioned_throughput.value_or(ProvisionedThroughput{}));
    }
    w.EndObject();
  }
  w.EndArray();
}

std::string RenderBackupDescription(const BackupDescription& b) {
  const TableDescription& t = b.source_table;
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupDescription");
  w.BeginObject();
  w.Key("BackupDetails");
  WriteBackupDetails(w, b.details);
  w.Key("SourceTableDetails");
  w.BeginObject();
  w.Key("TableName");
  w.String(t.table_name);
  w.Key("TableId");
  w.String(t.table_id);
  w.Key("TableArn");
  w.String(t.table_arn);
  w.Key("TableSizeBytes");
  w.Int(t.table_size_bytes);
  w.Key("KeySchema");
  WriteKeySchema(w, t.key_schema);
  w.Key("TableCreationDateTime");
  w.Double(t.creation_date_time);
  w.Key("ProvisionedThroughput");
  WriteThroughputPair(w, t.provisioned_throughput);
  w.Key("ItemCount");
  w.Int(t.item_count);
  w.Key("BillingMode");
  w.String(EnumName(t.billing_mode));
  w.EndObject();
  w.Key("SourceTableFeatureDetails");
  w.BeginObject();
  if (!t.local_secondary_indexes.empty()) {
    w.Key("LocalSecondaryIndexes");
    WriteIndexInfo(w, t.local_secondary_indexes, false);
  }
  std::vector<SecondaryIndexDefinition> gsis;
  for (const auto& g : t.global_secondary_indexes) {
    if (g.index_status != IndexStatus::kDeleting) gsis.push_back(g);
  }
  if (!gsis.empty()) {
    w.Key("GlobalSecondaryIndexes");
    WriteIndexInfo(w, gsis, true);
  }
  if (t.stream_specification) {
    w.Key("StreamDescription");
    w.BeginObject();
    w.Key("StreamEnabled");
    w.Bool(t.stream_specification->stream_enabled);
    w.OptionalEnum("StreamViewType", t.stream_specification->stream_view_type);
    w.EndObject();
  }
  w.Key("TimeToLiveDescription");
  w.BeginObject();
  w.Key("TimeToLiveStatus");
  w.String(t.ttl_attribute ? "ENABLED" : "DISABLED");
  w.OptionalString("AttributeName", t.ttl_attribute);
  w.EndObject();
  if (t.sse_kms_key) {
    std::string key = *t.sse_kms_key;
    if (key.rfind("arn:", 0) != 0) key = util::KmsKeyArn(t.table_arn, key);
    w.Key("SSEDescription");
    w.BeginObject();
    w.Key("Status");
    w.String("ENABLED");
    w.Key("SSEType");
    w.String("KMS");
    w.Key("KMSMasterKeyArn");
    w.String(key);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::string> HandleCreateBackup(Engine& engine, const RequestContext& ctx,
                                       const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(std::string name, ReadName(request, "BackupName", "backupName", &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(BackupDescription b, engine.CreateBackup(ctx, table, name));
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupDetails");
  WriteBackupDetails(w, b.details);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleDescribeBackup(Engine& engine, const RequestContext& ctx,
                                         const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string arn,
                       ReadBackupArn(request, "BackupArn", "backupArn", /*required=*/true, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(BackupDescription b, engine.DescribeBackup(ctx, arn));
  return RenderBackupDescription(b);
}

Result<std::string> HandleDeleteBackup(Engine& engine, const RequestContext& ctx,
                                       const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string arn,
                       ReadBackupArn(request, "BackupArn", "backupArn", /*required=*/true, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(BackupDescription b, engine.DeleteBackup(ctx, arn));
  return RenderBackupDescription(b);
}

Result<std::string> HandleListBackups(Engine& engine, const RequestContext& ctx,
                                      const JsonObject& request) {
  Violations v;
  ListBackupsRequest req;
  DDB_ASSIGN_OR_RETURN(auto table, GetString(request, "TableName"));
  if (table) {
    TableNameViolations(*table, "tableName", v.list());
    req.table_name = std::string(*table);
  }
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit && v.Range(*limit, "limit", 1, 100)) req.limit = static_cast<int>(*limit);
  DDB_ASSIGN_OR_RETURN(req.time_range_lower_bound, GetTimestamp(request, "TimeRangeLowerBound"));
  DDB_ASSIGN_OR_RETURN(req.time_range_upper_bound, GetTimestamp(request, "TimeRangeUpperBound"));
  if (Present(request, "ExclusiveStartBackupArn")) {
    DDB_ASSIGN_OR_RETURN(req.exclusive_start_backup_arn,
                         ReadBackupArn(request, "ExclusiveStartBackupArn",
                                       "exclusiveStartBackupArn", /*required=*/false, &v));
  }
  // BackupType: USER when absent (as the service lists), ALL for every type.
  DDB_ASSIGN_OR_RETURN(auto type, GetString(request, "BackupType"));
  req.backup_type = BackupType::kUser;
  if (type) {
    if (*type == "ALL") {
      req.backup_type.reset();
    } else {
      req.backup_type =
          v.EnumValue<BackupType>(*type, "backupType", "USER, SYSTEM, AWS_BACKUP, ALL");
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ListBackupsResult result, engine.ListBackups(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("BackupSummaries");
  w.BeginArray();
  for (const BackupDetails& d : result.backup_summaries) {
    w.BeginObject();
    w.Key("TableName");
    w.String(d.table_name);
    w.Key("TableId");
    w.String(d.table_id);
    w.Key("TableArn");
    w.String(d.table_arn);
    w.Key("BackupArn");
    w.String(d.backup_arn);
    w.Key("BackupName");
    w.String(d.backup_name);
    w.Key("BackupCreationDateTime");
    w.Double(d.backup_creation_date_time);
    w.OptionalDouble("BackupExpiryDateTime", d.backup_expiry_date_time);
    w.Key("BackupStatus");
    w.String(EnumName(d.backup_status));
    w.Key("BackupType");
    w.String(EnumName(d.backup_type));
    w.Key("BackupSizeBytes");
    w.Int(d.backup_size_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.OptionalString("LastEvaluatedBackupArn", result.last_evaluated_backup_arn);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleRestoreTableFromBackup(Engine& engine, const RequestContext& ctx,
                                                 const JsonObject& request) {
  Violations v;
  RestoreTableFromBackupRequest req;
  DDB_ASSIGN_OR_RETURN(req.target_table_name,
                       ReadName(request, "TargetTableName", "targetTableName", &v));
  DDB_ASSIGN_OR_RETURN(req.backup_arn,
                       ReadBackupArn(request, "BackupArn", "backupArn", /*required=*/true, &v));
  DDB_ASSIGN_OR_RETURN(static_cast<RestoreOverrides&>(req), ReadRestoreOverrides(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.RestoreTableFromBackup(ctx, req));
  return RenderTableDescription("TableDescription", d);
}

Result<std::string> HandleRestoreTableToPointInTime(Engine& engine, const RequestContext& ctx,
                                                    const JsonObject& request) {
  Violations v;
  RestoreTableToPointInTimeRequest req;
  DDB_ASSIGN_OR_RETURN(auto source_name, GetString(request, "SourceTableName"));
  if (source_name) {
    TableNameViolations(*source_name, "sourceTableName", v.list());
    req.source_table_name = std::string(*source_name);
  }
  DDB_ASSIGN_OR_RETURN(auto source_arn, GetString(request, "SourceTableArn"));
  if (source_arn) req.source_table_arn = std::string(*source_arn);
  DDB_ASSIGN_OR_RETURN(req.target_table_name,
                       ReadName(request, "TargetTableName", "targetTableName", &v));
  DDB_ASSIGN_OR_RETURN(req.restore_date_time, GetTimestamp(request, "RestoreDateTime"));
  DDB_ASSIGN_OR_RETURN(auto latest, GetBool(request, "UseLatestRestorableTime"));
  req.use_latest_restorable_time = latest.value_or(false);
  DDB_ASSIGN_OR_RETURN(static_cast<RestoreOverrides&>(req), ReadRestoreOverrides(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.RestoreTableToPointInTime(ctx, req));
  return RenderTableDescription("TableDescription", d);
}

}  // namespace ddb::protocol
