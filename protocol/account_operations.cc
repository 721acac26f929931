// DescribeLimits and DescribeEndpoints: account-level answers that SDKs and tools ask for.
#include "protocol/json_writer.h"
#include "protocol/operations.h"

namespace ddb::protocol {

// The service's default quotas (per account and per table, in capacity units).
Result<std::string> HandleDescribeLimits(Engine&, const RequestContext&, const JsonObject&) {
  JsonWriter w;
  w.BeginObject();
  w.Key("AccountMaxReadCapacityUnits");
  w.Int(80000);
  w.Key("AccountMaxWriteCapacityUnits");
  w.Int(80000);
  w.Key("TableMaxReadCapacityUnits");
  w.Int(40000);
  w.Key("TableMaxWriteCapacityUnits");
  w.Int(40000);
  w.EndObject();
  return w.Take();
}

// Endpoint discovery: this server is its own (only) endpoint, at the address it was called
// on, as the service answers with its own host name.
Result<std::string> HandleDescribeEndpoints(Engine&, const RequestContext& ctx, const JsonObject&) {
  JsonWriter w;
  w.BeginObject();
  w.Key("Endpoints");
  w.BeginArray();
  w.BeginObject();
  w.Key("Address");
  w.String(ctx.endpoint.empty() ? "dynamodb." + ctx.region + ".amazonaws.com" : ctx.endpoint);
  w.Key("CachePeriodInMinutes");
  w.Int(1440);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
