// The Lambda API's event source mappings for DynamoDB streams (docs/triggers.md), on the wire:
// the REST operations (CreateEventSourceMapping, Get, List, Update, Delete) of requests
// signed for service "lambda", the event a function is invoked with, the answer it gives,
// and the mappings as kept on disk. The mappings themselves, their pollers and the
// invocations are the TriggerCoordinator's (triggers/).
// Thread safety: pure functions; HandleLambdaRequest as the coordinator.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/engine.h"
#include "ddb/error.h"

namespace ddb::protocol {

// One event source mapping (the Lambda API's EventSourceMappingConfiguration).
struct EventSourceMapping {
  std::string uuid;
  std::string function_arn;       // arn:aws:lambda:<region>:<account>:function:<name>
  std::string event_source_arn;   // a DynamoDB stream's
  std::string starting_position;  // TRIM_HORIZON or LATEST
  int64_t batch_size = 100;
  int64_t maximum_batching_window_s = 0;
  int64_t parallelization_factor = 1;
  int64_t maximum_record_age_s = -1;    // -1: records never too old to retry
  int64_t maximum_retry_attempts = -1;  // -1: until the record expires from the stream
  bool bisect_batch_on_function_error = false;
  int64_t tumbling_window_s = 0;
  bool report_batch_item_failures = false;   // FunctionResponseTypes ["ReportBatchItemFailures"]
  std::vector<std::string> filter_patterns;  // FilterCriteria.Filters[].Pattern
  std::optional<std::string> on_failure_destination;  // DestinationConfig.OnFailure.Destination
  // Creating, Enabling, Enabled, Disabling, Disabled, Updating, Deleting.
  std::string state = "Creating";
  std::string state_transition_reason = "User action";
  double last_modified = 0;  // epoch seconds
  std::string last_processing_result = "No records processed";
};

// The members of CreateEventSourceMapping or UpdateEventSourceMapping that the request has.
struct EventSourceMappingChange {
  std::optional<std::string> function_name;  // a name, a partial or a full ARN
  std::optional<std::string> event_source_arn;
  std::optional<std::string> starting_position;
  std::optional<bool> enabled;
  std::optional<int64_t> batch_size;
  std::optional<int64_t> maximum_batching_window_s;
  std::optional<int64_t> parallelization_factor;
  std::optional<int64_t> maximum_record_age_s;
  std::optional<int64_t> maximum_retry_attempts;
  std::optional<bool> bisect_batch_on_function_error;
  std::optional<int64_t> tumbling_window_s;
  std::optional<bool> report_batch_item_failures;
  std::optional<std::vector<std::string>> filter_patterns;
  std::optional<std::string> on_failure_destination;  // "" clears it
};

// The server's mappings (triggers/). Their errors become the Lambda API's by code:
// kValidation InvalidParameterValueException (400), kResourceNotFound
// ResourceNotFoundException (404), kResourceInUse ResourceConflictException (409), others
// ServiceException (500).
class TriggerCoordinator {
 public:
  virtual ~TriggerCoordinator() = default;
  virtual Result<EventSourceMapping> CreateMapping(const RequestContext& ctx,
                                                   const EventSourceMappingChange& c) = 0;
  virtual Result<EventSourceMapping> GetMapping(const RequestContext& ctx,
                                                const std::string& uuid) = 0;
  // The caller's mappings, oldest first, of that stream and function when given.
  virtual std::vector<EventSourceMapping> ListMappings(
      const RequestContext& ctx, const std::optional<std::string>& event_source_arn,
      const std::optional<std::string>& function_name) = 0;
  virtual Result<EventSourceMapping> UpdateMapping(const RequestContext& ctx,
                                                   const std::string& uuid,
                                                   const EventSourceMappingChange& c) = 0;
  virtual Result<EventSourceMapping> DeleteMapping(const RequestContext& ctx,
                                                   const std::string& uuid) = 0;
  // The mappings' figures for GET /metrics, in Prometheus' text format ("" for none).
  virtual std::string RenderMetrics() const { return ""; }
  // Every mapping with its figures for the console (GET /console/api/triggers):
  // {"mappings":[{uuid, function, eventSourceArn, state, batchSize, parallelizationFactor,
  // tumblingWindowInSeconds, lastProcessingResult, invocations, errors, retries,
  // iteratorAgeMs}]}.
  virtual std::string RenderConsoleJson() const { return R"({"mappings":[]})"; }
};

// FilterCriteria: the EventBridge pattern syntax Lambda applies to stream records (values,
// prefix, suffix, equals-ignore-case, wildcard, anything-but, numeric, exists, $or), matched
// against the record as the function would get it (protocol/event_filter.cc).
struct FilterPattern;
class RecordFilter {
 public:
  // Errors: kValidation "Invalid filter pattern definition." (not a JSON object, an unknown
  // operator, a field that is neither a list nor a pattern, an empty list, ...).
  static Result<RecordFilter> Parse(const std::vector<std::string>& patterns);
  // Whether the record passes one of the patterns (every record, when there are none).
  bool Matches(const StreamRecord& record, const std::string& event_source_arn) const;

 private:
  std::vector<std::shared_ptr<const FilterPattern>> patterns_;
};

// The answer to a request signed for service "lambda".
struct LambdaResponse {
  int status = 200;
  std::string body;        // application/json
  std::string error_type;  // x-amzn-ErrorType, when an error
};

// A request signed for service "lambda": `method`, `target` (path and query) and `body`.
// Paths other than the event source mappings' answer 404 with the Lambda API's
// UnknownOperation shape ("ddb serves only event source mappings"). Never throws.
LambdaResponse HandleLambdaRequest(TriggerCoordinator* triggers, const RequestContext& ctx,
                                   std::string_view method, std::string_view target,
                                   std::string& body);

// The event a function is invoked with for `records` of the stream `event_source_arn`:
// {"Records":[{eventID, eventName, eventVersion, eventSource, awsRegion, dynamodb{...},
// eventSourceARN, userIdentity (TTL deletes)}]}.
std::string RenderStreamEvent(const std::vector<StreamRecord>& records,
                              const std::string& event_source_arn);

// A mapping with its poller's figures, for the console.
struct MappingFigures {
  EventSourceMapping mapping;
  std::string function;  // its name
  uint64_t invocations = 0;
  uint64_t errors = 0;
  uint64_t retries = 0;
  int64_t iterator_age_ms = 0;
};
// TriggerCoordinator::RenderConsoleJson's document for these mappings.
std::string RenderConsoleMappings(const std::vector<MappingFigures>& mappings);

// A tumbling window's invocation (TumblingWindowInSeconds): the window [start, end) in epoch
// seconds, the state the function answered last in it (JSON, "{}" at first), the shard.
struct WindowInvocation {
  int64_t start_s = 0;
  int64_t end_s = 0;
  std::string state = "{}";
  std::string shard_id;
  bool final = false;
  bool terminated_early = false;
};
// The service's time-window event: Records, then window {start, end}, state, shardId,
// eventSourceARN, isFinalInvokeForWindow, isWindowTerminatedEarly.
std::string RenderWindowEvent(const std::vector<StreamRecord>& records,
                              const std::string& event_source_arn, const WindowInvocation& w);
// The `state` of a time-window function's answer ({"state": {...}, "batchItemFailures": []}),
// as compact JSON; nullopt when there is none, which the service counts as a failed
// invocation.
std::optional<std::string> ReadWindowState(std::string& body);

// A function's answer under ReportBatchItemFailures: the itemIdentifiers of
// {"batchItemFailures":[{"itemIdentifier":"<sequence number>"}]}. Empty: all succeeded, as
// the service counts an empty or null list, an object without one, null, [] and {} (an
// answer that is not JSON counts so too). nullopt: the whole batch failed, as the service
// fails it for an entry whose itemIdentifier is missing, null, "" or not a string (and here
// also for an entry that is not an object, or a batchItemFailures that is not a list).
std::optional<std::vector<std::string>> ReadBatchItemFailures(std::string& body);

// What an on-failure destination gets for a batch given up (the service's invocation record
// for a DynamoDB stream; the records themselves are not in it).
struct FailureRecord {
  std::string request_id;
  std::string function_arn;
  std::string condition;  // RetryAttemptsExhausted or RecordAgeExceeded
  int64_t approximate_invoke_count = 1;
  int status = 200;             // the last invocation's HTTP status
  bool function_error = false;  // "Unhandled", else null
  int64_t timestamp_ms = 0;
  std::string shard_id;
  std::string stream_arn;
  std::string start_sequence_number;
  std::string end_sequence_number;
  double first_arrival = 0;  // epoch seconds
  double last_arrival = 0;
  int64_t batch_size = 0;
};
std::string RenderFailureRecord(const FailureRecord& r);

// The mappings and each one's position in each shard, as triggers/ keeps them on disk.
struct StoredMapping {
  EventSourceMapping mapping;
  std::string owner;  // the account (or access key) whose namespace has the stream
  std::vector<std::pair<std::string, std::string>> positions;  // shard id -> last sequence done
};
std::string EncodeMappings(const std::vector<StoredMapping>& mappings);
// Errors: kSerialization (not what EncodeMappings wrote).
Result<std::vector<StoredMapping>> DecodeMappings(std::string& text);

}  // namespace ddb::protocol
