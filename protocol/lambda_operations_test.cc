#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/json_reader.h"
#include "protocol/lambda.h"
#include "protocol/stream_record_json.h"

namespace ddb::protocol {
namespace {

constexpr char kUuid[] = "a1b2c3d4-0000-4000-8000-000000000001";
constexpr char kFunctionArn[] = "arn:aws:lambda:eu-west-1:123456789012:function:orders";
constexpr char kStreamArn[] =
    "arn:aws:dynamodb:eu-west-1:123456789012:table/T/stream/2024-01-01T00:00:00.000";

EventSourceMapping Sample(std::string uuid = kUuid) {
  EventSourceMapping m;
  m.uuid = std::move(uuid);
  m.function_arn = kFunctionArn;
  m.event_source_arn = kStreamArn;
  m.starting_position = "LATEST";
  m.last_modified = 1700000000.5;
  return m;
}

// Records what it is asked and answers `next` (or `listed`).
class FakeTriggers : public TriggerCoordinator {
 public:
  Result<EventSourceMapping> CreateMapping(const RequestContext&,
                                           const EventSourceMappingChange& c) override {
    calls.push_back("Create");
    change = c;
    return next;
  }
  Result<EventSourceMapping> GetMapping(const RequestContext&, const std::string& u) override {
    calls.push_back("Get " + u);
    return next;
  }
  std::vector<EventSourceMapping> ListMappings(const RequestContext&,
                                               const std::optional<std::string>& arn,
                                               const std::optional<std::string>& fn) override {
    calls.push_back("List");
    list_arn = arn;
    list_function = fn;
    return listed;
  }
  Result<EventSourceMapping> UpdateMapping(const RequestContext&, const std::string& u,
                                           const EventSourceMappingChange& c) override {
    calls.push_back("Update " + u);
    change = c;
    return next;
  }
  Result<EventSourceMapping> DeleteMapping(const RequestContext&, const std::string& u) override {
    calls.push_back("Delete " + u);
    return next;
  }

  std::vector<std::string> calls;
  std::optional<EventSourceMappingChange> change;
  std::optional<std::string> list_arn;
  std::optional<std::string> list_function;
  Result<EventSourceMapping> next = Sample();
  std::vector<EventSourceMapping> listed;
};

class LambdaOperationsTest : public ::testing::Test {
 protected:
  LambdaResponse Call(std::string_view method, std::string_view target, std::string body = "") {
    return HandleLambdaRequest(&triggers_, ctx_, method, target, body);
  }
  // A Create of a DynamoDB stream with `members` added to the required ones (StartingPosition
  // LATEST unless `members` has one).
  LambdaResponse Create(const std::string& members) {
    std::string body = std::string(R"({"FunctionName":"orders","EventSourceArn":")") + kStreamArn +
                       "\"" +
                       (members.find("\"StartingPosition\"") == std::string::npos
                            ? R"(,"StartingPosition":"LATEST")"
                            : "") +
                       (members.empty() ? "" : "," + members) + "}";
    return Call("POST", "/2015-03-31/event-source-mappings/", body);
  }
  // The error's message, or "<status>" when it is not one.
  static std::string MessageOf(const LambdaResponse& r) {
    std::string body = r.body;
    Result<JsonObject> json = ParseBody(body);
    if (!json.ok()) return "<not json>";
    for (const char* key : {"message", "Message"}) {
      Result<std::optional<std::string_view>> m = GetString(json.value(), key);
      if (m.ok() && m.value()) return std::string(**m);
    }
    return "<" + std::to_string(r.status) + ">";
  }

  FakeTriggers triggers_;
  RequestContext ctx_;
};

std::string ExpectedConfiguration(const std::string& uuid, const std::string& state) {
  return std::string(R"({"UUID":")") + uuid +
         R"(","StartingPosition":"LATEST","BatchSize":100,"MaximumBatchingWindowInSeconds":0,)"
         R"("ParallelizationFactor":1,"EventSourceArn":")" +
         kStreamArn + R"(","FunctionArn":")" + kFunctionArn +
         R"(","LastModified":1700000000.500,"LastProcessingResult":"No records processed",)"
         R"("State":")" +
         state +
         R"(","StateTransitionReason":"User action","DestinationConfig":{"OnFailure":{}},)"
         R"("MaximumRecordAgeInSeconds":-1,"BisectBatchOnFunctionError":false,)"
         R"("MaximumRetryAttempts":-1,"TumblingWindowInSeconds":0,"FunctionResponseTypes":[],)"
         R"("EventSourceMappingArn":"arn:aws:lambda:eu-west-1:123456789012:event-source-mapping:)" +
         uuid + R"("})";
}

// --- Routes ---

TEST_F(LambdaOperationsTest, CreateAnswers202WithTheConfiguration) {
  for (const char* path :
       {"/2015-03-31/event-source-mappings/", "/2015-03-31/event-source-mappings"}) {
    LambdaResponse r = Call("POST", path,
                            std::string(R"({"FunctionName":"orders","EventSourceArn":")") +
                                kStreamArn + R"(","StartingPosition":"LATEST"})");
    EXPECT_EQ(r.status, 202) << path;
    EXPECT_EQ(r.error_type, "");
    EXPECT_EQ(r.body, ExpectedConfiguration(kUuid, "Creating"));
  }
  EXPECT_EQ(triggers_.calls, (std::vector<std::string>{"Create", "Create"}));
  EXPECT_EQ(triggers_.change->function_name, "orders");
  EXPECT_EQ(triggers_.change->event_source_arn, kStreamArn);
  EXPECT_EQ(triggers_.change->starting_position, "LATEST");
  EXPECT_FALSE(triggers_.change->batch_size.has_value());
  EXPECT_FALSE(triggers_.change->filter_patterns.has_value());
}

TEST_F(LambdaOperationsTest, GetUpdateDeleteNameTheUuidAndAnswerTheirStatuses) {
  triggers_.next = Sample("u-1");
  LambdaResponse g = Call("GET", "/2015-03-31/event-source-mappings/u-1");
  EXPECT_EQ(g.status, 200);
  EXPECT_EQ(g.body, ExpectedConfiguration("u-1", "Creating"));
  LambdaResponse u = Call("PUT", "/2015-03-31/event-source-mappings/u-1", R"({"BatchSize":7})");
  EXPECT_EQ(u.status, 202);
  EXPECT_EQ(triggers_.change->batch_size, 7);
  LambdaResponse d = Call("DELETE", "/2015-03-31/event-source-mappings/u%2D1");  // decoded
  EXPECT_EQ(d.status, 202);
  EXPECT_EQ(triggers_.calls, (std::vector<std::string>{"Get u-1", "Update u-1", "Delete u-1"}));
}

TEST_F(LambdaOperationsTest, OtherPathsAndMethodsAreUnknownOperations) {
  for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/2015-03-31/functions/f/invocations"},
           {"GET", "/2015-03-31/event-source-mappingsX"},
           {"GET", "/2015-03-31/event-source-mappings/a/b"},
           {"DELETE", "/2015-03-31/event-source-mappings/"},
           {"PUT", "/2015-03-31/event-source-mappings"},
           {"PATCH", "/2015-03-31/event-source-mappings/u"},
           {"POST", "/2015-03-31/event-source-mappings/u"},
           {"GET", "/"}}) {
    LambdaResponse r = Call(method, target);
    EXPECT_EQ(r.status, 404) << method << " " << target;
    EXPECT_EQ(r.error_type, "UnknownOperationException");
    EXPECT_NE(r.body.find(R"("Type":"User","message":"Unknown operation )"), std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("ddb serves only event source mappings"), std::string::npos);
  }
  EXPECT_TRUE(triggers_.calls.empty());
}

TEST_F(LambdaOperationsTest, WithoutACoordinatorEveryOperationIsRefused) {
  std::string body = "{}";
  LambdaResponse r =
      HandleLambdaRequest(nullptr, ctx_, "GET", "/2015-03-31/event-source-mappings/", body);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.error_type, "InvalidParameterValueException");
  EXPECT_EQ(MessageOf(r), "This server has no event source mappings: ddb was started without them");
  // Unknown paths stay unknown.
  EXPECT_EQ(HandleLambdaRequest(nullptr, ctx_, "GET", "/x", body).status, 404);
}

// --- Create and Update bodies ---

TEST_F(LambdaOperationsTest, EveryMemberReachesTheCoordinator) {
  LambdaResponse r = Create(
      R"("Enabled":false,"BatchSize":10000,"MaximumBatchingWindowInSeconds":300,)"
      R"("ParallelizationFactor":10,"MaximumRecordAgeInSeconds":604800,)"
      R"("MaximumRetryAttempts":-1,"BisectBatchOnFunctionError":true,)"
      R"("TumblingWindowInSeconds":900,"FunctionResponseTypes":["ReportBatchItemFailures"],)"
      R"("FilterCriteria":{"Filters":[{"Pattern":"{\"eventName\":[\"INSERT\"]}"}]},)"
      R"("DestinationConfig":{"OnFailure":{"Destination":"arn:aws:sqs:eu-west-1:123456789012:dlq"}},)"
      R"("Tags":{"a":"b"})");
  ASSERT_EQ(r.status, 202) << r.body;
  const EventSourceMappingChange& c = *triggers_.change;
  EXPECT_EQ(c.enabled, false);
  EXPECT_EQ(c.batch_size, 10000);
  EXPECT_EQ(c.maximum_batching_window_s, 300);
  EXPECT_EQ(c.parallelization_factor, 10);
  EXPECT_EQ(c.maximum_record_age_s, 604800);
  EXPECT_EQ(c.maximum_retry_attempts, -1);
  EXPECT_EQ(c.bisect_batch_on_function_error, true);
  EXPECT_EQ(c.tumbling_window_s, 900);
  EXPECT_EQ(c.report_batch_item_failures, true);
  EXPECT_EQ(c.filter_patterns, (std::vector<std::string>{R"({"eventName":["INSERT"]})"}));
  EXPECT_EQ(c.on_failure_destination, "arn:aws:sqs:eu-west-1:123456789012:dlq");
}

TEST_F(LambdaOperationsTest, UpdateReadsOnlyItsOwnMembersAndClears) {
  LambdaResponse r = Call("PUT", "/2015-03-31/event-source-mappings/u",
                          R"({"EventSourceArn":"x","StartingPosition":"nonsense",)"
                          R"("StartingPositionTimestamp":1,"FunctionResponseTypes":[],)"
                          R"("FilterCriteria":{},"DestinationConfig":{"OnFailure":{}},)"
                          R"("FunctionName":"other"})");
  ASSERT_EQ(r.status, 202) << r.body;
  const EventSourceMappingChange& c = *triggers_.change;
  EXPECT_FALSE(c.event_source_arn.has_value());
  EXPECT_FALSE(c.starting_position.has_value());
  EXPECT_EQ(c.function_name, "other");
  EXPECT_EQ(c.report_batch_item_failures, false);
  EXPECT_EQ(c.filter_patterns, std::vector<std::string>());
  EXPECT_EQ(c.on_failure_destination, "");
  EXPECT_FALSE(c.enabled.has_value());
  // An empty body is no change at all.
  r = Call("PUT", "/2015-03-31/event-source-mappings/u", "");
  EXPECT_EQ(r.status, 202);
  EXPECT_FALSE(triggers_.change->batch_size.has_value());
}

struct RangeCase {
  const char* member;
  const char* path;
  int64_t min;
  int64_t max;
};

TEST_F(LambdaOperationsTest, EachRangeIsTheModelsAndReportedAsValidationException) {
  for (const RangeCase& c : std::vector<RangeCase>{
           {"BatchSize", "batchSize", 1, 10000},
           {"MaximumBatchingWindowInSeconds", "maximumBatchingWindowInSeconds", 0, 300},
           {"ParallelizationFactor", "parallelizationFactor", 1, 10},
           {"MaximumRecordAgeInSeconds", "maximumRecordAgeInSeconds", -1, 604800},
           {"MaximumRetryAttempts", "maximumRetryAttempts", -1, 10000},
           {"TumblingWindowInSeconds", "tumblingWindowInSeconds", 0, 900}}) {
    for (int64_t ok : {c.min, c.max}) {
      EXPECT_EQ(Create("\"" + std::string(c.member) + "\":" + std::to_string(ok)).status, 202)
          << c.member << " " << ok;
    }
    LambdaResponse low = Create("\"" + std::string(c.member) + "\":" + std::to_string(c.min - 1));
    EXPECT_EQ(low.status, 400);
    EXPECT_EQ(low.error_type, "ValidationException");
    EXPECT_EQ(MessageOf(low), "1 validation error detected: Value '" + std::to_string(c.min - 1) +
                                  "' at '" + c.path +
                                  "' failed to satisfy constraint: Member must have value "
                                  "greater than or equal to " +
                                  std::to_string(c.min));
    LambdaResponse high = Create("\"" + std::string(c.member) + "\":" + std::to_string(c.max + 1));
    EXPECT_EQ(high.error_type, "ValidationException");
    EXPECT_EQ(MessageOf(high), "1 validation error detected: Value '" + std::to_string(c.max + 1) +
                                   "' at '" + c.path +
                                   "' failed to satisfy constraint: Member must have value less "
                                   "than or equal to " +
                                   std::to_string(c.max));
    // The same on Update.
    LambdaResponse update =
        Call("PUT", "/2015-03-31/event-source-mappings/u",
             "{\"" + std::string(c.member) + "\":" + std::to_string(c.max + 1) + "}");
    EXPECT_EQ(update.error_type, "ValidationException") << c.member;
  }
}

TEST_F(LambdaOperationsTest, ModelViolationsAreReportedTogetherWithoutAType) {
  LambdaResponse r = Call("POST", "/2015-03-31/event-source-mappings/",
                          R"({"StartingPosition":"OLDEST","BatchSize":0,)"
                          R"("FunctionResponseTypes":["Everything","ReportBatchItemFailures"]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_EQ(r.body.find("\"Type\""), std::string::npos) << r.body;
  EXPECT_EQ(MessageOf(r),
            "5 validation errors detected: "
            "Value null at 'functionName' failed to satisfy constraint: Member must not be null; "
            "Value 'OLDEST' at 'startingPosition' failed to satisfy constraint: Member must "
            "satisfy enum value set: [LATEST, AT_TIMESTAMP, TRIM_HORIZON]; "
            "Value '0' at 'batchSize' failed to satisfy constraint: Member must have value "
            "greater than or equal to 1; "
            "Value '[Everything, ReportBatchItemFailures]' at 'functionResponseTypes' failed to "
            "satisfy constraint: Member must have length less than or equal to 1; "
            "Value '[Everything, ReportBatchItemFailures]' at 'functionResponseTypes' failed to "
            "satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value "
            "set: [ReportBatchItemFailures]]");
  EXPECT_TRUE(triggers_.calls.empty());
}

TEST_F(LambdaOperationsTest, ArnsAndNamesFollowTheModelsPatternsAndLengths) {
  LambdaResponse r = Call("POST", "/2015-03-31/event-source-mappings/",
                          R"({"FunctionName":"f","EventSourceArn":"not-an-arn"})");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_EQ(MessageOf(r),
            "1 validation error detected: Value 'not-an-arn' at 'eventSourceArn' failed to "
            "satisfy constraint: Member must satisfy regular expression pattern: "
            "arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-])+:([a-z]{2}(-gov)?-[a-z]+-\\d{1})?:(\\d{12})"
            "?:(.*)");
  for (const char* bad : {"arn:aws:dynamodb:eu-west:123456789012:table/T",  // no digit
                          "arn:aws:dynamodb:eu-west-1:1234:table/T",        // short account
                          "arn:amazon:dynamodb:eu-west-1:123456789012:table/T", "arn:aws::::x"}) {
    EXPECT_EQ(Call("POST", "/2015-03-31/event-source-mappings/",
                   std::string(R"({"FunctionName":"f","EventSourceArn":")") + bad + "\"}")
                  .error_type,
              "ValidationException")
        << bad;
  }
  // Regions with -gov, and empty Region and account, fit the pattern.
  for (const char* good : {"arn:aws-us-gov:dynamodb:us-gov-west-1:123456789012:table/T/stream/L",
                           "arn:aws:dynamodb:::table/T/stream/L"}) {
    EXPECT_EQ(Call("POST", "/2015-03-31/event-source-mappings/",
                   std::string(R"({"FunctionName":"f","StartingPosition":"LATEST",)"
                               R"("EventSourceArn":")") +
                       good + "\"}")
                  .status,
              202)
        << good;
  }
  r = Call("PUT", "/2015-03-31/event-source-mappings/u",
           R"({"FunctionName":")" + std::string(257, 'f') + "\"}");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_NE(MessageOf(r).find("at 'functionName' failed to satisfy constraint: Member must have "
                              "length less than or equal to 256"),
            std::string::npos);
  r = Call("PUT", "/2015-03-31/event-source-mappings/u", R"({"FunctionName":""})");
  EXPECT_NE(MessageOf(r).find("Member must have length greater than or equal to 1"),
            std::string::npos);
}

TEST_F(LambdaOperationsTest, DestinationsAreArnsOfAtMost350Characters) {
  const std::string long_arn = "arn:aws:sqs:eu-west-1:123456789012:" + std::string(320, 'q');
  LambdaResponse r =
      Create(R"("DestinationConfig":{"OnFailure":{"Destination":")" + long_arn + "\"}}");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_NE(MessageOf(r).find("at 'destinationConfig.onFailure.destination' failed to satisfy "
                              "constraint: Member must have length less than or equal to 350"),
            std::string::npos);
  r = Create(R"("DestinationConfig":{"OnFailure":{"Destination":"sqs-queue"}})");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_NE(MessageOf(r).find("Member must satisfy regular expression pattern: $|kafka://"),
            std::string::npos);
  EXPECT_EQ(Create(R"("DestinationConfig":{"OnFailure":{"Destination":""}})").status, 202);
  EXPECT_EQ(triggers_.change->on_failure_destination, "");
}

struct RuleCase {
  std::string members;  // added to a valid Create's
  std::string message;
};

TEST_F(LambdaOperationsTest, TheServicesRulesAreInvalidParameterValueException) {
  for (
      const RuleCase& c : std::vector<RuleCase>{
          {R"("StartingPosition":"AT_TIMESTAMP","StartingPositionTimestamp":1700000000)",
           std::string("Unsupported starting position for arn type: ") + kStreamArn},
          {R"("StartingPositionTimestamp":1700000000)",
           "Timestamp only valid with StartingPosition AT_TIMESTAMP"},
          {R"("DestinationConfig":{"OnSuccess":{"Destination":"arn:aws:sqs:eu-west-1:123456789012:q"}})",
           "Unsupported DestinationConfig parameter for given event source mapping type."},
          {R"("MaximumRecordAgeInSeconds":0)",
           "MaximumRecordAgeInSeconds must be -1 or between 60 and 604800: 0"},
          {R"("MaximumRecordAgeInSeconds":59)",
           "MaximumRecordAgeInSeconds must be -1 or between 60 and 604800: 59"},
          {R"("FilterCriteria":{"Filters":[{"Pattern":"single-string"}]})",
           "Invalid filter pattern definition."},
          {R"("FilterCriteria":{"Filters":[{"Pattern":"[{\"eventName\": [\"INSERT\"=123}]"}]})",
           "Invalid filter pattern definition."},
          {R"("FilterCriteria":{"Filters":[{"Pattern":"[1]"}]})",
           "Invalid filter pattern definition."},
          {R"("FilterCriteria":{"Filters":[{}]})", "Invalid filter pattern definition."},
          {R"("FilterCriteria":{"Filters":[{"Pattern":"{}"},{"Pattern":"{}"},{"Pattern":"{}"},)"
           R"({"Pattern":"{}"},{"Pattern":"{}"},{"Pattern":"{}"}]})",
           "The number of filters (6) exceeds the limit of 5 per event source mapping."}}) {
    LambdaResponse r = Create(c.members);
    EXPECT_EQ(r.status, 400) << c.members;
    EXPECT_EQ(r.error_type, "InvalidParameterValueException") << c.members;
    EXPECT_EQ(MessageOf(r), c.message) << c.members;
    EXPECT_NE(r.body.find(R"("Type":"User","message":)"), std::string::npos) << r.body;
  }
  EXPECT_TRUE(triggers_.calls.empty());
  // Five valid patterns, and the record ages the service allows, pass.
  EXPECT_EQ(Create(R"("FilterCriteria":{"Filters":[{"Pattern":"{}"},{"Pattern":"{}"},)"
                   R"({"Pattern":"{}"},{"Pattern":"{}"},{"Pattern":" {\"a\":[1]} "}]})")
                .status,
            202);
  EXPECT_EQ(Create(R"("MaximumRecordAgeInSeconds":60)").status, 202);
  EXPECT_EQ(Create(R"("MaximumRecordAgeInSeconds":-1)").status, 202);
  // Patterns longer than the model's 4096 characters.
  LambdaResponse r = Create(R"("FilterCriteria":{"Filters":[{"Pattern":"{}"},{"Pattern":")" +
                            std::string(4097, ' ') + "\"}]}");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_NE(MessageOf(r).find("at 'filterCriteria.filters.2.member.pattern' failed to satisfy "
                              "constraint: Member must have length less than or equal to 4096"),
            std::string::npos);
}

TEST_F(LambdaOperationsTest, CreateNeedsAStreamAndAStartingPosition) {
  LambdaResponse r =
      Call("POST", "/2015-03-31/event-source-mappings/", R"({"FunctionName":"orders"})");
  EXPECT_EQ(r.error_type, "InvalidParameterValueException");
  EXPECT_EQ(MessageOf(r), "Unrecognized event source.");
  r = Call("POST", "/2015-03-31/event-source-mappings/",
           std::string(R"({"FunctionName":"orders","EventSourceArn":")") + kStreamArn + "\"}");
  EXPECT_EQ(r.error_type, "InvalidParameterValueException");
  EXPECT_EQ(MessageOf(r),
            "1 validation error detected: Value null at 'startingPosition' failed to satisfy "
            "constraint: Member must not be null.");
  // Other sources are the coordinator's to judge.
  r = Call("POST", "/2015-03-31/event-source-mappings/",
           R"({"FunctionName":"orders","EventSourceArn":"arn:aws:sqs:eu-west-1:123456789012:q"})");
  EXPECT_EQ(r.status, 202);
}

TEST_F(LambdaOperationsTest, BodiesThatAreNotJsonOfTheModelsTypes) {
  for (const char* body :
       {"not json", "[1]", R"({"FunctionName":"f",)", R"({"FunctionName":7})",
        R"({"BatchSize":"10"})", R"({"Enabled":"yes"})", R"({"FunctionResponseTypes":[1]})",
        R"({"FilterCriteria":{"Filters":["{}"]}})",
        R"({"FilterCriteria":{"Filters":[{"Pattern":{}}]}})",
        R"({"DestinationConfig":{"OnFailure":"arn"}})"}) {
    LambdaResponse r = Call("POST", "/2015-03-31/event-source-mappings/", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.error_type, "InvalidRequestContentException") << body;
    EXPECT_EQ(MessageOf(r).rfind("Could not parse request body into json: ", 0), 0u) << r.body;
  }
  EXPECT_TRUE(triggers_.calls.empty());
}

// --- The coordinator's errors ---

TEST_F(LambdaOperationsTest, CoordinatorErrorsMapByCode) {
  struct {
    Error error;
    int status;
    const char* type;
    const char* body;
  } cases[] = {
      {Error::Validation("Stream not found: x"), 400, "InvalidParameterValueException",
       R"({"Type":"User","message":"Stream not found: x"})"},
      {Error::NotFound("The resource you requested does not exist."), 404,
       "ResourceNotFoundException",
       R"({"Type":"User","Message":"The resource you requested does not exist."})"},
      {Error::InUse("exists"), 409, "ResourceConflictException",
       R"({"Type":"User","message":"exists"})"},
      {Error::Internal("broken"), 500, "ServiceException",
       R"({"Type":"Service","Message":"broken"})"},
      {Error(ErrorCode::kLimitExceeded, "other"), 500, "ServiceException",
       R"({"Type":"Service","Message":"other"})"},
  };
  for (const auto& c : cases) {
    triggers_.next = c.error;
    for (auto [method, body] : std::vector<std::pair<const char*, std::string>>{
             {"GET", ""}, {"PUT", "{}"}, {"DELETE", ""}}) {
      LambdaResponse r = Call(method, "/2015-03-31/event-source-mappings/u", body);
      EXPECT_EQ(r.status, c.status) << method;
      EXPECT_EQ(r.error_type, c.type);
      EXPECT_EQ(r.body, c.body);
    }
    LambdaResponse r = Create("");
    EXPECT_EQ(r.status, c.status);
    EXPECT_EQ(r.body, c.body);
  }
}

// --- ListEventSourceMappings ---

TEST_F(LambdaOperationsTest, ListPagesByMaxItemsAndMarker) {
  for (int i = 0; i < 250; ++i) triggers_.listed.push_back(Sample("m" + std::to_string(i)));
  auto uuids = [](const LambdaResponse& r, std::optional<std::string>* next) {
    std::string body = r.body;
    std::vector<std::string> out;
    Result<JsonObject> json = ParseBody(body);
    EXPECT_TRUE(json.ok());
    if (!json.ok()) return out;
    Result<std::optional<simdjson::dom::array>> list =
        GetArray(json.value(), "EventSourceMappings");
    EXPECT_TRUE(list.ok() && list.value());
    if (!list.ok() || !list.value()) return out;
    for (JsonElement e : **list) {
      std::string_view uuid;
      EXPECT_EQ(e["UUID"].get(uuid), simdjson::SUCCESS);
      out.emplace_back(uuid);
    }
    Result<std::optional<std::string_view>> marker = GetString(json.value(), "NextMarker");
    *next = marker.ok() && marker.value() ? std::optional<std::string>(**marker) : std::nullopt;
    return out;
  };
  // At most 100 a page, whatever MaxItems says.
  std::optional<std::string> next;
  std::vector<std::string> seen;
  std::string target = "/2015-03-31/event-source-mappings/?MaxItems=10000";
  int pages = 0;
  do {
    LambdaResponse r = Call("GET", target);
    ASSERT_EQ(r.status, 200) << r.body;
    std::vector<std::string> page = uuids(r, &next);
    EXPECT_LE(page.size(), 100u);
    seen.insert(seen.end(), page.begin(), page.end());
    if (next) target = "/2015-03-31/event-source-mappings/?MaxItems=10000&Marker=" + *next;
  } while (next && ++pages < 10);
  ASSERT_EQ(seen.size(), 250u);
  for (int i = 0; i < 250; ++i) EXPECT_EQ(seen[i], "m" + std::to_string(i));
  EXPECT_EQ(pages, 2);

  // MaxItems smaller than a page.
  LambdaResponse r = Call("GET", "/2015-03-31/event-source-mappings?MaxItems=7");
  EXPECT_EQ(uuids(r, &next), (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4", "m5", "m6"}));
  ASSERT_TRUE(next.has_value());
  r = Call("GET", "/2015-03-31/event-source-mappings/?Marker=" + *next + "&MaxItems=2");
  EXPECT_EQ(uuids(r, &next), (std::vector<std::string>{"m7", "m8"}));
  // The last page has no NextMarker; the whole body for none.
  triggers_.listed.resize(3);
  r = Call("GET", "/2015-03-31/event-source-mappings/?MaxItems=3");
  EXPECT_EQ(uuids(r, &next).size(), 3u);
  EXPECT_FALSE(next.has_value());
  EXPECT_EQ(r.body.find("NextMarker"), std::string::npos);
  triggers_.listed.clear();
  EXPECT_EQ(Call("GET", "/2015-03-31/event-source-mappings/").body,
            R"({"EventSourceMappings":[]})");
  // A marker past the end (mappings deleted since) is an empty page.
  EXPECT_EQ(Call("GET", "/2015-03-31/event-source-mappings/?Marker=500").body,
            R"({"EventSourceMappings":[]})");
}

TEST_F(LambdaOperationsTest, ListFiltersAreDecodedAndChecked) {
  triggers_.listed.push_back(Sample());
  LambdaResponse r =
      Call("GET",
           "/2015-03-31/event-source-mappings/?EventSourceArn=arn%3Aaws%3Adynamodb"
           "%3Aeu-west-1%3A123456789012%3Atable%2FT%2Fstream%2FL&FunctionName=orders");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body,
            R"({"EventSourceMappings":[)" + ExpectedConfiguration(kUuid, "Creating") + "]}");
  EXPECT_EQ(triggers_.list_arn, "arn:aws:dynamodb:eu-west-1:123456789012:table/T/stream/L");
  EXPECT_EQ(triggers_.list_function, "orders");
  r = Call("GET", "/2015-03-31/event-source-mappings/");
  EXPECT_FALSE(triggers_.list_arn.has_value());
  EXPECT_FALSE(triggers_.list_function.has_value());

  r = Call("GET", "/2015-03-31/event-source-mappings/?MaxItems=0");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_EQ(MessageOf(r),
            "1 validation error detected: Value '0' at 'maxItems' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1");
  r = Call("GET", "/2015-03-31/event-source-mappings/?MaxItems=10001");
  EXPECT_NE(MessageOf(r).find("less than or equal to 10000"), std::string::npos);
  r = Call("GET", "/2015-03-31/event-source-mappings/?MaxItems=ten");
  EXPECT_EQ(r.error_type, "InvalidParameterValueException");
  r = Call("GET", "/2015-03-31/event-source-mappings/?Marker=zz");
  EXPECT_EQ(r.error_type, "InvalidParameterValueException");
  EXPECT_EQ(MessageOf(r), "Invalid Marker: zz");
  r = Call("GET", "/2015-03-31/event-source-mappings/?EventSourceArn=queue");
  EXPECT_EQ(r.error_type, "ValidationException");
  EXPECT_EQ(triggers_.calls.size(), 2u);  // the refused ones never reach the coordinator
}

// --- The event, and a function's answer ---

StreamRecord Record(std::string seq, bool by_ttl) {
  StreamRecord r;
  r.event_id = "ab0ed3713569f4655f353e5ef61a88c4";
  r.event_name = by_ttl ? "REMOVE" : "INSERT";
  r.aws_region = "eu-west-1";
  r.approximate_creation_date_time = 1728728223;
  r.keys = {{"pk", AttributeValue::S("k")}};
  if (by_ttl) {
    r.old_image = Item{{"pk", AttributeValue::S("k")}};
  } else {
    r.new_image = Item{{"pk", AttributeValue::S("k")}, {"n", AttributeValue::N("1")}};
  }
  r.sequence_number = std::move(seq);
  r.size_bytes = 12;
  r.stream_view_type = StreamViewType::kNewAndOldImages;
  r.by_time_to_live = by_ttl;
  return r;
}

TEST(LambdaStreamEvent, RecordsAreGetRecordsOnesWithTheirStream) {
  const std::string event =
      RenderStreamEvent({Record("100", false), Record("200", true)}, kStreamArn);
  const std::string arn = kStreamArn;
  EXPECT_EQ(event,
            R"({"Records":[)"
            R"({"eventID":"ab0ed3713569f4655f353e5ef61a88c4","eventName":"INSERT",)"
            R"("eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1",)"
            R"("dynamodb":{"ApproximateCreationDateTime":1728728223.0,"Keys":{"pk":{"S":"k"}},)"
            R"("NewImage":{"n":{"N":"1"},"pk":{"S":"k"}},"SequenceNumber":"100","SizeBytes":12,)"
            R"("StreamViewType":"NEW_AND_OLD_IMAGES"},"eventSourceARN":")" +
                arn +
                R"("},)"
                R"({"eventID":"ab0ed3713569f4655f353e5ef61a88c4","eventName":"REMOVE",)"
                R"("eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"eu-west-1",)"
                R"("dynamodb":{"ApproximateCreationDateTime":1728728223.0,"Keys":{"pk":{"S":"k"}},)"
                R"("OldImage":{"pk":{"S":"k"}},"SequenceNumber":"200","SizeBytes":12,)"
                R"("StreamViewType":"NEW_AND_OLD_IMAGES"},)"
                R"("userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},)"
                R"("eventSourceARN":")" +
                arn + R"("}]})");
  EXPECT_EQ(RenderStreamEvent({}, kStreamArn), R"({"Records":[]})");
}

TEST(StreamRecordJson, GetRecordsSpellsTheTtlIdentityAsTheStreamsApi) {
  JsonWriter w;
  WriteStreamRecord(w, Record("200", true));
  const std::string& out = w.str();
  EXPECT_NE(
      out.find(R"("userIdentity":{"Type":"Service","PrincipalId":"dynamodb.amazonaws.com"}})"),
      std::string::npos)
      << out;
  EXPECT_EQ(out.find("eventSourceARN"), std::string::npos);
  JsonWriter plain;
  WriteStreamRecord(plain, Record("100", false));
  EXPECT_EQ(plain.str().find("userIdentity"), std::string::npos);
}

TEST(LambdaBatchItemFailures, SuccessAnswers) {
  // AWS-validated successes (LocalStack's report_batch_item tests), and answers that are not JSON.
  for (std::string body :
       {"", "null", "[]", "{}", R"({"batchItemFailures":[]})", R"({"batchItemFailures":null})",
        "not json", "42", R"("text")", R"({"state":{}})"}) {
    std::optional<std::vector<std::string>> r = ReadBatchItemFailures(body);
    ASSERT_TRUE(r.has_value()) << body;
    EXPECT_TRUE(r->empty()) << body;
  }
}

TEST(LambdaBatchItemFailures, TheFailedIdentifiersInOrder) {
  std::string body =
      R"({"batchItemFailures":[{"itemIdentifier":"300"},{"itemIdentifier":"200","x":1}]})";
  EXPECT_EQ(ReadBatchItemFailures(body), (std::vector<std::string>{"300", "200"}));
}

TEST(LambdaBatchItemFailures, MalformedListsFailTheWholeBatch) {
  // AWS-validated failures (LocalStack's report_batch_item tests), and lists of the wrong shape.
  for (std::string body :
       {R"({"batchItemFailures":[{"itemIdentifier":123}]})",
        R"({"batchItemFailures":[{"itemIdentifier":""}]})",
        R"({"batchItemFailures":[{"itemIdentifier":null}]})",
        R"({"batchItemFailures":[{"foo":123}]})", R"({"batchItemFailures":[{"foo":null}]})",
        R"({"batchItemFailures":[{"itemIdentifier":"1"},{"foo":1}]})",
        R"({"batchItemFailures":["1"]})", R"({"batchItemFailures":"1"})",
        R"({"batchItemFailures":{}})"}) {
    EXPECT_FALSE(ReadBatchItemFailures(body).has_value()) << body;
  }
}

// --- The kept file ---

TEST(LambdaMappingsFile, RoundTripsEveryField) {
  StoredMapping full;
  EventSourceMapping& m = full.mapping;
  m.uuid = kUuid;
  m.function_arn = kFunctionArn;
  m.event_source_arn = kStreamArn;
  m.starting_position = "TRIM_HORIZON";
  m.batch_size = 7;
  m.maximum_batching_window_s = 3;
  m.parallelization_factor = 2;
  m.maximum_record_age_s = 600;
  m.maximum_retry_attempts = 4;
  m.bisect_batch_on_function_error = true;
  m.tumbling_window_s = 30;
  m.report_batch_item_failures = true;
  m.filter_patterns = {R"({"eventName":["INSERT"]})", "{\"a\":\"\\u00e9\\n\"}"};
  m.on_failure_destination = "arn:aws:sqs:eu-west-1:123456789012:dlq";
  m.state = "Disabled";
  m.state_transition_reason = "User action";
  m.last_modified = 1700000000.123456789;
  m.last_processing_result = "PROBLEM: Function call failed (\"quoted\")";
  full.owner = "AKIDEXAMPLE";
  full.positions = {{"shardId-1", "100"}, {"shardId-2", "2000000000000000000001"}};
  StoredMapping plain;  // defaults, no destination, no positions
  plain.mapping.uuid = "u2";
  StoredMapping cleared = full;  // a destination of "" is kept as such
  cleared.mapping.uuid = "u3";
  cleared.mapping.on_failure_destination = "";

  std::string text = EncodeMappings({full, plain, cleared});
  Result<std::vector<StoredMapping>> back = DecodeMappings(text);
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->size(), 3u);
  auto same = [](const StoredMapping& a, const StoredMapping& b) {
    const EventSourceMapping& x = a.mapping;
    const EventSourceMapping& y = b.mapping;
    EXPECT_EQ(a.owner, b.owner);
    EXPECT_EQ(a.positions, b.positions);
    EXPECT_EQ(x.uuid, y.uuid);
    EXPECT_EQ(x.function_arn, y.function_arn);
    EXPECT_EQ(x.event_source_arn, y.event_source_arn);
    EXPECT_EQ(x.starting_position, y.starting_position);
    EXPECT_EQ(x.batch_size, y.batch_size);
    EXPECT_EQ(x.maximum_batching_window_s, y.maximum_batching_window_s);
    EXPECT_EQ(x.parallelization_factor, y.parallelization_factor);
    EXPECT_EQ(x.maximum_record_age_s, y.maximum_record_age_s);
    EXPECT_EQ(x.maximum_retry_attempts, y.maximum_retry_attempts);
    EXPECT_EQ(x.bisect_batch_on_function_error, y.bisect_batch_on_function_error);
    EXPECT_EQ(x.tumbling_window_s, y.tumbling_window_s);
    EXPECT_EQ(x.report_batch_item_failures, y.report_batch_item_failures);
    EXPECT_EQ(x.filter_patterns, y.filter_patterns);
    EXPECT_EQ(x.on_failure_destination, y.on_failure_destination);
    EXPECT_EQ(x.state, y.state);
    EXPECT_EQ(x.state_transition_reason, y.state_transition_reason);
    EXPECT_EQ(x.last_modified, y.last_modified);  // exactly
    EXPECT_EQ(x.last_processing_result, y.last_processing_result);
  };
  same((*back)[0], full);
  same((*back)[1], plain);
  same((*back)[2], cleared);
  // Encoding what was decoded writes the same text.
  EXPECT_EQ(EncodeMappings(back.value()), EncodeMappings({full, plain, cleared}));
  std::string none = EncodeMappings({});
  Result<std::vector<StoredMapping>> empty = DecodeMappings(none);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(LambdaMappingsFile, AnythingElseIsASerializationError) {
  StoredMapping one;
  one.mapping.uuid = "u";
  one.positions = {{"s", "1"}};
  const std::string good = EncodeMappings({one});
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string t = good;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  for (std::string text :
       {std::string(), std::string("garbage"), std::string("[]"), std::string("{}"),
        std::string(R"({"Version":1})"), std::string(R"({"Version":2,"Mappings":[]})"),
        std::string(R"({"Version":1,"Mappings":{}})"),
        std::string(R"({"Version":1,"Mappings":[1]})"), good.substr(0, good.size() - 1),
        replaced(R"("BatchSize":100)", R"("BatchSize":"100")"), replaced(R"("UUID":"u",)", ""),
        replaced(R"("Owner":"")", R"("Owner":null)"),
        replaced(R"("FilterPatterns":[])", R"("FilterPatterns":[1])"),
        replaced(R"("ShardId":"s")", R"("ShardId":1)"),
        replaced(R"("BisectBatchOnFunctionError":false)", R"("BisectBatchOnFunctionError":0)"),
        replaced(R"("LastModified":0.0)", R"("LastModified":"0")")}) {
    Result<std::vector<StoredMapping>> r = DecodeMappings(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code(), ErrorCode::kSerialization) << text;
  }
  std::string copy = good;
  EXPECT_TRUE(DecodeMappings(copy).ok());
}

TEST(WindowEvents, TheServicesMembersInOrderAndTheStateAsAnswered) {
  WindowInvocation w;
  w.start_s = 1596128400;  // 2020-07-30T17:00:00Z, the developer guide's example
  w.end_s = w.start_s + 300;
  w.state = R"({"1":"state1"})";
  w.shard_id = "shard123456789";
  w.final = true;
  EXPECT_EQ(RenderWindowEvent({}, "stream-ARN", w),
            R"({"Records":[],"window":{"start":"2020-07-30T17:00:00Z","end":)"
            R"("2020-07-30T17:05:00Z"},"state":{"1":"state1"},"shardId":"shard123456789",)"
            R"("eventSourceARN":"stream-ARN","isFinalInvokeForWindow":true,)"
            R"("isWindowTerminatedEarly":false})");
  std::string answer = R"({"state": {"n": [1, 2]}, "batchItemFailures": []})";
  EXPECT_EQ(ReadWindowState(answer), std::optional<std::string>(R"({"n":[1,2]})"));
  for (std::string missing : {std::string("{}"), std::string("null"), std::string("[]"),
                              std::string("not json"), std::string(R"({"State":{}})")}) {
    EXPECT_EQ(ReadWindowState(missing), std::nullopt) << missing;
  }
}

}  // namespace
}  // namespace ddb::protocol
