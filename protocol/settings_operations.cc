// Time to Live, continuous backups and tags: UpdateTimeToLive, DescribeTimeToLive,
// Describe/UpdateContinuousBackups, TagResource, UntagResource,
// ListTagsOfResource.
#include <cctype>

#include "ddb/limits.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "util/arn.h"

namespace ddb::protocol {
namespace {

// "arn:aws:dynamodb:<region>:<account>:table/<name>" -> name.
Result<std::string> TableFromArn(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "ResourceArn"));
  if (!arn) {
    v->NotNull("resourceArn");
    return std::string();
  }
  if (arn->substr(0, 4) != "arn:") {
    return Error::Validation(
        "One or more parameter values were invalid: ARNs must start with "
        "'arn:': " +
        std::string(*arn));
  }
  size_t table = arn->find(":table/");
  if (!arn->starts_with(util::kDynamoDbArnPrefix) || table == std::string_view::npos) {
    return Error::Validation(
        "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource "
        "arn: " +
        std::string(*arn));
  }
  std::string_view name = arn->substr(table + 7);
  if (name.find('/') != std::string_view::npos) {
    return Error::Validation(
        "One or more parameter values were invalid: Invalid resource arn provided, only table "
        "or stream is accepted. Provided resource arn: " +
        std::string(*arn));
  }
  return std::string(name);
}

// Tag keys and values hold letters, digits, white space and _ . : / = + - @ (any non-ASCII
// character is taken as a letter).
bool ValidTagText(std::string_view text) {
  for (unsigned char c : text) {
    if (c >= 0x80 || std::isalnum(c) || std::isspace(c)) continue;
    if (std::string_view("_.:/=+-@").find(static_cast<char>(c)) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// Tag limits count characters, not bytes: 128 Hebrew letters make a valid key.
size_t CharacterCount(std::string_view utf8) {
  size_t n = 0;
  for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;  // continuation bytes don't count
  return n;
}

Result<std::vector<Tag>> ReadTags(const JsonObject& request, Violations* v) {
  std::vector<Tag> tags;
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(request, "Tags"));
  if (!arr) return tags;
  size_t i = 0;
  for (JsonElement e : *arr) {
    ++i;
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS) return WrongType("Tags", "a list of objects");
    DDB_ASSIGN_OR_RETURN(auto key, GetString(o, "Key"));
    DDB_ASSIGN_OR_RETURN(auto value, GetString(o, "Value"));
    std::string p = "tags." + std::to_string(i) + ".member.";
    if (!key) v->NotNull(p + "key");
    if (!value) v->NotNull(p + "value");
    if (key && (key->empty() || CharacterCount(*key) > 128 || !ValidTagText(*key))) {
      return Error::Validation("The Tag Key provided is invalid, Key: " + std::string(*key));
    }
    if (value && (CharacterCount(*value) > 256 || !ValidTagText(*value))) {
      return Error::Validation("The Tag Value provided is invalid, Value: " + std::string(*value));
    }
    tags.push_back({std::string(key.value_or("")), std::string(value.value_or(""))});
  }
  return tags;
}

}  // namespace

Result<std::vector<Tag>> ReadCreateTableTags(const JsonObject& request, Violations* v) {
  return ReadTags(request, v);
}

Result<std::string> HandleUpdateTimeToLive(Engine& engine, const RequestContext& ctx,
                                           const JsonObject& request) {
  return UpdateTimeToLiveWith(nullptr, engine, ctx, request);
}

Result<std::string> UpdateTimeToLiveWith(ReplicaCoordinator* replicas, Engine& engine,
                                         const RequestContext& ctx, const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto spec_json, GetObject(request, "TimeToLiveSpecification"));
  TimeToLiveSpecification spec;
  if (!spec_json) {
    v.NotNull("timeToLiveSpecification");
  } else {
    DDB_ASSIGN_OR_RETURN(auto enabled, GetBool(*spec_json, "Enabled"));
    DDB_ASSIGN_OR_RETURN(auto attr, GetString(*spec_json, "AttributeName"));
    if (!enabled) v.NotNull("timeToLiveSpecification.enabled");
    if (!attr) {
      v.NotNull("timeToLiveSpecification.attributeName");
    } else {
      v.Length(*attr, "timeToLiveSpecification.attributeName", 1, 255);
    }
    spec.enabled = enabled.value_or(false);
    spec.attribute_name = std::string(attr.value_or(""));
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(TimeToLiveSpecification applied, engine.UpdateTimeToLive(table, spec));
  if (replicas) {
    Result<TableDescription> d = engine.DescribeTable(ctx, table);
    if (d.ok() && !d.value().replicas.empty()) replicas->FollowTimeToLive(ctx, d.value(), spec);
  }
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveSpecification");
  w.BeginObject();
  w.Key("Enabled");
  w.Bool(applied.enabled);
  w.Key("AttributeName");
  w.String(applied.attribute_name);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleDescribeTimeToLive(Engine& engine, const RequestContext&,
                                             const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> attr, engine.DescribeTimeToLive(table));
  JsonWriter w;
  w.BeginObject();
  w.Key("TimeToLiveDescription");
  w.BeginObject();
  w.Key("TimeToLiveStatus");
  w.String(attr ? "ENABLED" : "DISABLED");
  w.OptionalString("AttributeName", attr);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

namespace {

std::string RenderContinuousBackups(const ContinuousBackupsDescription& c) {
  JsonWriter w;
  w.BeginObject();
  w.Key("ContinuousBackupsDescription");
  w.BeginObject();
  w.Key("ContinuousBackupsStatus");
  w.String("ENABLED");  // always, as the service says of every table
  w.Key("PointInTimeRecoveryDescription");
  w.BeginObject();
  w.Key("PointInTimeRecoveryStatus");
  w.String(c.pitr_enabled ? "ENABLED" : "DISABLED");
  if (c.pitr_enabled) {
    w.Key("RecoveryPeriodInDays");
    w.Int(c.recovery_period_days);
    w.Key("EarliestRestorableDateTime");
    w.Double(c.earliest_restorable);
    w.Key("LatestRestorableDateTime");
    w.Double(c.latest_restorable);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::string> HandleDescribeContinuousBackups(Engine& engine, const RequestContext&,
                                                    const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ContinuousBackupsDescription c, engine.DescribeContinuousBackups(table));
  return RenderContinuousBackups(c);
}

Result<std::string> HandleUpdateContinuousBackups(Engine& engine, const RequestContext&,
                                                  const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto spec, GetObject(request, "PointInTimeRecoverySpecification"));
  std::optional<bool> enabled;
  std::optional<int64_t> days;
  if (!spec) {
    v.NotNull("pointInTimeRecoverySpecification");
  } else {
    DDB_ASSIGN_OR_RETURN(enabled, GetBool(*spec, "PointInTimeRecoveryEnabled"));
    if (!enabled) v.NotNull("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled");
    DDB_ASSIGN_OR_RETURN(days, GetInt(*spec, "RecoveryPeriodInDays"));
    if (days) v.Range(*days, "pointInTimeRecoverySpecification.recoveryPeriodInDays", 1, 35);
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  if (days && !*enabled) {
    return Error::Validation(
        "RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true");
  }
  std::optional<int> period;
  if (days) period = static_cast<int>(*days);
  DDB_ASSIGN_OR_RETURN(ContinuousBackupsDescription c,
                       engine.UpdateContinuousBackups(table, *enabled, period));
  return RenderContinuousBackups(c);
}

Result<std::string> HandleTagResource(Engine& engine, const RequestContext&,
                                      const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, TableFromArn(request, &v));
  if (!Present(request, "Tags")) v.NotNull("tags");
  DDB_ASSIGN_OR_RETURN(std::vector<Tag> tags, ReadTags(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  if (tags.empty()) return Error::Validation("Atleast one Tag needs to be provided as Input.");
  DDB_RETURN_IF_ERROR(engine.TagResource(table, tags));
  return std::string();  // "an HTTP 200 response with an empty HTTP body"
}

Result<std::string> HandleUntagResource(Engine& engine, const RequestContext&,
                                        const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, TableFromArn(request, &v));
  std::vector<std::string> keys;
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(request, "TagKeys"));
  if (!arr) {
    v.NotNull("tagKeys");
  } else {
    for (JsonElement e : *arr) {
      std::string_view k;
      if (e.get(k) != simdjson::SUCCESS) return WrongType("TagKeys", "a list of strings");
      keys.emplace_back(k);
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  if (keys.empty()) return Error::Validation("Atleast one Tag Key needs to be provided as Input.");
  DDB_RETURN_IF_ERROR(engine.UntagResource(table, keys));
  return std::string();  // "an HTTP 200 response with an empty HTTP body"
}

Result<std::string> HandleListTagsOfResource(Engine& engine, const RequestContext&,
                                             const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, TableFromArn(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  Result<std::vector<Tag>> listed = engine.ListTagsOfResource(table);
  if (!listed.ok() && listed.error().code() == ErrorCode::kResourceNotFound) {
    // The service names the ARN, in its own spelling ("ResourcArn").
    DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "ResourceArn"));
    return Error::NotFound("Requested resource not found: ResourcArn: " +
                           std::string(arn.value_or("")) + " not found");
  }
  DDB_ASSIGN_OR_RETURN(std::vector<Tag> tags, std::move(listed));
  JsonWriter w;
  w.BeginObject();
  w.Key("Tags");
  w.BeginArray();
  for (const Tag& t : tags) {
    w.BeginObject();
    w.Key("Key");
    w.String(t.key);
    w.Key("Value");
    w.String(t.value);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
