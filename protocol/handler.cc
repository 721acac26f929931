#include "protocol/handler.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string_view>
#include <unordered_map>

#include "ddb/types.h"
#include "protocol/attribute_value_json.h"
#include "protocol/authorization.h"
#include "protocol/json_writer.h"
#include "protocol/metrics.h"
#include "protocol/operations.h"
#include "protocol/request_types.h"
#include "protocol/service_envelope.h"
#include "util/arn.h"

namespace ddb::protocol {
namespace {

constexpr std::string_view kTargetPrefix = "DynamoDB_20120810.";
constexpr std::string_view kStreamsTargetPrefix = "DynamoDBStreams_20120810.";
constexpr std::string_view kKinesisTargetPrefix = "Kinesis_20131202.";

struct WireError {
  std::string_view type;
  int status;
};

// The `__type` namespace and message member of each error as the service writes them
// (recorded answers; tests/wire/test_error_envelope.py cites them): the request layer's
// errors come from its framework (coral): validation, serialization, unknown operations and
// authentication; the rest are DynamoDB's own. The framework's service errors that carry a
// text name it "Message"; an empty text is no member at all (UnknownOperationException and
// a body that is not JSON answer with `__type` alone).
struct Envelope {
  std::string_view type_namespace;
  std::string_view message_member;
};

Envelope EnvelopeOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kValidation:
      return {"com.amazon.coral.validate#", "message"};
    case ErrorCode::kSerialization:
    case ErrorCode::kAccessDenied:
      return {"com.amazon.coral.service#", "Message"};
    case ErrorCode::kUnknownOperation:
    case ErrorCode::kMissingAuthenticationToken:
    case ErrorCode::kIncompleteSignature:
    case ErrorCode::kInvalidSignature:
    case ErrorCode::kUnrecognizedClient:
      return {"com.amazon.coral.service#", "message"};
    default:
      return {"com.amazonaws.dynamodb.v20120810#", "message"};
  }
}

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
    case ErrorCode::kServiceUnavailable:
      // The developer guide's 503 (DynamoDB is currently unavailable), which the SDKs retry.
      return {"ServiceUnavailable", 503};
    case ErrorCode::kBackupNotFound:
      return {"BackupNotFoundException", 400};
    case ErrorCode::kBackupInUse:
      return {"BackupInUseException", 400};
    case ErrorCode::kTableAlreadyExists:
      return {"TableAlreadyExistsException", 400};
    case ErrorCode::kTableInUse:
      return {"TableInUseException", 400};
    case ErrorCode::kContinuousBackupsUnavailable:
      return {"ContinuousBackupsUnavailableException", 400};
    case ErrorCode::kPointInTimeRecoveryUnavailable:
      return {"PointInTimeRecoveryUnavailableException", 400};
    case ErrorCode::kInvalidRestoreTime:
      return {"InvalidRestoreTimeException", 400};
    case ErrorCode::kImportConflict:
      return {"ImportConflictException", 400};
    case ErrorCode::kImportNotFound:
      return {"ImportNotFoundException", 400};
    case ErrorCode::kExportNotFound:
      return {"ExportNotFoundException", 400};
    case ErrorCode::kExportConflict:
      return {"ExportConflictException", 400};
    case ErrorCode::kInvalidExportTime:
      return {"InvalidExportTimeException", 400};
    case ErrorCode::kGlobalTableNotFound:
      return {"GlobalTableNotFoundException", 400};
    case ErrorCode::kReplicatedWriteConflict:
      return {"ReplicatedWriteConflictException", 400};
    case ErrorCode::kInvalidArgument:
      return {"InvalidArgumentException", 400};
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
      {"CreateGlobalTable", HandleCreateGlobalTable},
      {"DescribeGlobalTable", HandleDescribeGlobalTable},
      {"UpdateGlobalTable", HandleUpdateGlobalTable},
      {"DescribeGlobalTableSettings", HandleDescribeGlobalTableSettings},
      {"UpdateGlobalTableSettings", HandleUpdateGlobalTableSettings},
      {"ListGlobalTables", HandleListGlobalTables},
      {"DescribeTableReplicaAutoScaling", HandleDescribeTableReplicaAutoScaling},
      {"UpdateTableReplicaAutoScaling", HandleUpdateTableReplicaAutoScaling},
      {"SearchVectors", HandleSearchVectors},
      {"TransactWriteItems", HandleTransactWriteItems},
      {"ExecuteStatement", HandleExecuteStatement},
      {"DescribeContinuousBackups", HandleDescribeContinuousBackups},
      {"UpdateContinuousBackups", HandleUpdateContinuousBackups},
      {"CreateBackup", HandleCreateBackup},
      {"DescribeBackup", HandleDescribeBackup},
      {"ListBackups", HandleListBackups},
      {"DeleteBackup", HandleDeleteBackup},
      {"RestoreTableFromBackup", HandleRestoreTableFromBackup},
      {"RestoreTableToPointInTime", HandleRestoreTableToPointInTime},
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
      {"ImportTable", HandleImportTable},
      {"DescribeImport", HandleDescribeImport},
      {"ListImports", HandleListImports},
      {"ExportTableToPointInTime", HandleExportTableToPointInTime},
      {"DescribeExport", HandleDescribeExport},
      {"ListExports", HandleListExports},
      {"UpdateContributorInsights", HandleUpdateContributorInsights},
      {"DescribeContributorInsights", HandleDescribeContributorInsights},
      {"ListContributorInsights", HandleListContributorInsights},
      {"EnableKinesisStreamingDestination", HandleEnableKinesisStreamingDestination},
      {"DisableKinesisStreamingDestination", HandleDisableKinesisStreamingDestination},
      {"UpdateKinesisStreamingDestination", HandleUpdateKinesisStreamingDestination},
      {"DescribeKinesisStreamingDestination", HandleDescribeKinesisStreamingDestination},
  };
  return handlers;
}

const std::unordered_map<std::string_view, OperationHandler>& KinesisHandlers() {
  static const std::unordered_map<std::string_view, OperationHandler> handlers = {
      {"CreateStream", HandleKinesisCreateStream},
      {"DeleteStream", HandleKinesisDeleteStream},
      {"DescribeStream", HandleKinesisDescribeStream},
      {"DescribeStreamSummary", HandleKinesisDescribeStreamSummary},
      {"ListStreams", HandleKinesisListStreams},
      {"ListShards", HandleKinesisListShards},
      {"GetShardIterator", HandleKinesisGetShardIterator},
      {"GetRecords", HandleKinesisGetRecords},
      {"PutRecord", HandleKinesisPutRecord},
      {"PutRecords", HandleKinesisPutRecords},
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
WireResponse ErrorResponseIn(const Error& error, const RequestContext& ctx);
}  // namespace

WireResponse ErrorResponse(const Error& error) { return ErrorResponseIn(error, RequestContext{}); }

namespace {
WireResponse ErrorResponseIn(const Error& error, const RequestContext& ctx) {
  WireError wire = ToWire(error.code());
  JsonWriter w;
  w.BeginObject();
  const Envelope envelope = EnvelopeOf(error.code());
  w.Key("__type");
  w.String(std::string(envelope.type_namespace) + std::string(wire.type));
  if (!error.message().empty() ||
      envelope.type_namespace.find("coral.service") == std::string_view::npos) {
    w.Key(envelope.message_member);
    w.String(error.message());
  }
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
      w.NonEmptyString("Message", r.message);
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
      w.String(util::DynamoDbArn(ctx.region, ctx.account_id, resource));
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return {wire.status, w.Take()};
}
}  // namespace

namespace {

// Kinesis answers errors with the exception's name alone in `__type` and a "message".
WireResponse KinesisErrorResponse(const Error& error) {
  const WireError wire = ToWire(error.code());
  JsonWriter w;
  w.BeginObject();
  w.Key("__type");
  w.String(wire.type == "InternalServerError" ? "InternalFailure" : wire.type);
  w.Key("message");
  w.String(error.message());
  w.EndObject();
  return {wire.status, w.Take()};
}

// The engine (and the context: the owner's account, for the ARNs it answers with) that serves
// a request, once its caller may make it.
// The context is the caller's unless another account owns what the request names (the
// caller's is not copied: a request's context is five strings).
struct Serving {
  Engine* engine = nullptr;
  std::optional<RequestContext> owners;  // set only when it differs from the caller's

  const RequestContext& ctx(const RequestContext& caller) const {
    return owners ? *owners : caller;
  }
};

Result<Serving> Choose(const EngineFinder& engines, const RequestContext& ctx,
                       std::string_view operation, const JsonObject& request, bool enforce,
                       bool names_arn) {
  Serving s;
  if (enforce && !names_arn) {
    // Only the caller's own resources: nothing to check unless its namespace has policies.
    DDB_ASSIGN_OR_RETURN(s.engine, engines(ctx.account_id, ctx.region, true));
    if (!s.engine->MayHaveResourcePolicies()) return s;
  }
  if (!enforce) {
    // Callers are not known: every request is its caller's namespace's (the ARNs it names
    // are the operation's to judge), as before namespaces.
    DDB_ASSIGN_OR_RETURN(s.engine, engines(ctx.account_id, ctx.region, true));
    return s;
  }
  std::vector<NamedResource> resources = NamedResources(operation, request, ctx);
  for (const NamedResource& r : resources) {
    // A request is served in its own Region: an ARN of another names no table here (the
    // service's answer, quoted in hashicorp/terraform-provider-aws#42792). It reached the
    // caller's table of the same name (found by a black-box probe).
    if (r.region != ctx.region) {
      return Error::Validation("1 validation error detected: Invalid AWS region in '" +
                               (r.policy_owner.empty() ? r.arn : r.policy_owner) + "'");
    }
  }
  for (const NamedResource& r : resources) {
    if (r.account == resources[0].account) continue;
    // Guess at the text; the service refuses it ("not in different accounts or Regions").
    return Error::Validation("A request cannot name resources of more than one account");
  }
  // Another account's table (by its ARN) is served by that account's namespace, in the
  // caller's region, and answered with the ARNs of its owner.
  const bool own = resources.empty() || resources[0].account == ctx.account_id;
  if (!own) {
    s.owners = ctx;
    s.owners->account_id = resources[0].account;
  }
  const RequestContext& served = s.ctx(ctx);
  DDB_ASSIGN_OR_RETURN(s.engine, engines(served.account_id, served.region, own));
  for (const NamedResource& r : resources) DDB_RETURN_IF_ERROR(Authorize(s.engine, ctx, r));
  if (!s.engine) return Error::NotFound("Requested resource not found");  // not reached
  return s;
}

// The handler, with the server's coordinator of replicas, of an operation that changes what
// a global table's other replicas must follow (UpdateTable's ReplicaUpdates and settings,
// UpdateTimeToLive) or reads them (replica auto scaling); nullptr for the others, which
// Handlers() serve alone.
using CoordinatedHandler = Result<std::string> (*)(ReplicaCoordinator*, Engine&,
                                                   const RequestContext&, const JsonObject&);
CoordinatedHandler CoordinatedFor(std::string_view operation) {
  if (operation == "UpdateTable") return UpdateTableWith;
  if (operation == "UpdateTimeToLive") return UpdateTimeToLiveWith;
  if (operation == "DescribeTableReplicaAutoScaling") return DescribeTableReplicaAutoScalingWith;
  if (operation == "UpdateTableReplicaAutoScaling") return UpdateTableReplicaAutoScalingWith;
  return nullptr;
}

// The operation's handler for `target`, and its name; nullptr when there is none.
OperationHandler Find(std::string_view target, std::string_view* operation) {
  for (auto [prefix, table] :
       {std::pair{kTargetPrefix, &Handlers()}, std::pair{kStreamsTargetPrefix, &StreamsHandlers()},
        std::pair{kKinesisTargetPrefix, &KinesisHandlers()}}) {
    if (target.substr(0, prefix.size()) != prefix) continue;
    *operation = target.substr(prefix.size());
    auto it = table->find(*operation);
    if (it != table->end()) return it->second;
  }
  return nullptr;
}

// Errors a request of well-typed members may still meet: only these can stand in the place of
// a type error the service would have answered first (the others need a request it read).
bool MayHideTypeError(ErrorCode code) {
  switch (code) {
    case ErrorCode::kConditionalCheckFailed:
    case ErrorCode::kTransactionCanceled:
    case ErrorCode::kTransactionConflict:
    case ErrorCode::kTransactionInProgress:
    case ErrorCode::kProvisionedThroughputExceeded:
    case ErrorCode::kRequestLimitExceeded:
    case ErrorCode::kReplicatedWriteConflict:
    case ErrorCode::kServiceUnavailable:
    case ErrorCode::kInternal:
      return false;
    default:
      return true;
  }
}

// Runs the operation on the engine `choose` picks for the parsed request.
template <typename Choose>
WireResponse Run(const RequestContext& ctx, std::string_view target, std::string& body,
                 Choose choose, ReplicaCoordinator* replicas = nullptr) {
  std::string_view operation;
  OperationHandler handler = Find(target, &operation);
  if (handler == nullptr) {
    return ErrorResponse(Error(ErrorCode::kUnknownOperation, ""));
  }
  auto started = std::chrono::steady_clock::now();
  const bool kinesis = target.starts_with(kKinesisTargetPrefix);
  auto finish = [&](Result<std::string>&& response, const RequestContext& answered) {
    WireResponse wire =
        response.ok() ? WireResponse{200, std::move(response).value()}
        : kinesis     ? KinesisErrorResponse(response.error())
                      : ErrorResponseIn(InServiceEnvelope(operation, response.error()), answered);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // Kinesis' operations are counted apart from DynamoDB Streams' of the same names.
    RecordRequest(kinesis ? "Kinesis." + std::string(operation) : std::string(operation), seconds,
                  wire.status,
                  response.ok() ? std::string_view() : ToWire(response.error().code()).type);
    return wire;
  };
  // After the request's document is last read (declared before it, so destroyed after it).
  struct ParserRelease {
    ~ParserRelease() { ReleaseLargeParserMemory(); }
  } release;
  try {
    Result<JsonObject> request = ParseBody(body);
    if (!request.ok()) return finish(request.error(), ctx);
    Result<Serving> serving = choose(operation, request.value());
    if (!serving.ok()) return finish(serving.error(), ctx);
    // The operations that reach the other Regions' replicas go through the coordinator.
    const RequestContext& served = serving->ctx(ctx);
    // A member of the wrong JSON type fails the request before anything else in the service.
    auto typed = [&](Result<std::string>&& response) {
      if (!response.ok() && MayHideTypeError(response.error().code())) {
        if (std::optional<Error> type_error = FirstTypeError(operation, request.value())) {
          return Result<std::string>(std::move(*type_error));
        }
      }
      return std::move(response);
    };
    if (CoordinatedHandler coordinated = CoordinatedFor(operation)) {
      return finish(typed(coordinated(replicas, *serving->engine, served, request.value())),
                    served);
    }
    return finish(typed(handler(*serving->engine, served, request.value())), served);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddb: internal error in %.*s: %s\n", static_cast<int>(target.size()),
                 target.data(), e.what());
    return finish(Error::Internal("Internal server error"), ctx);
  }
}

}  // namespace

std::optional<WireResponse> RequestLevelError(std::string_view target, std::string& body,
                                              bool check_body) {
  std::string_view operation;
  if (Find(target, &operation) == nullptr) {
    return ErrorResponse(Error(ErrorCode::kUnknownOperation, ""));
  }
  if (check_body) {
    Result<JsonObject> request = ParseBody(body);
    ReleaseLargeParserMemory();
    if (!request.ok()) return ErrorResponse(request.error());
  }
  return std::nullopt;
}

WireResponse HandleRequest(Engine& engine, const RequestContext& ctx, std::string_view target,
                           std::string& body) {
  return Run(ctx, target, body, [&](std::string_view, const JsonObject&) -> Result<Serving> {
    return Serving{&engine, std::nullopt};
  });
}

WireResponse HandleRequest(const EngineFinder& engines, const RequestContext& ctx,
                           std::string_view target, std::string& body, bool enforce_policies,
                           ReplicaCoordinator* replicas) {
  // A body without an ARN names only the caller's resources (a shard iterator starts with
  // its stream's ARN too).
  const bool names_arn = body.find("arn:") != std::string::npos;
  return Run(
      ctx, target, body,
      [&](std::string_view operation, const JsonObject& request) {
        return Choose(engines, ctx, operation, request, enforce_policies, names_arn);
      },
      replicas);
}

}  // namespace ddb::protocol
