// DynamoDB Streams (target prefix DynamoDBStreams_20120810.): ListStreams, DescribeStream,
// GetShardIterator, GetRecords. Length and range constraints are those of the Streams API
// reference; violations are reported together, as for DynamoDB operations.
#include <string>

#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/stream_record_json.h"

namespace ddb::protocol {
namespace {

// A string member with a length constraint; nullopt when absent.
Result<std::optional<std::string>> ReadBounded(const JsonObject& request, std::string_view member,
                                               std::string_view path, size_t min, size_t max,
                                               bool required, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto value, GetString(request, member));
  if (!value) {
    if (required) v->NotNull(path);
    return std::optional<std::string>();
  }
  v->Length(*value, path, min, max);
  return std::optional<std::string>(std::string(*value));
}

Result<int> ReadLimit(const JsonObject& request, int max, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (!limit) return max;
  if (!v->Range(*limit, "limit", 1, max)) return max;
  return static_cast<int>(*limit);
}

}  // namespace

Result<std::string> HandleListStreams(Engine& engine, const RequestContext& ctx,
                                      const JsonObject& request) {
  Violations v;
  ListStreamsRequest req;
  DDB_ASSIGN_OR_RETURN(auto table, GetString(request, "TableName"));
  if (table) {
    TableNameViolations(*table, "tableName", v.list());
    req.table_name = std::string(*table);
  }
  DDB_ASSIGN_OR_RETURN(req.exclusive_start_stream_arn,
                       ReadBounded(request, "ExclusiveStartStreamArn", "exclusiveStartStreamArn",
                                   37, 1024, false, &v));
  DDB_ASSIGN_OR_RETURN(req.limit, ReadLimit(request, 100, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ListStreamsResult result, engine.ListStreams(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.OptionalString("LastEvaluatedStreamArn", result.last_evaluated_stream_arn);
  w.Key("Streams");
  w.BeginArray();
  for (const StreamSummary& s : result.streams) {
    w.BeginObject();
    w.Key("StreamArn");
    w.String(s.stream_arn);
    w.Key("StreamLabel");
    w.String(s.stream_label);
    w.Key("TableName");
    w.String(s.table_name);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleDescribeStream(Engine& engine, const RequestContext& ctx,
                                         const JsonObject& request) {
  Violations v;
  DescribeStreamRequest req;
  DDB_ASSIGN_OR_RETURN(auto arn,
                       ReadBounded(request, "StreamArn", "streamArn", 37, 1024, true, &v));
  DDB_ASSIGN_OR_RETURN(
      req.exclusive_start_shard_id,
      ReadBounded(request, "ExclusiveStartShardId", "exclusiveStartShardId", 28, 65, false, &v));
  DDB_ASSIGN_OR_RETURN(req.limit, ReadLimit(request, 100, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  req.stream_arn = *arn;
  DDB_ASSIGN_OR_RETURN(StreamDescription d, engine.DescribeStream(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("StreamDescription");
  w.BeginObject();
  w.Key("StreamArn");
  w.String(d.stream_arn);
  w.Key("StreamLabel");
  w.String(d.stream_label);
  w.Key("StreamStatus");
  w.String(StreamStatusName(d.stream_status));
  w.Key("StreamViewType");
  w.String(EnumName(d.stream_view_type));
  w.Key("CreationRequestDateTime");
  w.Double(d.creation_request_date_time);
  w.Key("TableName");
  w.String(d.table_name);
  w.Key("KeySchema");
  WriteKeySchema(w, d.key_schema);
  w.Key("Shards");
  w.BeginArray();
  for (const StreamShard& s : d.shards) {
    w.BeginObject();
    w.Key("ShardId");
    w.String(s.shard_id);
    w.Key("SequenceNumberRange");
    w.BeginObject();
    w.Key("StartingSequenceNumber");
    w.String(s.starting_sequence_number);
    w.OptionalString("EndingSequenceNumber", s.ending_sequence_number);
    w.EndObject();
    w.OptionalString("ParentShardId", s.parent_shard_id);
    w.EndObject();
  }
  w.EndArray();
  w.OptionalString("LastEvaluatedShardId", d.last_evaluated_shard_id);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleGetShardIterator(Engine& engine, const RequestContext& ctx,
                                           const JsonObject& request) {
  Violations v;
  GetShardIteratorRequest req;
  DDB_ASSIGN_OR_RETURN(auto arn,
                       ReadBounded(request, "StreamArn", "streamArn", 37, 1024, true, &v));
  DDB_ASSIGN_OR_RETURN(auto shard, ReadBounded(request, "ShardId", "shardId", 28, 65, true, &v));
  DDB_ASSIGN_OR_RETURN(auto type, GetString(request, "ShardIteratorType"));
  if (!type) {
    v.NotNull("shardIteratorType");
  } else if (auto t = v.EnumValue<ShardIteratorType>(
                 *type, "shardIteratorType",
                 "TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER")) {
    req.shard_iterator_type = *t;
  }
  DDB_ASSIGN_OR_RETURN(req.sequence_number,
                       ReadBounded(request, "SequenceNumber", "sequenceNumber", 21, 40, false, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  req.stream_arn = *arn;
  req.shard_id = *shard;
  DDB_ASSIGN_OR_RETURN(std::string iterator, engine.GetShardIterator(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("ShardIterator");
  w.String(iterator);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleGetRecords(Engine& engine, const RequestContext& ctx,
                                     const JsonObject& request) {
  Violations v;
  GetRecordsRequest req;
  DDB_ASSIGN_OR_RETURN(auto iterator,
                       ReadBounded(request, "ShardIterator", "shardIterator", 1, 2048, true, &v));
  DDB_ASSIGN_OR_RETURN(req.limit, ReadLimit(request, 1000, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  req.shard_iterator = *iterator;
  DDB_ASSIGN_OR_RETURN(GetRecordsResult result, engine.GetRecords(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.OptionalString("NextShardIterator", result.next_shard_iterator);
  w.Key("Records");
  w.BeginArray();
  for (const StreamRecord& r : result.records) WriteStreamRecord(w, r);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
