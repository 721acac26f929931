// BatchGetItem and BatchWriteItem.
#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/request_readers.h"

namespace ddb::protocol {
namespace {

// RequestItems: a map of table name -> per-table request, with its own shape rules. The
// service answers a missing map, and an empty one for BatchWriteItem, with a sentence of its
// own before any other check; an empty map for BatchGetItem in the validation envelope
// (its answers in 2026).
Result<JsonObject> ReadRequestItems(const JsonObject& request, std::string_view operation) {
  const Error required =
      Error::Validation("The requestItems parameter is required for " + std::string(operation));
  DDB_ASSIGN_OR_RETURN(auto items, GetObject(request, "RequestItems"));
  if (!items) return required;
  if (items->begin() == items->end()) {
    if (operation == "BatchWriteItem") return required;
    return ValidationErrors(
        {"Value at 'RequestItems' failed to satisfy constraint: Member must "
         "have length greater than or equal to 1"});
  }
  return *items;
}

// Table names (or ARNs; the responses use them as given) that break the name rules.
bool HasBadTableName(const JsonObject& items) {
  std::vector<std::string> violations;
  for (auto field : items) TableNameViolations(TableNameOf(field.key), "", &violations);
  return !violations.empty();
}

// BatchGetItem's answer to a bad table name: one violation for the whole map, the map echoed
// as sent and every constraint on its keys listed.
void AddTableNamesViolation(const JsonObject& items, Violations* v) {
  v->Add("Value '" + simdjson::minify(items) +
         "' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: "
         "[Member must have length less than or equal to 255, Member must have length greater "
         "than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]");
}

// The 2026 form of a per-table list's length: "Value at 'RequestItems.<table>.member<rest>'".
void AddListLength(std::string_view table, std::string_view rest, size_t n, size_t max,
                   Violations* v) {
  if (n >= 1 && n <= max) return;
  v->Add("Value at 'RequestItems." + std::string(table) + ".member" + std::string(rest) +
         "' failed to satisfy constraint: Member must have length " +
         (n == 0 ? std::string("greater than or equal to 1")
                 : "less than or equal to " + std::to_string(max)));
}

void WriteKeysAndAttributes(JsonWriter& w, const KeysAndAttributes& ka) {
  w.BeginObject();
  w.Key("Keys");
  w.BeginArray();
  for (const auto& k : ka.keys) WriteAttributeMap(w, k);
  w.EndArray();
  w.OptionalString("ProjectionExpression", ka.projection_expression);
  if (!ka.attributes_to_get.empty()) {
    w.Key("AttributesToGet");
    w.BeginArray();
    for (const auto& a : ka.attributes_to_get) w.String(a);
    w.EndArray();
  }
  if (ka.expression_attribute_names) {
    w.Key("ExpressionAttributeNames");
    w.BeginObject();
    for (const auto& [k, val] : *ka.expression_attribute_names) {
      w.Key(k);
      w.String(val);
    }
    w.EndObject();
  }
  if (ka.consistent_read) {
    w.Key("ConsistentRead");
    w.Bool(true);
  }
  w.EndObject();
}

}  // namespace

Result<BatchGetItemRequest> ReadBatchGetItem(const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(JsonObject items, ReadRequestItems(request, "BatchGetItem"));
  if (HasBadTableName(items)) AddTableNamesViolation(items, &v);
  BatchGetItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  for (auto field : items) {
    JsonObject o;
    if (field.value.get(o) != simdjson::SUCCESS)
      return WrongType("RequestItems", "a map of objects");
    KeysAndAttributes ka;
    DDB_ASSIGN_OR_RETURN(auto keys, GetArray(o, "Keys"));
    std::string path = "requestItems." + std::string(field.key) + ".member.keys";
    if (!keys) {
      v.NotNull(path);
    } else {
      for (JsonElement k : *keys) {
        DDB_ASSIGN_OR_RETURN(Item key, ParseAttributeMap(k));
        ka.keys.push_back(std::move(key));
      }
      AddListLength(field.key, ".Keys", ka.keys.size(), 100, &v);
    }
    DDB_ASSIGN_OR_RETURN(auto projection, GetExpression(o, "ProjectionExpression"));
    if (projection) ka.projection_expression = std::string(*projection);
    DDB_RETURN_IF_ERROR(ReadAttributesToGet(o, &ka.attributes_to_get, &v));
    DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(o, &ka.expression_attribute_names));
    DDB_ASSIGN_OR_RETURN(auto consistent, GetBool(o, "ConsistentRead"));
    ka.consistent_read = consistent.value_or(false);
    req.request_items.push_back({std::string(field.key), std::move(ka)});
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  // Expression and legacy projections are one request's parameters, whichever tables they
  // are given for.
  bool expression = false, legacy = false;
  for (const auto& [table, ka] : req.request_items) {
    expression = expression || ka.projection_expression.has_value();
    legacy = legacy || !ka.attributes_to_get.empty();
  }
  if (expression && legacy) {
    return Error::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{ProjectionExpression}");
  }
  return req;
}

Result<std::string> HandleBatchGetItem(Engine& engine, const RequestContext&,
                                       const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(BatchGetItemRequest req, ReadBatchGetItem(request));
  DDB_ASSIGN_OR_RETURN(BatchGetItemResult result, engine.BatchGetItem(req));
  JsonWriter w;
  w.BeginObject();
  w.Key("Responses");
  w.BeginObject();
  for (const auto& [table, found] : result.responses) {
    w.Key(table);
    w.BeginArray();
    for (const auto& item : found) WriteAttributeMap(w, item);
    w.EndArray();
  }
  w.EndObject();
  w.Key("UnprocessedKeys");
  w.BeginObject();
  for (const auto& [table, ka] : result.unprocessed_keys) {
    w.Key(table);
    WriteKeysAndAttributes(w, ka);
  }
  w.EndObject();
  WriteConsumedCapacityList(w, result.consumed_capacity, req.return_consumed_capacity);
  w.EndObject();
  return w.Take();
}

Result<BatchWriteItemRequest> ReadBatchWriteItem(const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(JsonObject items, ReadRequestItems(request, "BatchWriteItem"));
  BatchWriteItemRequest req;
  // BatchWriteItem reports its enums before (and without) its table names.
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_ASSIGN_OR_RETURN(req.return_item_collection_metrics,
                       ReadReturnItemCollectionMetrics(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  for (auto field : items) {
    TableNameViolations(TableNameOf(field.key),
                        "requestItems." + std::string(field.key) + ".member.key", v.list());
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  for (auto field : items) {
    simdjson::dom::array arr;
    if (field.value.get(arr) != simdjson::SUCCESS)
      return WrongType("RequestItems", "a map of lists");
    std::vector<WriteRequest> writes;
    for (JsonElement e : arr) {
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) return WrongType("WriteRequest", "an object");
      DDB_ASSIGN_OR_RETURN(auto put, GetObject(o, "PutRequest"));
      DDB_ASSIGN_OR_RETURN(auto del, GetObject(o, "DeleteRequest"));
      if (put.has_value() == del.has_value()) {
        return Error::Validation(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
            "the supported datatypes");
      }
      WriteRequest w;
      w.is_put = put.has_value();
      JsonElement body;
      if ((put ? put->at_key("Item") : del->at_key("Key")).get(body) != simdjson::SUCCESS ||
          body.is_null()) {
        v.NotNull("requestItems." + std::string(field.key) + ".member." +
                  (put ? "putRequest.item" : "deleteRequest.key"));
        continue;
      }
      DDB_ASSIGN_OR_RETURN(w.item, ParseAttributeMap(body));
      writes.push_back(std::move(w));
    }
    AddListLength(field.key, "", writes.size(), 25, &v);
    req.request_items.push_back({std::string(field.key), std::move(writes)});
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return req;
}

Result<std::string> HandleBatchWriteItem(Engine& engine, const RequestContext&,
                                         const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(BatchWriteItemRequest req, ReadBatchWriteItem(request));
  DDB_ASSIGN_OR_RETURN(BatchWriteItemResult result, engine.BatchWriteItem(req));
  JsonWriter w;
  w.BeginObject();
  w.Key("UnprocessedItems");
  w.BeginObject();
  for (const auto& [table, writes] : result.unprocessed_items) {
    w.Key(table);
    w.BeginArray();
    for (const auto& wr : writes) {
      w.BeginObject();
      w.Key(wr.is_put ? "PutRequest" : "DeleteRequest");
      w.BeginObject();
      w.Key(wr.is_put ? "Item" : "Key");
      WriteAttributeMap(w, wr.item);
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  WriteConsumedCapacityList(w, result.consumed_capacity, req.return_consumed_capacity);
  WriteItemCollectionMetricsMap(w, result.item_collection_metrics);
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
