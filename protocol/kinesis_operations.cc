// Kinesis Data Streams (target prefix Kinesis_20131202., JSON 1.1; docs/kinesis.md):
// CreateStream, DeleteStream, DescribeStream, DescribeStreamSummary, ListStreams,
// ListShards, GetShardIterator, GetRecords, PutRecord, PutRecords. Constraints are the
// Kinesis API reference's; violations are reported together in the service's form. The
// error envelope (no namespace in `__type`) is handler.cc's.
#include <string>

#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/stream_record_json.h"
#include "util/arn.h"
#include "util/base64.h"

namespace ddb::protocol {
namespace {

Error InvalidArgument(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

bool NameCharacters(std::string_view s) {
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool DecimalPattern(std::string_view s, size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void Pattern(std::string_view value, std::string_view path, std::string_view pattern,
             Violations* v) {
  v->Add("Value '" + std::string(value) + "' at '" + std::string(path) +
         "' failed to satisfy constraint: Member must satisfy regular expression pattern: " +
         std::string(pattern));
}

// A stream name member (1..128, [a-zA-Z0-9_.-]+).
void CheckName(std::string_view name, std::string_view path, Violations* v) {
  v->Length(name, path, 1, 128);
  if (!name.empty() && name.size() <= 128 && !NameCharacters(name)) {
    Pattern(name, path, "[a-zA-Z0-9_.-]+", v);
  }
}

// The stream a request names by StreamName, StreamARN or both ("" when neither).
Result<std::string> ReadStream(const JsonObject& request, const RequestContext& ctx,
                               Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "StreamName"));
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "StreamARN"));
  if (name) CheckName(*name, "streamName", v);
  std::string from_arn;
  if (arn) {
    v->Length(*arn, "streamARN", 1, 2048);
    std::optional<util::ArnParts> parts = util::ParseArn(*arn);
    if (!parts || parts->service != "kinesis" || !parts->resource.starts_with("stream/") ||
        parts->resource.size() == 7) {
      Pattern(*arn, "streamARN", "arn:aws.*:kinesis:.*:\\d{12}:stream/\\S+", v);
    } else if (parts->region != ctx.region || parts->account != ctx.account_id) {
      // Another account's or Region's stream is not this engine's.
      return KinesisNotFound(std::string(parts->resource.substr(7)), parts->account);
    } else {
      from_arn = std::string(parts->resource.substr(7));
    }
  }
  if (name && arn && !from_arn.empty() && from_arn != *name) {
    return InvalidArgument("StreamARN and StreamName do not name the same stream.");
  }
  if (name) return std::string(*name);
  if (!from_arn.empty()) return from_arn;
  if (!arn) return InvalidArgument("Either StreamName or StreamARN should be provided.");
  return std::string();
}

// Epoch seconds with milliseconds, plain decimal (never in E notation: the Java SDK v2
// refuses that).
void WriteSeconds(JsonWriter& w, uint64_t ms) { w.Double(static_cast<double>(ms) / 1000.0); }

void WriteMode(JsonWriter& w, KinesisStreamMode mode) {
  w.Key("StreamModeDetails");
  w.BeginObject();
  w.Key("StreamMode");
  w.String(mode == KinesisStreamMode::kOnDemand ? "ON_DEMAND" : "PROVISIONED");
  w.EndObject();
}

void WriteShard(JsonWriter& w, const KinesisShard& s) {
  w.BeginObject();
  w.Key("ShardId");
  w.String(s.shard_id);
  w.Key("HashKeyRange");
  w.BeginObject();
  w.Key("StartingHashKey");
  w.String(s.starting_hash_key);
  w.Key("EndingHashKey");
  w.String(s.ending_hash_key);
  w.EndObject();
  w.Key("SequenceNumberRange");
  w.BeginObject();
  w.Key("StartingSequenceNumber");
  w.String(s.starting_sequence_number);
  w.EndObject();
  w.EndObject();
}

// The members DescribeStream and DescribeStreamSummary share.
void WriteStreamMembers(JsonWriter& w, const KinesisStreamInfo& info) {
  w.Key("StreamName");
  w.String(info.name);
  w.Key("StreamARN");
  w.String(info.arn);
  w.Key("StreamStatus");
  w.String("ACTIVE");
  WriteMode(w, info.mode);
  w.Key("RetentionPeriodHours");
  w.Int(info.retention_hours);
  w.Key("StreamCreationTimestamp");
  WriteSeconds(w, info.created_ms);
  w.Key("EnhancedMonitoring");
  w.BeginArray();
  w.BeginObject();
  w.Key("ShardLevelMetrics");
  w.BeginArray();
  w.EndArray();
  w.EndObject();
  w.EndArray();
  w.Key("EncryptionType");
  w.String("NONE");
}

Result<int64_t> ReadRange(const JsonObject& request, std::string_view member, std::string_view path,
                          int64_t min, int64_t max, int64_t absent, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto value, GetInt(request, member));
  if (!value) return absent;
  if (!v->Range(*value, path, min, max)) return absent;
  return *value;
}

// A Data member: base64 in JSON, at most kMaxKinesisRecordBytes once decoded (the service's
// message names the Java buffer it decoded into).
Result<std::string> ReadData(const JsonObject& request, std::string_view path, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto text, GetString(request, "Data"));
  if (!text) {
    v->NotNull(path);
    return std::string();
  }
  std::string data;
  if (!util::DecodeBase64(*text, &data)) {
    return Error::Serialization("'" + std::string(text->substr(0, 64)) +
                                "' can not be converted to a Blob: Base64 encoded length is "
                                "expected a multiple of 4 bytes but found: " +
                                std::to_string(text->size()));
  }
  if (data.size() > kMaxKinesisRecordBytes) {
    const std::string n = std::to_string(data.size());
    v->Add("Value 'java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]' at '" +
           std::string(path) +
           "' failed to satisfy constraint: Member must have length less than or equal to " +
           std::to_string(kMaxKinesisRecordBytes));
  }
  return data;
}

Result<KinesisPutEntry> ReadEntry(const JsonObject& record, std::string_view at, Violations* v) {
  KinesisPutEntry e;
  DDB_ASSIGN_OR_RETURN(e.data, ReadData(record, std::string(at) + "data", v));
  DDB_ASSIGN_OR_RETURN(auto key, GetString(record, "PartitionKey"));
  if (!key) {
    v->NotNull(std::string(at) + "partitionKey");
  } else {
    v->Length(*key, std::string(at) + "partitionKey", 1, 256);
    e.partition_key = std::string(*key);
  }
  DDB_ASSIGN_OR_RETURN(auto hash, GetString(record, "ExplicitHashKey"));
  if (hash) {
    if (!DecimalPattern(*hash, 39)) {
      Pattern(*hash, std::string(at) + "explicitHashKey", "0|([1-9]\\d{0,38})", v);
    }
    e.explicit_hash_key = std::string(*hash);
  }
  return e;
}

std::string Token(std::string_view text) { return util::Base64(text); }

std::optional<std::string> Untoken(std::string_view token) {
  std::string out;
  if (!util::DecodeBase64(token, &out, util::Base64Check::kCanonical)) return std::nullopt;
  return out;
}

}  // namespace

Error KinesisNotFound(const std::string& name, std::string_view account) {
  return Error::NotFound("Stream " + name + " under account " + std::string(account) +
                         " not found.");
}

Result<std::string> HandleKinesisCreateStream(Engine& engine, const RequestContext& ctx,
                                              const JsonObject& request) {
  Violations v;
  CreateKinesisStreamRequest req;
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "StreamName"));
  if (!name) {
    v.NotNull("streamName");
  } else {
    CheckName(*name, "streamName", &v);
    req.name = std::string(*name);
  }
  DDB_ASSIGN_OR_RETURN(auto shards, GetInt(request, "ShardCount"));
  if (shards && v.Range(*shards, "shardCount", 1, 100000)) {
    req.shard_count = static_cast<int>(*shards);
  }
  DDB_ASSIGN_OR_RETURN(auto details, GetObject(request, "StreamModeDetails"));
  if (details) {
    DDB_ASSIGN_OR_RETURN(auto mode, GetString(*details, "StreamMode"));
    if (!mode) {
      v.NotNull("streamModeDetails.streamMode");
    } else if (*mode == "ON_DEMAND") {
      req.mode = KinesisStreamMode::kOnDemand;
    } else if (*mode != "PROVISIONED") {
      v.Enum(*mode, "streamModeDetails.streamMode", "PROVISIONED, ON_DEMAND");
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(engine.CreateKinesisStream(ctx, req));
  return std::string();
}

Result<std::string> HandleKinesisDeleteStream(Engine& engine, const RequestContext& ctx,
                                              const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadStream(request, ctx, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(engine.DeleteKinesisStream(ctx, name));
  return std::string();
}

Result<std::string> HandleKinesisDescribeStream(Engine& engine, const RequestContext& ctx,
                                                const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadStream(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(int64_t limit, ReadRange(request, "Limit", "limit", 1, 10000, 100, &v));
  DDB_ASSIGN_OR_RETURN(auto start, GetString(request, "ExclusiveStartShardId"));
  if (start) v.Length(*start, "exclusiveStartShardId", 1, 128);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(KinesisStreamInfo info, engine.DescribeKinesisStream(ctx, name));
  limit = std::min<int64_t>(limit, 100);
  JsonWriter w;
  w.BeginObject();
  w.Key("StreamDescription");
  w.BeginObject();
  WriteStreamMembers(w, info);
  w.Key("Shards");
  w.BeginArray();
  int64_t written = 0;
  bool more = false;
  bool started = !start;
  for (const KinesisShard& s : info.shards) {
    if (!started) {
      started = s.shard_id > *start;
      if (!started) continue;
    }
    if (written == limit) {
      more = true;
      break;
    }
    WriteShard(w, s);
    ++written;
  }
  w.EndArray();
  w.Key("HasMoreShards");
  w.Bool(more);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisDescribeStreamSummary(Engine& engine, const RequestContext& ctx,
                                                       const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadStream(request, ctx, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(KinesisStreamInfo info, engine.DescribeKinesisStream(ctx, name));
  JsonWriter w;
  w.BeginObject();
  w.Key("StreamDescriptionSummary");
  w.BeginObject();
  WriteStreamMembers(w, info);
  w.Key("OpenShardCount");
  w.Int(static_cast<int64_t>(info.shards.size()));
  w.Key("ConsumerCount");
  w.Int(0);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisListStreams(Engine& engine, const RequestContext& ctx,
                                             const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(int64_t limit, ReadRange(request, "Limit", "limit", 1, 10000, 100, &v));
  DDB_ASSIGN_OR_RETURN(auto start, GetString(request, "ExclusiveStartStreamName"));
  if (start) CheckName(*start, "exclusiveStartStreamName", &v);
  DDB_ASSIGN_OR_RETURN(auto next_token, GetString(request, "NextToken"));
  if (next_token) v.Length(*next_token, "nextToken", 1, 1048576);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  std::optional<std::string> after;
  if (start) after = std::string(*start);
  if (next_token) {
    if (start) {
      return InvalidArgument("NextToken and ExclusiveStartStreamName cannot be provided together.");
    }
    after = Untoken(*next_token);
    if (!after) return InvalidArgument("Invalid NextToken.");
  }
  limit = std::min<int64_t>(limit, 100);
  std::vector<KinesisStreamInfo> streams = engine.ListKinesisStreams(ctx);
  std::vector<const KinesisStreamInfo*> page;
  bool more = false;
  for (const KinesisStreamInfo& s : streams) {
    if (after && s.name <= *after) continue;
    if (static_cast<int64_t>(page.size()) == limit) {
      more = true;
      break;
    }
    page.push_back(&s);
  }
  JsonWriter w;
  w.BeginObject();
  w.Key("StreamNames");
  w.BeginArray();
  for (const KinesisStreamInfo* s : page) w.String(s->name);
  w.EndArray();
  w.Key("HasMoreStreams");
  w.Bool(more);
  if (more) {
    w.Key("NextToken");
    w.String(Token(page.back()->name));
  }
  w.Key("StreamSummaries");
  w.BeginArray();
  for (const KinesisStreamInfo* s : page) {
    w.BeginObject();
    w.Key("StreamName");
    w.String(s->name);
    w.Key("StreamARN");
    w.String(s->arn);
    w.Key("StreamStatus");
    w.String("ACTIVE");
    WriteMode(w, s->mode);
    w.Key("StreamCreationTimestamp");
    WriteSeconds(w, s->created_ms);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisListShards(Engine& engine, const RequestContext& ctx,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "StreamName"));
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "StreamARN"));
  DDB_ASSIGN_OR_RETURN(auto next_token, GetString(request, "NextToken"));
  DDB_ASSIGN_OR_RETURN(auto start, GetString(request, "ExclusiveStartShardId"));
  DDB_ASSIGN_OR_RETURN(int64_t max,
                       ReadRange(request, "MaxResults", "maxResults", 1, 10000, 1000, &v));
  if (next_token) v.Length(*next_token, "nextToken", 1, 1048576);
  if (start) v.Length(*start, "exclusiveStartShardId", 1, 128);
  DDB_ASSIGN_OR_RETURN(auto filter, GetObject(request, "ShardFilter"));
  std::optional<std::string> after_shard;
  if (filter) {
    DDB_ASSIGN_OR_RETURN(auto type, GetString(*filter, "Type"));
    DDB_ASSIGN_OR_RETURN(auto shard, GetString(*filter, "ShardId"));
    constexpr std::string_view kTypes =
        "AFTER_SHARD_ID, AT_TRIM_HORIZON, FROM_TRIM_HORIZON, AT_LATEST, AT_TIMESTAMP, "
        "FROM_TIMESTAMP";
    if (!type) {
      v.NotNull("shardFilter.type");
    } else if (kTypes.find(std::string(*type) + ",") == std::string_view::npos &&
               *type != "FROM_TIMESTAMP") {
      v.Enum(*type, "shardFilter.type", kTypes);
    } else if (*type == "AFTER_SHARD_ID") {
      if (!shard)
        return InvalidArgument("ShardId must be specified for AFTER_SHARD_ID ShardFilter.");
      after_shard = std::string(*shard);
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  std::string stream;
  size_t from = 0;
  if (next_token) {
    if (name || arn)
      return InvalidArgument("NextToken and StreamName cannot be provided together.");
    std::optional<std::string> token = Untoken(*next_token);
    const size_t bar = token ? token->rfind('|') : std::string::npos;
    if (bar == std::string::npos) return InvalidArgument("Invalid ShardId in NextToken.");
    stream = token->substr(0, bar);
    from = static_cast<size_t>(std::strtoull(token->c_str() + bar + 1, nullptr, 10));
  } else {
    if (!name && !arn) return InvalidArgument("Either NextToken or StreamName should be provided.");
    DDB_ASSIGN_OR_RETURN(stream, ReadStream(request, ctx, &v));
    DDB_RETURN_IF_ERROR(v.ToStatus());
  }
  DDB_ASSIGN_OR_RETURN(KinesisStreamInfo info, engine.DescribeKinesisStream(ctx, stream));
  if (start && (!after_shard || *start > *after_shard)) after_shard = std::string(*start);
  JsonWriter w;
  w.BeginObject();
  w.Key("Shards");
  w.BeginArray();
  size_t i = from;
  int64_t written = 0;
  for (; i < info.shards.size(); ++i) {
    if (after_shard && info.shards[i].shard_id <= *after_shard) continue;
    if (written == max) break;
    WriteShard(w, info.shards[i]);
    ++written;
  }
  w.EndArray();
  if (i < info.shards.size()) {
    w.Key("NextToken");
    w.String(Token(info.name + "|" + std::to_string(i)));
  }
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisGetShardIterator(Engine& engine, const RequestContext& ctx,
                                                  const JsonObject& request) {
  Violations v;
  KinesisShardIteratorRequest req;
  DDB_ASSIGN_OR_RETURN(req.stream_name, ReadStream(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(auto shard, GetString(request, "ShardId"));
  if (!shard) {
    v.NotNull("shardId");
  } else {
    v.Length(*shard, "shardId", 1, 128);
    if (!shard->empty() && shard->size() <= 128 && !NameCharacters(*shard)) {
      Pattern(*shard, "shardId", "[a-zA-Z0-9_.-]+", &v);
    }
    req.shard_id = std::string(*shard);
  }
  DDB_ASSIGN_OR_RETURN(auto type, GetString(request, "ShardIteratorType"));
  if (!type) {
    v.NotNull("shardIteratorType");
  } else if (*type == "AT_SEQUENCE_NUMBER") {
    req.type = KinesisIteratorType::kAtSequenceNumber;
  } else if (*type == "AFTER_SEQUENCE_NUMBER") {
    req.type = KinesisIteratorType::kAfterSequenceNumber;
  } else if (*type == "TRIM_HORIZON") {
    req.type = KinesisIteratorType::kTrimHorizon;
  } else if (*type == "LATEST") {
    req.type = KinesisIteratorType::kLatest;
  } else if (*type == "AT_TIMESTAMP") {
    req.type = KinesisIteratorType::kAtTimestamp;
  } else {
    v.Enum(*type, "shardIteratorType",
           "AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST, AT_TIMESTAMP");
  }
  DDB_ASSIGN_OR_RETURN(auto sequence, GetString(request, "StartingSequenceNumber"));
  if (sequence) {
    if (!DecimalPattern(*sequence, 129)) {
      Pattern(*sequence, "startingSequenceNumber", "0|([1-9]\\d{0,128})", &v);
    }
    req.starting_sequence_number = std::string(*sequence);
  }
  JsonElement timestamp;
  if (request["Timestamp"].get(timestamp) == simdjson::SUCCESS && !timestamp.is_null()) {
    double seconds = 0;
    if (timestamp.is_number()) {
      seconds = timestamp.get_double().value_unsafe();
    } else {
      return WrongType("Timestamp", "timestamp");
    }
    req.timestamp_ms = seconds <= 0 ? 0 : static_cast<uint64_t>(std::min(seconds, 1e15) * 1000);
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(std::string iterator, engine.GetKinesisShardIterator(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("ShardIterator");
  w.String(iterator);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisGetRecords(Engine& engine, const RequestContext& ctx,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(auto iterator, GetString(request, "ShardIterator"));
  if (!iterator) {
    v.NotNull("shardIterator");
  } else {
    v.Length(*iterator, "shardIterator", 1, 512);
  }
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit && *limit > kMaxKinesisGetRecordsLimit) {
    return InvalidArgument("Limit " + std::to_string(*limit) + " exceeds the maximum of " +
                           std::to_string(kMaxKinesisGetRecordsLimit) + ".");
  }
  if (limit) v.Range(*limit, "limit", 1, kMaxKinesisGetRecordsLimit);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(
      KinesisGetRecordsResult result,
      engine.GetKinesisRecords(ctx, std::string(*iterator),
                               limit ? static_cast<int>(*limit) : kMaxKinesisGetRecordsLimit));
  JsonWriter w;
  w.BeginObject();
  w.Key("Records");
  w.BeginArray();
  for (const KinesisRecord& r : result.records) {
    w.BeginObject();
    w.Key("SequenceNumber");
    w.String(r.sequence_number);
    w.Key("ApproximateArrivalTimestamp");
    WriteSeconds(w, r.arrival_ms);
    w.Key("Data");
    if (r.change) {
      JsonWriter data;
      WriteKinesisTableChange(data, *r.change, ctx.region);
      w.String(util::Base64(data.Take()));
    } else {
      w.String(util::Base64(r.data));
    }
    w.Key("PartitionKey");
    w.String(r.partition_key);
    w.EndObject();
  }
  w.EndArray();
  w.Key("NextShardIterator");
  w.String(result.next_shard_iterator);
  w.Key("MillisBehindLatest");
  w.Int(static_cast<int64_t>(result.millis_behind_latest));
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisPutRecord(Engine& engine, const RequestContext& ctx,
                                           const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadStream(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(KinesisPutEntry entry, ReadEntry(request, "", &v));
  DDB_ASSIGN_OR_RETURN(auto ordering, GetString(request, "SequenceNumberForOrdering"));
  if (ordering && !DecimalPattern(*ordering, 129)) {
    Pattern(*ordering, "sequenceNumberForOrdering", "0|([1-9]\\d{0,128})", &v);
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(std::vector<KinesisPutResult> put,
                       engine.PutKinesisRecords(ctx, name, {std::move(entry)}));
  JsonWriter w;
  w.BeginObject();
  w.Key("ShardId");
  w.String(put[0].shard_id);
  w.Key("SequenceNumber");
  w.String(put[0].sequence_number);
  w.Key("EncryptionType");
  w.String("NONE");
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleKinesisPutRecords(Engine& engine, const RequestContext& ctx,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadStream(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(auto records, GetArray(request, "Records"));
  std::vector<KinesisPutEntry> entries;
  if (!records) {
    v.NotNull("records");
  } else {
    const size_t n = records->size();
    if (n < 1 || n > kMaxKinesisPutRecordsEntries) {
      v.Add("Value '[...]' at 'records' failed to satisfy constraint: Member must have length " +
            std::string(n < 1 ? "greater than or equal to 1"
                              : "less than or equal to " +
                                    std::to_string(kMaxKinesisPutRecordsEntries)));
    } else {
      size_t i = 0;
      size_t bytes = 0;
      for (JsonElement e : *records) {
        ++i;
        JsonObject record;
        if (e.get(record) != simdjson::SUCCESS) return WrongType("Records", "structure");
        DDB_ASSIGN_OR_RETURN(KinesisPutEntry entry,
                             ReadEntry(record, "records." + std::to_string(i) + ".member.", &v));
        bytes += entry.data.size() + entry.partition_key.size();
        entries.push_back(std::move(entry));
      }
      if (bytes > kMaxKinesisPutRecordsBytes) {
        return InvalidArgument("Records size exceeds 5 MB limit");
      }
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(std::vector<KinesisPutResult> put,
                       engine.PutKinesisRecords(ctx, name, entries));
  JsonWriter w;
  w.BeginObject();
  w.Key("FailedRecordCount");
  w.Int(0);
  w.Key("Records");
  w.BeginArray();
  for (const KinesisPutResult& r : put) {
    w.BeginObject();
    w.Key("SequenceNumber");
    w.String(r.sequence_number);
    w.Key("ShardId");
    w.String(r.shard_id);
    w.EndObject();
  }
  w.EndArray();
  w.Key("EncryptionType");
  w.String("NONE");
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
