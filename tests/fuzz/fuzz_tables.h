// The tables the engine-backed fuzz targets run against: created through HandleRequest, as a
// client would, so that fuzzed requests find tables with every kind of key, index, stream and
// TTL. Inputs and seeds name them: "tbl" (pk S, sk N; LSI "lsi" on l, GSI "gsi" on g, a
// NEW_AND_OLD_IMAGES stream, TTL on "ttl") and "bin" (id B, hash key only).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "ddb/engine.h"
#include "protocol/handler.h"

namespace ddb::fuzz {

// HandleRequest with the full X-Amz-Target value. DDB_FUZZ_VERBOSE=1 prints each answer: for
// checking that seeds get where they should, and for reading a reproduction.
inline protocol::WireResponse CallTarget(Engine& engine, const std::string& target,
                                         std::string body) {
  protocol::WireResponse response = protocol::HandleRequest(engine, RequestContext{}, target, body);
  static const bool verbose = std::getenv("DDB_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "%s -> %d %s\n", target.c_str(), response.status,
                 response.body.substr(0, 300).c_str());
  }
  return response;
}

inline protocol::WireResponse Call(Engine& engine, std::string_view operation, std::string body) {
  return CallTarget(engine, "DynamoDB_20120810." + std::string(operation), std::move(body));
}

// Setup must work: a fuzz run against missing tables would look fine and test nothing.
inline void MustCall(Engine& engine, std::string_view operation, std::string body) {
  protocol::WireResponse r = Call(engine, operation, std::move(body));
  if (r.status != 200) {
    std::fprintf(stderr, "fuzz setup: %.*s failed: %s\n", static_cast<int>(operation.size()),
                 operation.data(), r.body.c_str());
    std::abort();
  }
}

inline std::unique_ptr<Engine> OpenEngineWithTables() {
  EngineOptions options;
  options.in_memory = true;
  Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "fuzz setup: %s\n", engine.error().message().c_str());
    std::abort();
  }
  Engine& e = **engine;
  MustCall(e, "CreateTable", R"({"TableName":"tbl",
    "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
      {"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"l","AttributeType":"S"},
      {"AttributeName":"g","AttributeType":"S"}],
    "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
    "LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
      {"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],
    "GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],
      "Projection":{"ProjectionType":"KEYS_ONLY"}}],
    "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},
    "BillingMode":"PAY_PER_REQUEST"})");
  MustCall(
      e, "UpdateTimeToLive",
      R"({"TableName":"tbl","TimeToLiveSpecification":{"Enabled":true,"AttributeName":"ttl"}})");
  MustCall(e, "CreateTable", R"({"TableName":"bin",
    "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"B"}],
    "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"})");
  MustCall(e, "PutItem", R"({"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"1"},
    "l":{"S":"x"},"g":{"S":"y"},"m":{"M":{"k":{"L":[{"N":"1"},{"S":"s"}]}}},"ns":{"NS":["1","2"]}}})");
  MustCall(e, "PutItem",
           R"({"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"b":{"B":"AAE="}}})");
  MustCall(e, "UpdateItem", R"({"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},
    "UpdateExpression":"SET n = :one","ExpressionAttributeValues":{":one":{"N":"1"}}})");
  MustCall(e, "DeleteItem", R"({"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"2"}}})");
  MustCall(e, "PutItem", R"({"TableName":"bin","Item":{"id":{"B":"AQI="},"v":{"SS":["p","q"]}}})");
  return std::move(*engine);
}

}  // namespace ddb::fuzz
