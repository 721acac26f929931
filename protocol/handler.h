// The DynamoDB JSON protocol: one request body in, one response body out. The server layer
// owns HTTP (headers, CRC32, request ids); this layer owns JSON and the error envelope.
// Thread safety: HandleRequest may be called concurrently (the engine is thread-safe).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/engine.h"
#include "ddb/error.h"

namespace ddb::protocol {

struct WireResponse {
  int status = 200;  // 200, 400, or 500 for kInternal
  std::string body;  // JSON; content type application/x-amz-json-1.0
};

// Runs the operation named by the X-Amz-Target header value (e.g.
// "DynamoDB_20120810.PutItem") on "body". May append padding to body's capacity (the
// JSON parser needs it); does not change its contents. Never throws.
// Unknown targets -> UnknownOperationException; bad JSON -> SerializationException.
WireResponse HandleRequest(Engine& engine, const RequestContext& ctx, std::string_view target,
                           std::string& body);

// What the service answers before it authenticates a request (server/http_server.cc asks
// only when authentication failed, so that the common request parses its body once): an
// unknown target (UnknownOperationException), then a body that is not a JSON object
// (SerializationException); nullopt when neither. `check_body`: false for a compressed body.
std::optional<WireResponse> RequestLevelError(std::string_view target, std::string& body,
                                              bool check_body);

// An engine whose figures GET /metrics shows, and the Prometheus labels that tell it from
// the others ("" for one engine alone; the server's namespaces: account="..",region="..").
struct MetricsSource {
  std::string labels;
  Engine* engine = nullptr;
};

// The server's entry, over namespaces: `engines` finds the engine of an account in a region
// (the same one for every account when namespaces are shared). A request is served by the
// namespace of the resources it names (a table ARN of another account reaches that
// account's); with `enforce_policies` (--auth verify) their resource-based policies are
// evaluated first (protocol/authorization.h), and the caller's engine serves requests that
// name none. `open`: the namespace is the caller's, to be opened if it is new; otherwise
// another account's, and nullptr when it does not exist (naming an ARN never creates one).
using EngineFinder =
    std::function<Result<Engine*>(std::string_view account, std::string_view region, bool open)>;

// Global tables (docs/global-tables.md): the server's coordinator of replicas across the
// Regions it keeps (replication/), which UpdateTable's ReplicaUpdates go to. Without one (an
// engine alone, or namespaces shared by every Region) they are refused.
// UpdateTable's members that change a table's replicas, checked as a request.
struct ReplicaChanges {
  std::vector<ReplicaUpdate> updates;  // ReplicaUpdates: one action each
  // MultiRegionConsistency: true STRONG, false EVENTUAL, nullopt absent.
  std::optional<bool> strong;
  // GlobalTableWitnessUpdates: Create or Delete (replica.region_name only).
  std::vector<ReplicaUpdate> witness_updates;
};

class ReplicaCoordinator {
 public:
  virtual ~ReplicaCoordinator() = default;
  // Applies `changes` to `table` of `engine`, the caller's Region's (ctx.region). Returns
  // the table's description, as UpdateTable's answer.
  virtual Result<TableDescription> UpdateReplicas(Engine& engine, const RequestContext& ctx,
                                                  const std::string& table,
                                                  const ReplicaChanges& changes) = 0;
  // A change of a global table's settings just made in ctx.region (`table` as it is now),
  // made in the other replicas too, as the service keeps them in step: UpdateTable's
  // capacity and indexes, Time to Live.
  virtual void FollowUpdateTable(const RequestContext& ctx, const TableDescription& table,
                                 const UpdateTableRequest& req) = 0;
  virtual void FollowTimeToLive(const RequestContext& ctx, const TableDescription& table,
                                const TimeToLiveSpecification& spec) = 0;
  // The engine of the caller's account in another replica's Region, for the operations that
  // read or set every replica's own settings (replica auto scaling).
  virtual Result<Engine*> EngineIn(const RequestContext& ctx, const std::string& region) = 0;
};

WireResponse HandleRequest(const EngineFinder& engines, const RequestContext& ctx,
                           std::string_view target, std::string& body, bool enforce_policies,
                           ReplicaCoordinator* replicas = nullptr);

// GET /metrics: the Prometheus text exposition (protocol/metrics.h).
std::string RenderMetricsText(Engine& engine);
std::string RenderMetricsText(const std::vector<MetricsSource>& sources);

// The request watchdog (server/request_watchdog.h), process-wide, for /metrics: one more
// request ran past --request-watchdog-seconds; and how many run past it now (metrics.cc).
void RecordOverdueRequest();
void SetOverdueRequests(int running);

// GET /console/api/<resource>: the web console's JSON (docs/CONSOLE.md), built from
// Engine::GetMetrics (the figures /metrics shows) and the tables' descriptions; the console
// computes rates from successive snapshots, so nothing is kept between calls.
//   "tables"                -> every table: description, TTL, item counts and sizes
//   "partitions?table=<T>"  -> table T's and its GSIs' partitions (cumulative units,
//                              throttles by reason, limits, burst credit, hot keys), GSI lag
// `query` is the URL's query string. Status 200, 400 (no table=), 404 (unknown resource or
// table). Never throws unless allocation does.
WireResponse RenderConsoleApi(const std::vector<MetricsSource>& sources, std::string_view resource,
                              std::string_view query);

// The wire form of an error: status 400 (500 for kInternal) and
// {"__type":"<namespace>#<Type>","message":"..."}: the namespace and the message member
// as the service writes each type (handler.cc, EnvelopeOf).
WireResponse ErrorResponse(const Error& error);

}  // namespace ddb::protocol
