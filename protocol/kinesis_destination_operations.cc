// DynamoDB's Kinesis streaming destinations: EnableKinesisStreamingDestination,
// DisableKinesisStreamingDestination, UpdateKinesisStreamingDestination and
// DescribeKinesisStreamingDestination (engine: engine/kinesis/kinesis_destinations.cc).
#include <string>

#include "ddb/limits.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

std::string_view StatusName(KinesisDestinationStatus s) {
  switch (s) {
    case KinesisDestinationStatus::kEnabling:
      return "ENABLING";
    case KinesisDestinationStatus::kActive:
      return "ACTIVE";
    case KinesisDestinationStatus::kDisabling:
      return "DISABLING";
    case KinesisDestinationStatus::kDisabled:
      return "DISABLED";
    case KinesisDestinationStatus::kEnableFailed:
      return "ENABLE_FAILED";
    case KinesisDestinationStatus::kUpdating:
      return "UPDATING";
  }
  return "ACTIVE";
}

std::string_view PrecisionName(KinesisTimePrecision p) {
  return p == KinesisTimePrecision::kMicrosecond ? "MICROSECOND" : "MILLISECOND";
}

struct DestinationRequest {
  std::string table;
  std::string stream_arn;
};

// TableName (a name or an ARN, 1..1024) and StreamArn (37..1024), both required.
Result<DestinationRequest> ReadTableAndStream(const JsonObject& request, bool with_stream,
                                              Violations* v) {
  DestinationRequest r;
  DDB_ASSIGN_OR_RETURN(auto table, GetString(request, "TableName"));
  if (!table) {
    v->NotNull("tableName");
  } else {
    v->Length(*table, "tableName", 1, 1024);
    r.table = std::string(*table);
  }
  if (!with_stream) return r;
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "StreamArn"));
  if (!arn) {
    v->NotNull("streamArn");
  } else {
    v->Length(*arn, "streamArn", 37, 1024);
    r.stream_arn = std::string(*arn);
  }
  return r;
}

// A configuration's ApproximateCreationDateTimePrecision; nullopt when absent.
Result<std::optional<KinesisTimePrecision>> ReadPrecision(const JsonObject& config,
                                                          std::string_view path, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto text, GetString(config, "ApproximateCreationDateTimePrecision"));
  if (!text) return std::optional<KinesisTimePrecision>();
  if (*text == "MILLISECOND") return std::optional(KinesisTimePrecision::kMillisecond);
  if (*text == "MICROSECOND") return std::optional(KinesisTimePrecision::kMicrosecond);
  v->Enum(*text, path, "MILLISECOND, MICROSECOND");
  return std::optional<KinesisTimePrecision>();
}

std::string Answer(const std::string& table, const KinesisDestination& d,
                   std::string_view config_member, bool echo_config) {
  JsonWriter w;
  w.BeginObject();
  w.Key("TableName");
  w.String(std::string(TableNameOf(table)));
  w.Key("StreamArn");
  w.String(d.stream_arn);
  w.Key("DestinationStatus");
  w.String(StatusName(d.status));
  if (echo_config) {
    w.Key(config_member);
    w.BeginObject();
    if (d.precision) {
      w.Key("ApproximateCreationDateTimePrecision");
      w.String(PrecisionName(*d.precision));
    }
    w.EndObject();
  }
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::string> HandleEnableKinesisStreamingDestination(Engine& engine,
                                                            const RequestContext& ctx,
                                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(DestinationRequest r, ReadTableAndStream(request, true, &v));
  std::optional<KinesisTimePrecision> precision;
  DDB_ASSIGN_OR_RETURN(auto config, GetObject(request, "EnableKinesisStreamingConfiguration"));
  if (config) {
    DDB_ASSIGN_OR_RETURN(
        precision,
        ReadPrecision(*config,
                      "enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision",
                      &v));
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(KinesisDestination d, engine.EnableKinesisStreamingDestination(
                                                 ctx, r.table, r.stream_arn, precision));
  // The service echoes the configuration, {} when none was given.
  return Answer(r.table, d, "EnableKinesisStreamingConfiguration", true);
}

Result<std::string> HandleDisableKinesisStreamingDestination(Engine& engine,
                                                             const RequestContext& ctx,
                                                             const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(DestinationRequest r, ReadTableAndStream(request, true, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(auto config, GetObject(request, "EnableKinesisStreamingConfiguration"));
  if (config) {
    return Error::Validation(
        "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters");
  }
  DDB_ASSIGN_OR_RETURN(KinesisDestination d,
                       engine.DisableKinesisStreamingDestination(ctx, r.table, r.stream_arn));
  return Answer(r.table, d, "", false);
}

Result<std::string> HandleUpdateKinesisStreamingDestination(Engine& engine,
                                                            const RequestContext& ctx,
                                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(DestinationRequest r, ReadTableAndStream(request, true, &v));
  std::optional<KinesisTimePrecision> precision;
  DDB_ASSIGN_OR_RETURN(auto config, GetObject(request, "UpdateKinesisStreamingConfiguration"));
  if (config) {
    DDB_ASSIGN_OR_RETURN(
        precision,
        ReadPrecision(*config,
                      "updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision",
                      &v));
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  if (!precision) {
    return Error::Validation(
        "Streaming destination cannot be updated with given parameters: "
        "UpdateKinesisStreamingConfiguration cannot be null or contain only null values");
  }
  DDB_ASSIGN_OR_RETURN(KinesisDestination d, engine.UpdateKinesisStreamingDestination(
                                                 ctx, r.table, r.stream_arn, *precision));
  return Answer(r.table, d, "UpdateKinesisStreamingConfiguration", true);
}

Result<std::string> HandleDescribeKinesisStreamingDestination(Engine& engine,
                                                              const RequestContext& ctx,
                                                              const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(DestinationRequest r, ReadTableAndStream(request, false, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(auto described, engine.DescribeKinesisStreamingDestination(ctx, r.table));
  JsonWriter w;
  w.BeginObject();
  w.Key("KinesisDataStreamDestinations");
  w.BeginArray();
  for (const KinesisDestination& d : described.second) {
    w.BeginObject();
    w.Key("StreamArn");
    w.String(d.stream_arn);
    w.Key("DestinationStatus");
    w.String(StatusName(d.status));
    w.NonEmptyString("DestinationStatusDescription", d.status_description);
    if (d.precision) {
      w.Key("ApproximateCreationDateTimePrecision");
      w.String(PrecisionName(*d.precision));
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("TableName");
  w.String(described.first);
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
