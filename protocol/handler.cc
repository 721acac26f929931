#include "protocol/handler.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string_view>
#include <unordered_map>

#include "ddb/types.h"
#include "protocol/attribute_value_json.h"
#include "protocol/json_writer.h"
#include "protocol/metrics.h"
#include "protocol/operations.h"
#include "protocol/service_envelope.h"

namespace ddb::protocol {
namespace {

constexpr std::string_view kTargetPrefix = "DynamoDB_20120810.";
constexpr std::string_view kStreamsTargetPrefix = "DynamoDBStreams_20120810.";

struct WireError {
  std::string_view type;
  int status;
};

WireError ToWire(ErrorCode code) {
  switch (code) {  // -Wswitch makes a missing case a build error
    case ErrorCode::kValidation:
      return {"ValidationException", 400};
    case ErrorCode::kSerialization:
      return {"SerializationException", 400};
    case ErrorCode::kResourceNotFound:
      return {"ResourceNotFoundException", 400};
    case ErrorCode::kResourceInUse:
      return {"ResourceInUseException", 400};
    case ErrorCode::kConditionalCheckFailed:
      return {"ConditionalCheckFailedException", 400};
    case ErrorCode::kTransactionCanceled:
      return {"TransactionCanceledException", 400};
    case ErrorCode::kProvisionedThroughputExceeded:
      return {"ProvisionedThroughputExceededException", 400};
    case ErrorCode::kTransactionInProgress:
      return {"TransactionInProgressException", 400};
    case ErrorCode::kIdempotentParameterMismatch:
      return {"IdempotentParameterMismatchException", 400};
    case ErrorCode::kTransactionConflict:
      return {"TransactionConflictException", 400};
    case ErrorCode::kUnknownOperation:
      return {"UnknownOperationException", 400};
    case ErrorCode::kMissingAuthenticationToken:
      return {"MissingAuthenticationTokenException", 400};
    case ErrorCode::kIncompleteSignature:
      return {"IncompleteSignatureException", 400};
    case ErrorCode::kInvalidSignature:
      return {"InvalidSignatureException", 400};
    case ErrorCode::kRequestLimitExceeded:
      return {"RequestLimitExceeded", 400};
    case ErrorCode::kLimitExceeded:
      return {"LimitExceededException", 400};
    case ErrorCode::kDuplicateItem:
      return {"DuplicateItemException", 400};
    case ErrorCode::kTableNotFound:
      return {"TableNotFoundException", 400};
    case ErrorCode::kExpiredIterator:
      return {"ExpiredIteratorException", 400};
    case ErrorCode::kTrimmedDataAccess:
      return {"TrimmedDataAccessException", 400};
    case ErrorCode::kUnrecognizedClient:
      return {"UnrecognizedClientException", 400};
    case ErrorCode::kPolicyNotFound:
      return {"PolicyNotFoundException", 400};
    case ErrorCode::kAccessDenied:
      return {"AccessDeniedException", 400};
    case ErrorCode::kInternal:
      return {"InternalServerError", 500};
  }
  return {"InternalServerError", 500};  // unreachable; keeps -Wreturn-type quiet
}

const std::unordered_map<std::string_view, OperationHandler>& Handlers() {
  static const std::unordered_map<std::string_view, OperationHandler> handlers = {
      {"CreateTable", HandleCreateTable},
      {"DescribeTable", HandleDescribeTable},
      {"PutResourcePolicy", HandlePutResourcePolicy},
      {"GetResourcePolicy", HandleGetResourcePolicy},
      {"DeleteResourcePolicy", HandleDeleteResourcePolicy},
      {"DeleteTable", HandleDeleteTable},
      {"ListTables", HandleListTables},
      {"PutItem", HandlePutItem},
      {"GetItem", HandleGetItem},
      {"DeleteItem", HandleDeleteItem},
      {"Query", HandleQuery},
      {"Scan", HandleScan},
      {"BatchGetItem", HandleBatchGetItem},
      {"BatchWriteItem", HandleBatchWriteItem},
      {"UpdateItem", HandleUpdateItem},
      {"UpdateTable", HandleUpdateTable},
      {"TransactWriteItems", HandleTransactWriteItems},
      {"ExecuteStatement", HandleExecuteStatement},
      {"DescribeContinuousBackups", HandleDescribeContinuousBackups},
      {"UpdateContinuousBackups", HandleUpdateContinuousBackups},
      {"BatchExecuteStatement", HandleBatchExecuteStatement},
      {"ExecuteTransaction", HandleExecuteTransaction},
      {"TransactGetItems", HandleTransactGetItems},
      {"UpdateTimeToLive", HandleUpdateTimeToLive},
      {"DescribeTimeToLive", HandleDescribeTimeToLive},
      {"TagResource", HandleTagResource},
      {"UntagResource", HandleUntagResource},
      {"ListTagsOfResource", HandleListTagsOfResource},
      {"DescribeLimits", HandleDescribeLimits},
      {"DescribeEndpoints", HandleDescribeEndpoints},
  };
  return handlers;
}

const std::unordered_map<std::string_view, OperationHandler>& StreamsHandlers() {
  static const std::unordered_map<std::string_view, OperationHandler> handlers = {
      {"ListStreams", HandleListStreams},
      {"DescribeStream", HandleDescribeStream},
      {"GetShardIterator", HandleGetShardIterator},
      {"GetRecords", HandleGetRecords},
  };
  return handlers;
}

}  // namespace

namespace {
WireResponse ErrorResponseIn(const Error& error, std::string_view region);
}  // namespace

WireResponse ErrorResponse(const Error& error) { return ErrorResponseIn(error, "us-east-1"); }

namespace {
WireResponse ErrorResponseIn(const Error& error, std::string_view region) {
  WireError wire = ToWire(error.code());
  JsonWriter w;
  w.BeginObject();
  w.Key("__type");
  w.String("com.amazonaws.dynamodb.v20120810#" + std::string(wire.type));
  w.Key("message");
  w.String(error.message());
  if (error.detail() && error.detail()->item) {
    w.Key("Item");
    WriteAttributeMap(w, *error.detail()->item);
  }
  if (error.detail() && !error.detail()->cancellation_reasons.empty()) {
    w.Key("CancellationReasons");
    w.BeginArray();
    for (const CancellationReason& r : error.detail()->cancellation_reasons) {
      w.BeginObject();
      w.Key("Code");
      w.String(CancellationCodeName(r.code));
      if (!r.message.empty()) {
        w.Key("Message");
        w.String(r.message);
      }
      if (r.item) {
        w.Key("Item");
        WriteAttributeMap(w, *r.item);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (error.detail() && !error.detail()->throttling_reasons.empty()) {
    w.Key("ThrottlingReasons");
    w.BeginArray();
    for (const auto& [reason, resource] : error.detail()->throttling_reasons) {
      w.BeginObject();
      w.Key("reason");
      w.String(reason);
      w.Key("resource");
      w.String("arn:aws:dynamodb:" + std::string(region) + ":000000000000:" + resource);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return {wire.status, w.Take()};
}
}  // namespace

WireResponse HandleRequest(Engine& engine, const RequestContext& ctx, std::string_view target,
                           std::string& body) {
  OperationHandler handler = nullptr;
  std::string_view operation;
  for (auto [prefix, table] : {std::pair{kTargetPrefix, &Handlers()},
                               std::pair{kStreamsTargetPrefix, &StreamsHandlers()}}) {
    if (target.substr(0, prefix.size()) != prefix) continue;
    operation = target.substr(prefix.size());
    auto it = table->find(operation);
    if (it != table->end()) handler = it->second;
  }
  if (handler == nullptr) {
    return ErrorResponse(Error(ErrorCode::kUnknownOperation, ""));
  }
  auto started = std::chrono::steady_clock::now();
  auto finish = [&](Result<std::string>&& response) -> WireResponse {
    WireResponse wire =
        response.ok() ? WireResponse{200, std::move(response).value()}
                      : ErrorResponseIn(InServiceEnvelope(operation, response.error()), ctx.region);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    RecordRequest(operation, seconds, wire.status,
                  response.ok() ? std::string_view() : ToWire(response.error().code()).type);
    return wire;
  };
  try {
    Result<JsonObject> request = ParseBody(body);
    if (!request.ok()) return finish(request.error());
    return finish(handler(engine, ctx, request.value()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddb: internal error in %.*s: %s\n", static_cast<int>(target.size()),
                 target.data(), e.what());
    return finish(Error::Internal("Internal server error"));
  }
}

}  // namespace ddb::protocol
