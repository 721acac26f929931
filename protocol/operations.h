// One handler per DynamoDB operation: parse the JSON request into an engine request,
// call the engine, render the engine result as JSON. No logic of their own beyond the
// wire shape. Internal to protocol/ (handler.cc dispatches to them).
// Thread safety: as the engine.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ddb/engine.h"
#include "protocol/handler.h"
#include "protocol/json_reader.h"
#include "protocol/json_writer.h"

namespace ddb::protocol {

using OperationHandler = Result<std::string> (*)(Engine& engine, const RequestContext& ctx,
                                                 const JsonObject& request);

Result<std::string> HandleCreateTable(Engine&, const RequestContext&, const JsonObject&);
// DynamoDB's Kinesis streaming destinations (kinesis_destination_operations.cc).
Result<std::string> HandleEnableKinesisStreamingDestination(Engine&, const RequestContext&,
                                                            const JsonObject&);
Result<std::string> HandleDisableKinesisStreamingDestination(Engine&, const RequestContext&,
                                                             const JsonObject&);
Result<std::string> HandleUpdateKinesisStreamingDestination(Engine&, const RequestContext&,
                                                            const JsonObject&);
Result<std::string> HandleDescribeKinesisStreamingDestination(Engine&, const RequestContext&,
                                                              const JsonObject&);
// Kinesis Data Streams, target prefix Kinesis_20131202. (kinesis_operations.cc).
Result<std::string> HandleKinesisCreateStream(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisDeleteStream(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisDescribeStream(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisDescribeStreamSummary(Engine&, const RequestContext&,
                                                       const JsonObject&);
Result<std::string> HandleKinesisListStreams(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisListShards(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisGetShardIterator(Engine&, const RequestContext&,
                                                  const JsonObject&);
Result<std::string> HandleKinesisGetRecords(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisPutRecord(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleKinesisPutRecords(Engine&, const RequestContext&, const JsonObject&);
// "Stream <name> under account <account> not found." (ResourceNotFoundException).
Error KinesisNotFound(const std::string& name, std::string_view account);
Result<std::string> HandleDescribeTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleUpdateTable(Engine&, const RequestContext&, const JsonObject&);
// UpdateTable with the server's coordinator of replicas (null: ReplicaUpdates are refused).
Result<std::string> UpdateTableWith(ReplicaCoordinator* replicas, Engine&, const RequestContext&,
                                    const JsonObject&);
// Global tables version 2017.11.29 (Legacy), as the service answers them today
// (global_table_operations.cc).
Result<std::string> HandleCreateGlobalTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeGlobalTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleUpdateGlobalTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeGlobalTableSettings(Engine&, const RequestContext&,
                                                      const JsonObject&);
Result<std::string> HandleUpdateGlobalTableSettings(Engine&, const RequestContext&,
                                                    const JsonObject&);
Result<std::string> HandleListGlobalTables(Engine&, const RequestContext&, const JsonObject&);
// Replica auto scaling (auto_scaling_operations.cc), over every replica of a global table
// with the server's coordinator (null: the table's own Region only).
Result<std::string> HandleDescribeTableReplicaAutoScaling(Engine&, const RequestContext&,
                                                          const JsonObject&);
Result<std::string> HandleUpdateTableReplicaAutoScaling(Engine&, const RequestContext&,
                                                        const JsonObject&);
Result<std::string> DescribeTableReplicaAutoScalingWith(ReplicaCoordinator* replicas, Engine&,
                                                        const RequestContext&, const JsonObject&);
Result<std::string> UpdateTableReplicaAutoScalingWith(ReplicaCoordinator* replicas, Engine&,
                                                      const RequestContext&, const JsonObject&);
Result<std::string> HandleUpdateTimeToLive(Engine&, const RequestContext&, const JsonObject&);
// UpdateTimeToLive, followed in a global table's other replicas (null: none).
Result<std::string> UpdateTimeToLiveWith(ReplicaCoordinator* replicas, Engine&,
                                         const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeTimeToLive(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleTagResource(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleUntagResource(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListTagsOfResource(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeContinuousBackups(Engine&, const RequestContext&,
                                                    const JsonObject&);
Result<std::string> HandleUpdateContinuousBackups(Engine&, const RequestContext&,
                                                  const JsonObject&);
// On-demand backups and restores (backup_operations.cc).
Result<std::string> HandleCreateBackup(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeBackup(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListBackups(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteBackup(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleRestoreTableFromBackup(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleRestoreTableToPointInTime(Engine&, const RequestContext&,
                                                    const JsonObject&);
// The restores' overrides (BillingModeOverride, GlobalSecondaryIndexOverride, ...), read as
// CreateTable reads the same members (table_operations.cc). Errors: kValidation.
Result<RestoreOverrides> ReadRestoreOverrides(const JsonObject& request, Violations* v);
// {"<member>": TableDescription} as DescribeTable writes it (table_operations.cc).
std::string RenderTableDescription(std::string_view member, const TableDescription& d);
// CreateTable's Tags (settings_operations.cc).
Result<std::vector<Tag>> ReadCreateTableTags(const JsonObject& request, Violations* v);
// Resource-based policies (policy_operations.cc).
Result<std::string> HandlePutResourcePolicy(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleGetResourcePolicy(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteResourcePolicy(Engine&, const RequestContext&, const JsonObject&);
// CreateTable's ResourcePolicy, validated for the new table and canonicalised.
// Errors: kValidation.
Result<std::optional<std::string>> ReadCreateTablePolicy(const JsonObject& request,
                                                         const RequestContext& ctx,
                                                         const std::string& table);
Result<std::string> HandleDescribeLimits(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeEndpoints(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListTables(Engine&, const RequestContext&, const JsonObject&);
// SearchVectors (vector_operations.cc).
Result<std::string> HandleSearchVectors(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandlePutItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleGetItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleUpdateItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleTransactWriteItems(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleTransactGetItems(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleQuery(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleScan(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleBatchGetItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleBatchWriteItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleExecuteStatement(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleBatchExecuteStatement(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleExecuteTransaction(Engine&, const RequestContext&, const JsonObject&);
// ImportTable, DescribeImport, ListImports, ExportTableToPointInTime, DescribeExport,
// ListExports (import_export_operations.cc).
Result<std::string> HandleImportTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeImport(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListImports(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleExportTableToPointInTime(Engine&, const RequestContext&,
                                                   const JsonObject&);
Result<std::string> HandleDescribeExport(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListExports(Engine&, const RequestContext&, const JsonObject&);
// Contributor insights (contributor_insights_operations.cc).
Result<std::string> HandleUpdateContributorInsights(Engine&, const RequestContext&,
                                                    const JsonObject&);
Result<std::string> HandleDescribeContributorInsights(Engine&, const RequestContext&,
                                                      const JsonObject&);
Result<std::string> HandleListContributorInsights(Engine&, const RequestContext&,
                                                  const JsonObject&);
// DynamoDB Streams (stream_operations.cc).
Result<std::string> HandleListStreams(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeStream(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleGetShardIterator(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleGetRecords(Engine&, const RequestContext&, const JsonObject&);

// KeySchema as the service writes it: [{"AttributeName": ..., "KeyType": "HASH"|"RANGE"}]
// (table_operations.cc).
void WriteKeySchema(JsonWriter& w, const std::vector<KeySchemaElement>& ks);
// ClientRequestToken: 1..36 characters when present (request_members.cc).
Result<std::optional<std::string>> ReadClientRequestToken(const JsonObject& request, Violations* v);

// Shared request pieces (request_members.cc).
// Whether the member is present and not null.
bool Present(const JsonObject& request, std::string_view member);
// ExpressionAttributeNames: a map of "#name" -> attribute name.
Status ReadExpressionAttributeNames(const JsonObject& request,
                                    std::optional<std::map<std::string, std::string>>* names);
// ExpressionAttributeValues: a map of ":value" -> AttributeValue (validated).
Status ReadExpressionAttributeValues(const JsonObject& request, std::optional<Item>* values);
// ReturnItemCollectionMetrics: whether SIZE was asked for (NONE or absent: no); any other
// value adds the enum violation.
Result<bool> ReadReturnItemCollectionMetrics(const JsonObject& request, Violations* v);
// AttributesToGet: unique names, at least one when present.
Status ReadAttributesToGet(const JsonObject& request, std::vector<std::string>* names,
                           Violations* v);
// An expression member (UpdateExpression, ConditionExpression, ...): a string of at most
// 4096 bytes, counted as sent (placeholders not substituted).
Result<std::optional<std::string_view>> GetExpression(const JsonObject& request,
                                                      std::string_view member);
// TableName: required, 3-255 chars of [a-zA-Z0-9_.-]; violations go to *v.
Result<std::string> ReadTableName(const JsonObject& request, Violations* v);

}  // namespace ddb::protocol
