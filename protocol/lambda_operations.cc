// The Lambda API's event source mapping operations (protocol/lambda.h), answered as the
// service answers them: botocore's Lambda model for shapes and constraints, LocalStack's
// AWS-recorded snapshots of these operations (test_lambda_integration_dynamodbstreams,
// test_api) for messages, the developer guide's DynamoDB and event filtering pages for the
// rest. Requests are checked in the service's order: the body must be JSON of the
// model's types (else InvalidRequestContentException), then the model's constraints, all
// reported together (ValidationException, "1 validation error detected: ..."), then the
// service's own rules (InvalidParameterValueException); the coordinator decides the rest.
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <variant>

#include "protocol/json_reader.h"
#include "protocol/json_writer.h"
#include "protocol/lambda.h"
#include "protocol/stream_record_json.h"
#include "util/arn.h"
#include "util/iso8601.h"
#include "util/query_string.h"

namespace ddb::protocol {
namespace {

constexpr std::string_view kMappingsPath = "/2015-03-31/event-source-mappings";

// The model's Arn and DestinationArn patterns, as the service quotes them.
constexpr std::string_view kArnPattern =
    "arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-])+:([a-z]{2}(-gov)?-[a-z]+-\\d{1})?:(\\d{12})?:(.*)";
constexpr std::string_view kDestinationPattern =
    "$|kafka://([^.]([a-zA-Z0-9\\-_.]{0,248}))|arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-])+:([a-z]{2}"
    "((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1})?:(\\d{12})?:(.*)";

// The service's default quota of filters per mapping (developer guide, event filtering: 5, raisable
// to 10).
constexpr size_t kMaxFilters = 5;
// ListEventSourceMappings answers at most 100 per page, whatever MaxItems says.
constexpr size_t kMaxPage = 100;

// ---------------------------------------------------------------------------------------
// Errors

// The answer of an error: the message member is spelled as the exception's shape spells it
// ("Message" for ResourceNotFound, ResourceInUse and Service exceptions, "message" for the
// others), and Type is "User" for the client's errors, "Service" for the service's. The
// AWS-recorded ValidationException carries no Type.
LambdaResponse Fail(int status, std::string_view type, std::string_view message) {
  const bool capitalised = type == "ResourceNotFoundException" ||
                           type == "ResourceInUseException" || type == "ServiceException";
  JsonWriter w;
  w.BeginObject();
  if (type != "ValidationException") {
    w.Key("Type");
    w.String(type == "ServiceException" ? "Service" : "User");
  }
  w.Key(capitalised ? "Message" : "message");
  w.String(message);
  w.EndObject();
  return LambdaResponse{status, w.Take(), std::string(type)};
}

LambdaResponse InvalidParameter(std::string_view message) {
  return Fail(400, "InvalidParameterValueException", message);
}

// A body that is not JSON of the model's types, in the words the service's parser uses.
LambdaResponse InvalidContent(std::string_view reason) {
  return Fail(400, "InvalidRequestContentException",
              "Could not parse request body into json: " + std::string(reason));
}

// The coordinator's errors by code (protocol/lambda.h).
LambdaResponse FromError(const Error& e) {
  switch (e.code()) {
    case ErrorCode::kValidation:
      return Fail(400, "InvalidParameterValueException", e.message());
    case ErrorCode::kResourceNotFound:
      return Fail(404, "ResourceNotFoundException", e.message());
    case ErrorCode::kResourceInUse:
      return Fail(409, "ResourceConflictException", e.message());
    default:
      return Fail(500, "ServiceException", e.message());
  }
}

// The Lambda API's answer to a path it has no operation for. Its exact body is not on record
// (only the modelled exceptions' are); this is the rest-json error shape with the
// type the service's framework names unknown operations by.
LambdaResponse UnknownOperation(std::string_view method, std::string_view path) {
  return Fail(404, "UnknownOperationException",
              "Unknown operation " + std::string(method) + " " + std::string(path) +
                  ": ddb serves only event source mappings");
}

// ---------------------------------------------------------------------------------------
// Model constraints

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnumOrDash(char c) {
  return IsLower(c) || IsDigit(c) || (c >= 'A' && c <= 'Z') || c == '-';
}

// [a-z]{2}(-gov)?-[a-z]+-\d{1}, with (-iso[a-z]?) as well where `iso` says so.
bool IsRegion(std::string_view r, bool iso) {
  if (r.size() < 2 || !IsLower(r[0]) || !IsLower(r[1])) return false;
  const std::string_view rest = r.substr(2);
  auto tail = [](std::string_view t) {  // -[a-z]+-\d
    if (t.size() < 4 || t[0] != '-' || t[t.size() - 2] != '-' || !IsDigit(t.back())) return false;
    return std::all_of(t.begin() + 1, t.end() - 2, IsLower);
  };
  if (tail(rest)) return true;
  if (rest.starts_with("-gov") && tail(rest.substr(4))) return true;
  if (iso && rest.starts_with("-iso")) {
    const std::string_view after = rest.substr(4);
    return tail(after) || (!after.empty() && IsLower(after[0]) && tail(after.substr(1)));
  }
  return false;
}

// The model's ARN pattern (kArnPattern; `iso`: DestinationArn's region form), matched whole
// as the service's Java patterns are: '.' does not match line breaks.
bool MatchesArnPattern(std::string_view arn, bool iso) {
  std::optional<util::ArnParts> p = util::ParseArn(arn);
  if (!p) return false;
  auto all = [](std::string_view s, auto pred) { return std::all_of(s.begin(), s.end(), pred); };
  return p->partition.starts_with("aws") && all(p->partition.substr(3), IsAlnumOrDash) &&
         !p->service.empty() && all(p->service, IsAlnumOrDash) &&
         (p->region.empty() || IsRegion(p->region, iso)) &&
         (p->account.empty() || (p->account.size() == 12 && all(p->account, IsDigit))) &&
         p->resource.find_first_of("\r\n") == std::string_view::npos;
}

void PatternViolation(std::string_view value, std::string_view path, std::string_view pattern,
                      Violations* v) {
  v->Add("Value '" + std::string(value) + "' at '" + std::string(path) +
         "' failed to satisfy constraint: Member must satisfy regular expression pattern: " +
         std::string(pattern));
}

void CheckEventSourceArn(std::string_view arn, Violations* v) {
  if (!MatchesArnPattern(arn, false)) PatternViolation(arn, "eventSourceArn", kArnPattern, v);
}

// FunctionName is the model's NamespacedFunctionName (1..256 characters); the coordinator
// reads its forms.
void CheckFunctionName(std::string_view name, Violations* v) {
  v->Length(name, "functionName", 1, 256);
}

void CheckDestination(std::string_view arn, std::string_view path, Violations* v) {
  v->Length(arn, path, 0, 350);
  if (!arn.empty() && !arn.starts_with("kafka://") && !MatchesArnPattern(arn, true)) {
    PatternViolation(arn, path, kDestinationPattern, v);
  }
}

// ---------------------------------------------------------------------------------------
// Create and Update bodies

// What a Create or an Update body says, as read before any check.
struct MappingRequest {
  EventSourceMappingChange change;
  std::optional<std::vector<std::string>> function_response_types;
  bool starting_position_timestamp = false;
  std::optional<std::string> on_success_destination;  // "" when OnSuccess has none
};

Result<std::optional<std::string>> ReadString(const JsonObject& obj, std::string_view key) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string_view> s, GetString(obj, key));
  if (!s) return std::optional<std::string>();
  return std::optional<std::string>(std::string(*s));
}

// DestinationConfig.<which>.Destination: nullopt when <which> is absent, "" when it has none.
Result<std::optional<std::string>> ReadDestination(const JsonObject& config,
                                                   std::string_view which) {
  DDB_ASSIGN_OR_RETURN(std::optional<JsonObject> target, GetObject(config, which));
  if (!target) return std::optional<std::string>();
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> arn, ReadString(*target, "Destination"));
  return std::optional<std::string>(arn.value_or(""));
}

// The members of the body by the model's types; Update has no EventSourceArn or
// StartingPosition(Timestamp), which it ignores as it ignores any member it does not know.
Result<MappingRequest> ReadMembers(const JsonObject& body, bool create) {
  MappingRequest r;
  EventSourceMappingChange& c = r.change;
  DDB_ASSIGN_OR_RETURN(c.function_name, ReadString(body, "FunctionName"));
  if (create) {
    DDB_ASSIGN_OR_RETURN(c.event_source_arn, ReadString(body, "EventSourceArn"));
    DDB_ASSIGN_OR_RETURN(c.starting_position, ReadString(body, "StartingPosition"));
    JsonElement timestamp;
    r.starting_position_timestamp =
        body.at_key("StartingPositionTimestamp").get(timestamp) == simdjson::SUCCESS &&
        !timestamp.is_null();
  }
  DDB_ASSIGN_OR_RETURN(c.enabled, GetBool(body, "Enabled"));
  DDB_ASSIGN_OR_RETURN(c.batch_size, GetInt(body, "BatchSize"));
  DDB_ASSIGN_OR_RETURN(c.maximum_batching_window_s, GetInt(body, "MaximumBatchingWindowInSeconds"));
  DDB_ASSIGN_OR_RETURN(c.parallelization_factor, GetInt(body, "ParallelizationFactor"));
  DDB_ASSIGN_OR_RETURN(c.maximum_record_age_s, GetInt(body, "MaximumRecordAgeInSeconds"));
  DDB_ASSIGN_OR_RETURN(c.maximum_retry_attempts, GetInt(body, "MaximumRetryAttempts"));
  DDB_ASSIGN_OR_RETURN(c.bisect_batch_on_function_error,
                       GetBool(body, "BisectBatchOnFunctionError"));
  DDB_ASSIGN_OR_RETURN(c.tumbling_window_s, GetInt(body, "TumblingWindowInSeconds"));

  DDB_ASSIGN_OR_RETURN(auto types, GetArray(body, "FunctionResponseTypes"));
  if (types) {
    r.function_response_types.emplace();
    for (JsonElement e : *types) {
      std::string_view s;
      if (e.get_string().get(s) != simdjson::SUCCESS) {
        return WrongType("FunctionResponseTypes", "a list of strings");
      }
      r.function_response_types->emplace_back(s);
    }
  }

  // FilterCriteria {} (or without Filters) removes the filters (developer guide, event filtering).
  DDB_ASSIGN_OR_RETURN(auto criteria, GetObject(body, "FilterCriteria"));
  if (criteria) {
    c.filter_patterns.emplace();
    DDB_ASSIGN_OR_RETURN(auto filters, GetArray(*criteria, "Filters"));
    if (filters) {
      for (JsonElement e : *filters) {
        JsonObject filter;
        if (e.get_object().get(filter) != simdjson::SUCCESS) {
          return WrongType("Filters", "a list of objects");
        }
        DDB_ASSIGN_OR_RETURN(std::optional<std::string> pattern, ReadString(filter, "Pattern"));
        c.filter_patterns->push_back(pattern.value_or(""));
      }
    }
  }

  // A DestinationConfig without an OnFailure destination clears it ("").
  DDB_ASSIGN_OR_RETURN(auto destinations, GetObject(body, "DestinationConfig"));
  if (destinations) {
    DDB_ASSIGN_OR_RETURN(auto on_failure, ReadDestination(*destinations, "OnFailure"));
    c.on_failure_destination = on_failure.value_or("");
    DDB_ASSIGN_OR_RETURN(r.on_success_destination, ReadDestination(*destinations, "OnSuccess"));
  }
  return r;
}

// The model's constraints, reported together as the service reports them.
Status CheckModel(const MappingRequest& r, bool create) {
  const EventSourceMappingChange& c = r.change;
  Violations v;
  if (c.function_name) {
    CheckFunctionName(*c.function_name, &v);
  } else if (create) {
    v.NotNull("functionName");
  }
  if (c.event_source_arn) CheckEventSourceArn(*c.event_source_arn, &v);
  if (c.starting_position && *c.starting_position != "TRIM_HORIZON" &&
      *c.starting_position != "LATEST" && *c.starting_position != "AT_TIMESTAMP") {
    // The value set in the order the service lists it (AWS-recorded).
    v.Enum(*c.starting_position, "startingPosition", "LATEST, AT_TIMESTAMP, TRIM_HORIZON");
  }
  if (c.batch_size) v.Range(*c.batch_size, "batchSize", 1, 10000);
  if (c.maximum_batching_window_s) {
    v.Range(*c.maximum_batching_window_s, "maximumBatchingWindowInSeconds", 0, 300);
  }
  if (c.parallelization_factor) v.Range(*c.parallelization_factor, "parallelizationFactor", 1, 10);
  if (c.maximum_record_age_s) {
    v.Range(*c.maximum_record_age_s, "maximumRecordAgeInSeconds", -1, 604800);
  }
  if (c.maximum_retry_attempts) {
    v.Range(*c.maximum_retry_attempts, "maximumRetryAttempts", -1, 10000);
  }
  if (c.tumbling_window_s) v.Range(*c.tumbling_window_s, "tumblingWindowInSeconds", 0, 900);
  if (r.function_response_types) {
    const std::vector<std::string>& types = *r.function_response_types;
    std::string listed = "[";
    for (size_t i = 0; i < types.size(); ++i) listed += (i ? ", " : "") + types[i];
    listed += "]";
    const std::string subject = "Value '" + listed + "' at 'functionResponseTypes'";
    if (types.size() > 1) {
      v.Add(subject +
            " failed to satisfy constraint: Member must have length less than or "
            "equal to 1");
    }
    if (std::any_of(types.begin(), types.end(),
                    [](const std::string& t) { return t != "ReportBatchItemFailures"; })) {
      v.Add(subject +
            " failed to satisfy constraint: Member must satisfy constraint: [Member must "
            "satisfy enum value set: [ReportBatchItemFailures]]");
    }
  }
  if (c.filter_patterns) {
    for (size_t i = 0; i < c.filter_patterns->size(); ++i) {
      v.Length((*c.filter_patterns)[i],
               "filterCriteria.filters." + std::to_string(i + 1) + ".member.pattern", 0, 4096);
    }
  }
  if (c.on_failure_destination) {
    CheckDestination(*c.on_failure_destination, "destinationConfig.onFailure.destination", &v);
  }
  if (r.on_success_destination) {
    CheckDestination(*r.on_success_destination, "destinationConfig.onSuccess.destination", &v);
  }
  return v.ToStatus();
}

// The service's own rules after the model's (AWS-recorded messages, else LocalStack's); nullopt
// when there is nothing to refuse, else the InvalidParameterValueException's message.
std::optional<std::string> CheckRules(const MappingRequest& r, bool create) {
  const EventSourceMappingChange& c = r.change;
  if (create) {
    if (!c.event_source_arn) return "Unrecognized event source.";
    const std::optional<util::ArnParts> arn = util::ParseArn(*c.event_source_arn);
    const bool stream = arn && (arn->service == "dynamodb" || arn->service == "kinesis");
    if (stream && !c.starting_position) {
      // LocalStack's wording (not AWS-recorded), the model's form ending in a period.
      return "1 validation error detected: Value null at 'startingPosition' failed to satisfy "
             "constraint: Member must not be null.";
    }
    if (arn && arn->service == "dynamodb" && c.starting_position == "AT_TIMESTAMP") {
      return "Unsupported starting position for arn type: " + *c.event_source_arn;
    }
    if (r.starting_position_timestamp && c.starting_position != "AT_TIMESTAMP") {
      return "Timestamp only valid with StartingPosition AT_TIMESTAMP";
    }
  }
  // OnSuccess: "Not supported in CreateEventSourceMapping or UpdateEventSourceMapping" (model).
  if (r.on_success_destination) {
    return "Unsupported DestinationConfig parameter for given event source mapping type.";
  }
  // Within the model's range, but "values less than 60 and greater than -1 ... are not
  // allowed" (model documentation); the service's wording is not on record.
  if (c.maximum_record_age_s && *c.maximum_record_age_s >= 0 && *c.maximum_record_age_s < 60) {
    return "MaximumRecordAgeInSeconds must be -1 or between 60 and 604800: " +
           std::to_string(*c.maximum_record_age_s);
  }
  if (c.filter_patterns) {
    if (c.filter_patterns->size() > kMaxFilters) {
      return "The number of filters (" + std::to_string(c.filter_patterns->size()) +
             ") exceeds the limit of " + std::to_string(kMaxFilters) + " per event source mapping.";
    }
    if (!RecordFilter::Parse(*c.filter_patterns).ok()) return "Invalid filter pattern definition.";
  }
  return std::nullopt;
}

// The change a Create or Update body asks for, or the answer refusing it.
std::variant<EventSourceMappingChange, LambdaResponse> ReadChange(std::string& body, bool create) {
  // A body of nothing (or blanks) reads as no members.
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) body = "{}";
  Result<JsonObject> json = ParseBody(body);
  if (!json.ok()) return InvalidContent("the body is not a JSON object");
  Result<MappingRequest> read = ReadMembers(json.value(), create);
  ReleaseLargeParserMemory();  // what it read is copied out
  if (!read.ok()) return InvalidContent(read.error().message());
  MappingRequest& r = read.value();
  if (Status s = CheckModel(r, create); !s.ok()) {
    return Fail(400, "ValidationException", s.error().message());
  }
  if (std::optional<std::string> refused = CheckRules(r, create)) return InvalidParameter(*refused);
  if (r.function_response_types) {
    r.change.report_batch_item_failures = !r.function_response_types->empty();
  }
  return std::move(r.change);
}

// ---------------------------------------------------------------------------------------
// Answers

// arn:aws:lambda:<region>:<account>:event-source-mapping:<uuid>, in the function's Region and
// account (the caller's when the function ARN is not one).
std::string MappingArn(const EventSourceMapping& m, const RequestContext& ctx) {
  std::optional<util::ArnParts> fn = util::ParseArn(m.function_arn);
  const std::string_view region = fn ? fn->region : std::string_view(ctx.region);
  const std::string_view account = fn ? fn->account : std::string_view(ctx.account_id);
  return util::Arn("lambda", region, account, "event-source-mapping:" + m.uuid);
}

// EventSourceMappingConfiguration as AWS-recorded, in the order the AWS CLI shows it.
void WriteConfiguration(JsonWriter& w, const EventSourceMapping& m, const RequestContext& ctx) {
  w.BeginObject();
  w.Key("UUID");
  w.String(m.uuid);
  w.NonEmptyString("StartingPosition", m.starting_position);
  w.Key("BatchSize");
  w.Int(m.batch_size);
  w.Key("MaximumBatchingWindowInSeconds");
  w.Int(m.maximum_batching_window_s);
  w.Key("ParallelizationFactor");
  w.Int(m.parallelization_factor);
  w.Key("EventSourceArn");
  w.String(m.event_source_arn);
  if (!m.filter_patterns.empty()) {
    // Each Pattern as the string the client sent (the model's type is string).
    w.Key("FilterCriteria");
    w.BeginObject();
    w.Key("Filters");
    w.BeginArray();
    for (const std::string& pattern : m.filter_patterns) {
      w.BeginObject();
      w.Key("Pattern");
      w.String(pattern);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.Key("FunctionArn");
  w.String(m.function_arn);
  w.Key("LastModified");  // a timestamp: epoch seconds in rest-json
  w.Double(m.last_modified);
  w.Key("LastProcessingResult");
  w.String(m.last_processing_result);
  w.Key("State");
  w.String(m.state);
  w.Key("StateTransitionReason");
  w.String(m.state_transition_reason);
  w.Key("DestinationConfig");  // {"OnFailure": {}} when there is none (recorded)
  w.BeginObject();
  w.Key("OnFailure");
  w.BeginObject();
  w.OptionalString("Destination", m.on_failure_destination);
  w.EndObject();
  w.EndObject();
  w.Key("MaximumRecordAgeInSeconds");
  w.Int(m.maximum_record_age_s);
  w.Key("BisectBatchOnFunctionError");
  w.Bool(m.bisect_batch_on_function_error);
  w.Key("MaximumRetryAttempts");
  w.Int(m.maximum_retry_attempts);
  w.Key("TumblingWindowInSeconds");
  w.Int(m.tumbling_window_s);
  w.Key("FunctionResponseTypes");
  w.BeginArray();
  if (m.report_batch_item_failures) w.String("ReportBatchItemFailures");
  w.EndArray();
  w.Key("EventSourceMappingArn");
  w.String(MappingArn(m, ctx));
  w.EndObject();
}

LambdaResponse Answer(int status, const Result<EventSourceMapping>& m, const RequestContext& ctx) {
  if (!m.ok()) return FromError(m.error());
  JsonWriter w;
  WriteConfiguration(w, m.value(), ctx);
  return LambdaResponse{status, w.Take(), ""};
}

// ---------------------------------------------------------------------------------------
// ListEventSourceMappings

// The value of `key` in the query (the last one when repeated), decoded; nullopt when absent
// or empty.
std::optional<std::string> QueryValue(std::string_view query, std::string_view key) {
  std::optional<std::string> found;
  for (util::QueryParam& p : util::ParseQuery(query)) {
    if (p.name != key) continue;
    found = p.value.empty() ? std::nullopt : std::optional<std::string>(std::move(p.value));
  }
  return found;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Pages of at most min(MaxItems, 100) mappings, oldest first. The marker is the index of the
// page's first mapping in the filtered list: opaque to clients, as the service's is.
LambdaResponse List(TriggerCoordinator& triggers, const RequestContext& ctx,
                    std::string_view query) {
  const std::optional<std::string> arn = QueryValue(query, "EventSourceArn");
  const std::optional<std::string> function = QueryValue(query, "FunctionName");
  const std::optional<std::string> marker = QueryValue(query, "Marker");
  const std::optional<std::string> max_items_text = QueryValue(query, "MaxItems");
  std::optional<int64_t> max_items;
  if (max_items_text) {
    max_items = ParseInt(*max_items_text);
    if (!max_items) return InvalidParameter("Invalid MaxItems: " + *max_items_text);
  }
  Violations v;
  if (arn) CheckEventSourceArn(*arn, &v);
  if (function) CheckFunctionName(*function, &v);
  if (max_items) v.Range(*max_items, "maxItems", 1, 10000);
  if (Status s = v.ToStatus(); !s.ok()) {
    return Fail(400, "ValidationException", s.error().message());
  }
  size_t start = 0;
  if (marker) {
    std::optional<int64_t> index = ParseInt(*marker);
    if (!index || *index < 0) return InvalidParameter("Invalid Marker: " + *marker);
    start = static_cast<size_t>(*index);
  }
  const std::vector<EventSourceMapping> all = triggers.ListMappings(ctx, arn, function);
  const size_t page = std::min(kMaxPage, static_cast<size_t>(max_items.value_or(kMaxPage)));
  start = std::min(start, all.size());
  const size_t end = std::min(all.size(), start + page);
  JsonWriter w;
  w.BeginObject();
  w.Key("EventSourceMappings");
  w.BeginArray();
  for (size_t i = start; i < end; ++i) WriteConfiguration(w, all[i], ctx);
  w.EndArray();
  if (end < all.size()) {
    w.Key("NextMarker");
    w.String(std::to_string(end));
  }
  w.EndObject();
  return LambdaResponse{200, w.Take(), ""};
}

LambdaResponse Route(TriggerCoordinator* triggers, const RequestContext& ctx,
                     std::string_view method, std::string_view target, std::string& body) {
  const size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  if (!path.starts_with(kMappingsPath)) return UnknownOperation(method, path);
  std::string_view rest = path.substr(kMappingsPath.size());
  if (!rest.empty() && rest[0] != '/') return UnknownOperation(method, path);
  if (!rest.empty()) rest.remove_prefix(1);
  const bool collection = rest.empty();
  if (!collection && rest.find('/') != std::string_view::npos) {
    return UnknownOperation(method, path);
  }
  const bool known = collection ? (method == "POST" || method == "GET")
                                : (method == "GET" || method == "PUT" || method == "DELETE");
  if (!known) return UnknownOperation(method, path);
  if (!triggers) {
    return InvalidParameter(
        "This server has no event source mappings: ddb was started without them");
  }
  if (collection && method == "GET") return List(*triggers, ctx, query);
  if (collection) {
    auto change = ReadChange(body, true);
    if (auto* refused = std::get_if<LambdaResponse>(&change)) return std::move(*refused);
    return Answer(202, triggers->CreateMapping(ctx, std::get<EventSourceMappingChange>(change)),
                  ctx);
  }
  const std::string uuid = util::PercentDecode(rest);
  if (method == "GET") return Answer(200, triggers->GetMapping(ctx, uuid), ctx);
  if (method == "DELETE") return Answer(202, triggers->DeleteMapping(ctx, uuid), ctx);
  auto change = ReadChange(body, false);
  if (auto* refused = std::get_if<LambdaResponse>(&change)) return std::move(*refused);
  return Answer(202, triggers->UpdateMapping(ctx, uuid, std::get<EventSourceMappingChange>(change)),
                ctx);
}

// ---------------------------------------------------------------------------------------
// The kept file

// A member of the kept file as T (std::string_view, int64_t, bool, double, an array).
template <typename T>
Result<T> Member(const JsonObject& o, std::string_view key, std::string_view kind) {
  T v;
  if (o.at_key(key).get(v) != simdjson::SUCCESS) {
    return Error::Serialization("event source mappings: '" + std::string(key) + "' is not " +
                                std::string(kind));
  }
  return v;
}

Result<std::string> StringMember(const JsonObject& o, std::string_view key) {
  DDB_ASSIGN_OR_RETURN(std::string_view s, Member<std::string_view>(o, key, "a string"));
  return std::string(s);
}
Result<int64_t> IntMember(const JsonObject& o, std::string_view key) {
  return Member<int64_t>(o, key, "an integer");
}
Result<bool> BoolMember(const JsonObject& o, std::string_view key) {
  return Member<bool>(o, key, "a boolean");
}
Result<double> DoubleMember(const JsonObject& o, std::string_view key) {
  return Member<double>(o, key, "a number");
}
Result<simdjson::dom::array> ArrayMember(const JsonObject& o, std::string_view key) {
  return Member<simdjson::dom::array>(o, key, "a list");
}

Result<JsonObject> AsObject(JsonElement e, std::string_view what) {
  JsonObject o;
  if (e.get_object().get(o) != simdjson::SUCCESS) {
    return Error::Serialization("event source mappings: " + std::string(what) +
                                " is not an object");
  }
  return o;
}

Result<EventSourceMapping> DecodeMapping(const JsonObject& o) {
  EventSourceMapping m;
  DDB_ASSIGN_OR_RETURN(m.uuid, StringMember(o, "UUID"));
  DDB_ASSIGN_OR_RETURN(m.function_arn, StringMember(o, "FunctionArn"));
  DDB_ASSIGN_OR_RETURN(m.event_source_arn, StringMember(o, "EventSourceArn"));
  DDB_ASSIGN_OR_RETURN(m.starting_position, StringMember(o, "StartingPosition"));
  DDB_ASSIGN_OR_RETURN(m.batch_size, IntMember(o, "BatchSize"));
  DDB_ASSIGN_OR_RETURN(m.maximum_batching_window_s, IntMember(o, "MaximumBatchingWindowInSeconds"));
  DDB_ASSIGN_OR_RETURN(m.parallelization_factor, IntMember(o, "ParallelizationFactor"));
  DDB_ASSIGN_OR_RETURN(m.maximum_record_age_s, IntMember(o, "MaximumRecordAgeInSeconds"));
  DDB_ASSIGN_OR_RETURN(m.maximum_retry_attempts, IntMember(o, "MaximumRetryAttempts"));
  DDB_ASSIGN_OR_RETURN(m.bisect_batch_on_function_error,
                       BoolMember(o, "BisectBatchOnFunctionError"));
  DDB_ASSIGN_OR_RETURN(m.tumbling_window_s, IntMember(o, "TumblingWindowInSeconds"));
  DDB_ASSIGN_OR_RETURN(m.report_batch_item_failures, BoolMember(o, "ReportBatchItemFailures"));
  DDB_ASSIGN_OR_RETURN(simdjson::dom::array patterns, ArrayMember(o, "FilterPatterns"));
  for (JsonElement e : patterns) {
    std::string_view s;
    if (e.get_string().get(s) != simdjson::SUCCESS) {
      return Error::Serialization("event source mappings: a filter pattern is not a string");
    }
    m.filter_patterns.emplace_back(s);
  }
  JsonElement destination;
  if (o.at_key("OnFailureDestination").get(destination) == simdjson::SUCCESS) {
    DDB_ASSIGN_OR_RETURN(m.on_failure_destination, StringMember(o, "OnFailureDestination"));
  }
  DDB_ASSIGN_OR_RETURN(m.state, StringMember(o, "State"));
  DDB_ASSIGN_OR_RETURN(m.state_transition_reason, StringMember(o, "StateTransitionReason"));
  DDB_ASSIGN_OR_RETURN(m.last_modified, DoubleMember(o, "LastModified"));
  DDB_ASSIGN_OR_RETURN(m.last_processing_result, StringMember(o, "LastProcessingResult"));
  return m;
}

}  // namespace

LambdaResponse HandleLambdaRequest(TriggerCoordinator* triggers, const RequestContext& ctx,
                                   std::string_view method, std::string_view target,
                                   std::string& body) {
  // Nothing here throws by design; a coordinator or an allocation might.
  try {
    return Route(triggers, ctx, method, target, body);
  } catch (const std::exception& e) {
    return Fail(500, "ServiceException", e.what());
  } catch (...) {
    return Fail(500, "ServiceException", "internal error");
  }
}

std::string RenderStreamEvent(const std::vector<StreamRecord>& records,
                              const std::string& event_source_arn) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Records");
  w.BeginArray();
  for (const StreamRecord& r : records) WriteLambdaStreamRecord(w, r, event_source_arn);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

std::string RenderConsoleMappings(const std::vector<MappingFigures>& mappings) {
  JsonWriter w;
  w.BeginObject();
  w.Key("mappings");
  w.BeginArray();
  for (const MappingFigures& f : mappings) {
    const EventSourceMapping& m = f.mapping;
    w.BeginObject();
    w.Key("uuid");
    w.String(m.uuid);
    w.Key("function");
    w.String(f.function);
    w.Key("eventSourceArn");
    w.String(m.event_source_arn);
    w.Key("state");
    w.String(m.state);
    w.Key("batchSize");
    w.Int(m.batch_size);
    w.Key("parallelizationFactor");
    w.Int(m.parallelization_factor);
    w.Key("tumblingWindowInSeconds");
    w.Int(m.tumbling_window_s);
    w.Key("lastProcessingResult");
    w.String(m.last_processing_result);
    w.Key("invocations");
    w.Int(static_cast<int64_t>(f.invocations));
    w.Key("errors");
    w.Int(static_cast<int64_t>(f.errors));
    w.Key("retries");
    w.Int(static_cast<int64_t>(f.retries));
    w.Key("iteratorAgeMs");
    w.Int(f.iterator_age_ms);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

std::string RenderWindowEvent(const std::vector<StreamRecord>& records,
                              const std::string& event_source_arn, const WindowInvocation& win) {
  auto iso = [](int64_t s) {
    const std::string ms = util::FormatIso8601Millis(s * 1000);
    return ms.substr(0, ms.size() - 5) + "Z";  // whole seconds, as the service's example
  };
  JsonWriter w;
  w.BeginObject();
  w.Key("Records");
  w.BeginArray();
  for (const StreamRecord& r : records) WriteLambdaStreamRecord(w, r, event_source_arn);
  w.EndArray();
  w.Key("window");
  w.BeginObject();
  w.Key("start");
  w.String(iso(win.start_s));
  w.Key("end");
  w.String(iso(win.end_s));
  w.EndObject();
  w.Key("state");
  w.Raw(win.state);
  w.Key("shardId");
  w.String(win.shard_id);
  w.Key("eventSourceARN");
  w.String(event_source_arn);
  w.Key("isFinalInvokeForWindow");
  w.Bool(win.final);
  w.Key("isWindowTerminatedEarly");
  w.Bool(win.terminated_early);
  w.EndObject();
  return w.Take();
}

std::optional<std::string> ReadWindowState(std::string& body) {
  static thread_local simdjson::dom::parser parser;
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  JsonElement root;
  JsonObject answer;
  JsonElement state;
  if (parser.parse(body.data(), body.size(), false).get(root) != simdjson::SUCCESS ||
      root.get_object().get(answer) != simdjson::SUCCESS ||
      answer.at_key("state").get(state) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  // Re-serialised by simdjson, so that what goes into the next event is valid JSON.
  return simdjson::minify(state);
}

std::string RenderFailureRecord(const FailureRecord& r) {
  // The arrival times are whole seconds, the timestamp has milliseconds (recorded).
  auto seconds = [](double t) {
    const std::string ms = util::FormatIso8601Millis(static_cast<int64_t>(t) * 1000);
    return ms.substr(0, ms.size() - 5) + "Z";  // "...:01.000Z" -> "...:01Z"
  };
  JsonWriter w;
  w.BeginObject();
  w.Key("requestContext");
  w.BeginObject();
  w.Key("requestId");
  w.String(r.request_id);
  w.Key("functionArn");
  w.String(r.function_arn);
  w.Key("condition");
  w.String(r.condition);
  w.Key("approximateInvokeCount");
  w.Int(r.approximate_invoke_count);
  w.EndObject();
  w.Key("responseContext");
  w.BeginObject();
  w.Key("statusCode");
  w.Int(r.status);
  w.Key("executedVersion");
  w.String("$LATEST");
  w.Key("functionError");
  if (r.function_error) {
    w.String("Unhandled");
  } else {
    w.RawValue().append("null");  // a failure without a function error (recorded)
  }
  w.EndObject();
  w.Key("version");
  w.String("1.0");
  w.Key("timestamp");
  w.String(util::FormatIso8601Millis(r.timestamp_ms));
  w.Key("DDBStreamBatchInfo");
  w.BeginObject();
  w.Key("shardId");
  w.String(r.shard_id);
  w.Key("startSequenceNumber");
  w.String(r.start_sequence_number);
  w.Key("endSequenceNumber");
  w.String(r.end_sequence_number);
  w.Key("approximateArrivalOfFirstRecord");
  w.String(seconds(r.first_arrival));
  w.Key("approximateArrivalOfLastRecord");
  w.String(seconds(r.last_arrival));
  w.Key("batchSize");
  w.Int(r.batch_size);
  w.Key("streamArn");
  w.String(r.stream_arn);
  w.EndObject();
  w.EndObject();
  return w.Take();
}

std::optional<std::vector<std::string>> ReadBatchItemFailures(std::string& body) {
  static thread_local simdjson::dom::parser parser;
  std::vector<std::string> failed;
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  JsonElement root;
  JsonObject answer;
  // Not JSON, or not an object ([], null): success (the recorded [] and null; not JSON is not on
  // record).
  if (parser.parse(body.data(), body.size(), false).get(root) != simdjson::SUCCESS ||
      root.get_object().get(answer) != simdjson::SUCCESS) {
    return failed;
  }
  JsonElement list;
  if (answer.at_key("batchItemFailures").get(list) != simdjson::SUCCESS || list.is_null()) {
    return failed;
  }
  simdjson::dom::array entries;
  if (list.get_array().get(entries) != simdjson::SUCCESS) return std::nullopt;
  for (JsonElement entry : entries) {
    JsonObject item;
    std::string_view id;
    if (entry.get_object().get(item) != simdjson::SUCCESS ||
        item.at_key("itemIdentifier").get_string().get(id) != simdjson::SUCCESS || id.empty()) {
      return std::nullopt;
    }
    failed.emplace_back(id);
  }
  return failed;
}

// {"Version":1,"Mappings":[{"Owner":..,"Mapping":{..},"Positions":[{"ShardId":..,
// "SequenceNumber":..}]}]}. LastModified in "%.17g", which reads back to the same double.
std::string EncodeMappings(const std::vector<StoredMapping>& mappings) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Version");
  w.Int(1);
  w.Key("Mappings");
  w.BeginArray();
  for (const StoredMapping& s : mappings) {
    const EventSourceMapping& m = s.mapping;
    w.BeginObject();
    w.Key("Owner");
    w.String(s.owner);
    w.Key("Mapping");
    w.BeginObject();
    w.Key("UUID");
    w.String(m.uuid);
    w.Key("FunctionArn");
    w.String(m.function_arn);
    w.Key("EventSourceArn");
    w.String(m.event_source_arn);
    w.Key("StartingPosition");
    w.String(m.starting_position);
    w.Key("BatchSize");
    w.Int(m.batch_size);
    w.Key("MaximumBatchingWindowInSeconds");
    w.Int(m.maximum_batching_window_s);
    w.Key("ParallelizationFactor");
    w.Int(m.parallelization_factor);
    w.Key("MaximumRecordAgeInSeconds");
    w.Int(m.maximum_record_age_s);
    w.Key("MaximumRetryAttempts");
    w.Int(m.maximum_retry_attempts);
    w.Key("BisectBatchOnFunctionError");
    w.Bool(m.bisect_batch_on_function_error);
    w.Key("TumblingWindowInSeconds");
    w.Int(m.tumbling_window_s);
    w.Key("ReportBatchItemFailures");
    w.Bool(m.report_batch_item_failures);
    w.Key("FilterPatterns");
    w.BeginArray();
    for (const std::string& p : m.filter_patterns) w.String(p);
    w.EndArray();
    w.OptionalString("OnFailureDestination", m.on_failure_destination);
    w.Key("State");
    w.String(m.state);
    w.Key("StateTransitionReason");
    w.String(m.state_transition_reason);
    w.Key("LastModified");
    w.Number(std::isfinite(m.last_modified) ? m.last_modified : 0);
    w.Key("LastProcessingResult");
    w.String(m.last_processing_result);
    w.EndObject();
    w.Key("Positions");
    w.BeginArray();
    for (const auto& [shard, sequence] : s.positions) {
      w.BeginObject();
      w.Key("ShardId");
      w.String(shard);
      w.Key("SequenceNumber");
      w.String(sequence);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

Result<std::vector<StoredMapping>> DecodeMappings(std::string& text) {
  // Its own parser: the caller may hold a document of ParseBody's.
  static thread_local simdjson::dom::parser parser;
  text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  JsonElement root;
  if (parser.parse(text.data(), text.size(), false).get(root) != simdjson::SUCCESS) {
    return Error::Serialization("event source mappings: not JSON");
  }
  DDB_ASSIGN_OR_RETURN(JsonObject top, AsObject(root, "the document"));
  DDB_ASSIGN_OR_RETURN(int64_t version, IntMember(top, "Version"));
  if (version != 1) {
    return Error::Serialization("event source mappings: version " + std::to_string(version) +
                                " is not known");
  }
  DDB_ASSIGN_OR_RETURN(simdjson::dom::array list, ArrayMember(top, "Mappings"));
  std::vector<StoredMapping> out;
  for (JsonElement e : list) {
    DDB_ASSIGN_OR_RETURN(JsonObject entry, AsObject(e, "a mapping"));
    StoredMapping s;
    DDB_ASSIGN_OR_RETURN(s.owner, StringMember(entry, "Owner"));
    JsonElement mapping;
    if (entry.at_key("Mapping").get(mapping) != simdjson::SUCCESS) {
      return Error::Serialization("event source mappings: a mapping has no 'Mapping'");
    }
    DDB_ASSIGN_OR_RETURN(JsonObject fields, AsObject(mapping, "'Mapping'"));
    DDB_ASSIGN_OR_RETURN(s.mapping, DecodeMapping(fields));
    DDB_ASSIGN_OR_RETURN(simdjson::dom::array positions, ArrayMember(entry, "Positions"));
    for (JsonElement p : positions) {
      DDB_ASSIGN_OR_RETURN(JsonObject position, AsObject(p, "a position"));
      DDB_ASSIGN_OR_RETURN(std::string shard, StringMember(position, "ShardId"));
      DDB_ASSIGN_OR_RETURN(std::string sequence, StringMember(position, "SequenceNumber"));
      s.positions.emplace_back(std::move(shard), std::move(sequence));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ddb::protocol
