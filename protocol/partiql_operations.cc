// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction (PartiQL).
#include <cstdint>
#include <string>
#include <string_view>

#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "util/base64.h"
#include "util/hex.h"

namespace ddb::protocol {
namespace {

// NextToken: the page's LastEvaluatedKey and a digest of the statement it pages, as JSON
// {"s": digest, "k": key}, base64-encoded (opaque to clients). A token only pages the
// statement that minted it: the service refuses one replayed against another (another
// index of the same table, say), though the key would fit.
std::string StatementDigest(std::string_view statement) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : statement) h = (h ^ c) * 1099511628211ull;
  return util::Hex64(h);
}

std::string EncodeNextToken(std::string_view statement, const Item& key) {
  JsonWriter w;
  w.BeginObject();
  w.Key("s");
  w.String(StatementDigest(statement));
  w.Key("k");
  WriteAttributeMap(w, key);
  w.EndObject();
  return util::Base64(w.Take());
}

Result<Item> DecodeNextToken(std::string_view statement, std::string_view token) {
  const Error invalid = Error::Validation("Invalid NextToken");
  std::string json;
  if (!util::DecodeBase64(token, &json)) return invalid;
  // Its own parser: the request's document lives in the thread's parser.
  simdjson::dom::parser parser;
  JsonObject root;
  std::string_view digest;
  JsonElement key_json;
  if (parser.parse(json).get(root) != simdjson::SUCCESS ||
      root["s"].get(digest) != simdjson::SUCCESS || root["k"].get(key_json) != simdjson::SUCCESS) {
    return invalid;
  }
  Result<Item> key = ParseAttributeMap(key_json);
  if (!key.ok()) return invalid;
  if (digest != StatementDigest(statement)) {
    return Error::Validation("NextToken does not match request");
  }
  return key;
}

// One statement's members: Statement, Parameters, ConsistentRead and
// ReturnValuesOnConditionCheckFailure.
Status ReadStatement(const JsonObject& o, const std::string& path, ExecuteStatementRequest* s,
                     Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto statement, GetString(o, "Statement"));
  if (!statement) {
    v->NotNull(path + "statement");
  } else {
    s->statement = std::string(*statement);
    if (s->statement.empty() || s->statement.size() > 8192) {
      v->Add("Value at '" + path + "statement' failed to satisfy constraint: Member must have " +
             (s->statement.empty() ? "length greater than or equal to 1"
                                   : "length less than or equal to 8192"));
    }
  }
  DDB_ASSIGN_OR_RETURN(auto parameters, GetArray(o, "Parameters"));
  if (parameters) {
    for (JsonElement e : *parameters) {
      DDB_ASSIGN_OR_RETURN(AttributeValue value, ParseAttributeValue(e));
      s->parameters.push_back(std::move(value));
    }
    if (s->parameters.empty()) {
      v->Add("Value '[]' at '" + path +
             "parameters' failed to satisfy constraint: Member must have length greater than or "
             "equal to 1");
    }
  }
  DDB_ASSIGN_OR_RETURN(auto consistent, GetBool(o, "ConsistentRead"));
  s->consistent_read = consistent.value_or(false);
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(o, "ReturnValuesOnConditionCheckFailure"));
  if (rvf && *rvf != "ALL_OLD" && *rvf != "NONE") {
    v->Enum(*rvf, path + "returnValuesOnConditionCheckFailure", "ALL_OLD, NONE");
  }
  s->return_old_on_condition_failure = rvf && *rvf == "ALL_OLD";
  return Status::Ok();
}

// A list of statements (BatchExecuteStatement's Statements, ExecuteTransaction's
// TransactStatements) of at most `max`.
Result<std::vector<ExecuteStatementRequest>> ReadStatements(const JsonObject& request,
                                                            std::string_view member,
                                                            std::string_view wire_path, size_t max,
                                                            Violations* v) {
  std::vector<ExecuteStatementRequest> out;
  DDB_ASSIGN_OR_RETURN(auto list, GetArray(request, member));
  if (!list) {
    v->NotNull(wire_path);
    return out;
  }
  size_t i = 0;
  for (JsonElement e : *list) {
    ++i;
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS) return WrongType(member, "a list of objects");
    ExecuteStatementRequest s;
    DDB_RETURN_IF_ERROR(
        ReadStatement(o, std::string(wire_path) + "." + std::to_string(i) + ".member.", &s, v));
    out.push_back(std::move(s));
  }
  if (out.empty() || out.size() > max) {
    v->Add("Value at '" + std::string(wire_path) +
           "' failed to satisfy constraint: Member must have length " +
           (out.empty() ? "greater than or equal to 1"
                        : "less than or equal to " + std::to_string(max)));
  }
  return out;
}

// A BatchStatementError's Code for an engine error.
std::string_view BatchErrorCode(ErrorCode code) {
  switch (code) {
    case ErrorCode::kConditionalCheckFailed:
      return "ConditionalCheckFailed";
    case ErrorCode::kDuplicateItem:
      return "DuplicateItem";
    case ErrorCode::kResourceNotFound:
      return "ResourceNotFound";
    case ErrorCode::kProvisionedThroughputExceeded:
      return "ProvisionedThroughputExceeded";
    case ErrorCode::kTransactionConflict:
      return "TransactionConflict";
    case ErrorCode::kRequestLimitExceeded:
      return "RequestLimitExceeded";
    case ErrorCode::kInternal:
      return "InternalServerError";
    default:
      return "ValidationError";
  }
}

}  // namespace

Result<std::string> HandleExecuteStatement(Engine& engine, const RequestContext& ctx,
                                           const JsonObject& request) {
  Violations v;
  ExecuteStatementRequest req;
  DDB_RETURN_IF_ERROR(ReadStatement(request, "", &req, &v));
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit) v.Range(*limit, "limit", 1);
  req.limit = limit;
  DDB_ASSIGN_OR_RETURN(auto token, GetString(request, "NextToken"));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  if (token) {
    DDB_ASSIGN_OR_RETURN(Item key, DecodeNextToken(req.statement, *token));
    req.exclusive_start_key = std::move(key);
  }
  DDB_ASSIGN_OR_RETURN(ExecuteStatementResult result, engine.ExecuteStatement(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("Items");
  w.BeginArray();
  for (const Item& item : result.items) WriteAttributeMap(w, item);
  w.EndArray();
  if (result.last_evaluated_key) {
    w.Key("NextToken");
    w.String(EncodeNextToken(req.statement, *result.last_evaluated_key));
  }
  WriteConsumedCapacity(w, result.consumed_capacity, req.return_consumed_capacity);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleBatchExecuteStatement(Engine& engine, const RequestContext& ctx,
                                                const JsonObject& request) {
  Violations v;
  BatchExecuteStatementRequest req;
  DDB_ASSIGN_OR_RETURN(req.statements, ReadStatements(request, "Statements", "statements", 25, &v));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(BatchExecuteStatementResult result, engine.BatchExecuteStatement(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("Responses");
  w.BeginArray();
  for (const BatchStatementResponse& r : result.responses) {
    w.BeginObject();
    if (r.error) {
      w.Key("Error");
      w.BeginObject();
      w.Key("Code");
      w.String(BatchErrorCode(r.error->code()));
      w.Key("Message");
      w.String(r.error->message());
      if (r.error->detail() && r.error->detail()->item) {
        w.Key("Item");
        WriteAttributeMap(w, *r.error->detail()->item);
      }
      w.EndObject();
    }
    w.NonEmptyString("TableName", r.table_name);
    if (r.item) {
      w.Key("Item");
      WriteAttributeMap(w, *r.item);
    }
    w.EndObject();
  }
  w.EndArray();
  WriteConsumedCapacityList(w, result.consumed_capacity, req.return_consumed_capacity);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleExecuteTransaction(Engine& engine, const RequestContext& ctx,
                                             const JsonObject& request) {
  Violations v;
  ExecuteTransactionRequest req;
  DDB_ASSIGN_OR_RETURN(
      req.statements, ReadStatements(request, "TransactStatements", "transactStatements", 100, &v));
  DDB_ASSIGN_OR_RETURN(req.client_request_token, ReadClientRequestToken(request, &v));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ExecuteTransactionResult result, engine.ExecuteTransaction(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("Responses");
  w.BeginArray();
  for (const std::optional<Item>& item : result.items) {
    w.BeginObject();
    if (item) {
      w.Key("Item");
      WriteAttributeMap(w, *item);
    }
    w.EndObject();
  }
  w.EndArray();
  // Split as TransactGetItems and TransactWriteItems report it.
  WriteConsumedCapacityList(
      w, result.consumed_capacity, req.return_consumed_capacity,
      result.reads || result.replayed ? CapacitySplit::kRead : CapacitySplit::kWrite);
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
