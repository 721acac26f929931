// PutItem, GetItem, DeleteItem.

#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/legacy_parameters.h"
#include "protocol/operations.h"
#include "protocol/request_readers.h"

namespace ddb::protocol {
namespace {

// update_expression: the UpdateExpression of an UpdateItem (null for PutItem, DeleteItem).
// Legacy Expected/ConditionalOperator/AttributeUpdates become expressions here.
Status ReadConditionalWrite(const JsonObject& request, ConditionalWrite* w,
                            std::optional<std::string>* update_expression = nullptr) {
  DDB_ASSIGN_OR_RETURN(auto condition, GetExpression(request, "ConditionExpression"));
  if (condition) w->condition_expression = std::string(*condition);
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(request, &w->expression_attribute_names));
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeValues(request, &w->expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(request, "ReturnValuesOnConditionCheckFailure"));
  w->return_old_on_condition_failure = rvf && *rvf == "ALL_OLD";
  if (update_expression) {
    DDB_ASSIGN_OR_RETURN(auto update, GetExpression(request, "UpdateExpression"));
    if (update) *update_expression = std::string(*update);
  }
  return ApplyLegacyWriteParameters(request, w, update_expression);
}

Result<std::optional<ReturnValues>> ReadReturnValues(const JsonObject& request, Violations* v) {
  return ReadEnum<ReturnValues>(request, "ReturnValues", "returnValues",
                                "ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW", v);
}

// ReturnConsumedCapacity, ReturnItemCollectionMetrics (into *collection_metrics, when
// given) and ReturnValuesOnConditionCheckFailure's enum.
Result<ReturnConsumedCapacity> ReadAcceptedEnums(const JsonObject& request, Violations* v,
                                                 bool* collection_metrics = nullptr) {
  DDB_ASSIGN_OR_RETURN(ReturnConsumedCapacity rcc, ReadReturnConsumedCapacity(request, v));
  DDB_ASSIGN_OR_RETURN(bool size, ReadReturnItemCollectionMetrics(request, v));
  if (collection_metrics) *collection_metrics = size;
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(request, "ReturnValuesOnConditionCheckFailure"));
  if (rvf && *rvf != "ALL_OLD" && *rvf != "NONE") {
    v->Enum(*rvf, "returnValuesOnConditionCheckFailure", "ALL_OLD, NONE");
  }
  return rcc;
}

Result<std::optional<Item>> ReadAttributeMap(const JsonObject& request, std::string_view member,
                                             std::string_view path, Violations* v) {
  JsonElement e;
  if (request.at_key(member).get(e) != simdjson::SUCCESS || e.is_null()) {
    v->NotNull(path);
    return std::optional<Item>();
  }
  DDB_ASSIGN_OR_RETURN(Item item, ParseAttributeMap(e));
  return std::optional<Item>(std::move(item));
}

// `encoded`, when given, is the item in stored form (and `item` is empty).
Result<std::string> RenderAttributes(
    std::string_view member, const std::optional<Item>& item,
    const std::optional<ConsumedCapacity>& capacity, ReturnConsumedCapacity mode,
    const std::optional<ItemCollectionMetrics>& metrics = std::nullopt,
    const std::optional<std::string>& encoded = std::nullopt) {
  JsonWriter w;
  if (item) w.Reserve(JsonSizeHint(*item) + 64);
  if (encoded) w.Reserve(2 * encoded->size() + 64);
  w.BeginObject();
  if (item) {
    w.Key(member);
    WriteAttributeMap(w, *item);
  }
  if (encoded) {
    w.Key(member);
    if (!WriteEncodedItem(w, *encoded)) return Error::Internal("unreadable stored item");
  }
  WriteConsumedCapacity(w, capacity, mode);
  if (metrics) {
    w.Key("ItemCollectionMetrics");
    WriteItemCollectionMetrics(w, *metrics);
  }
  w.EndObject();
  return w.Take();
}

// The members PutItem, UpdateItem and DeleteItem share: TableName, the item or key
// ("member"), ReturnValues, the capacity/metrics enums, then the condition and placeholders
// (and UpdateExpression, when given). Returns the item or key.
template <typename WriteRequest>
Result<Item> ReadSingleItemWrite(const JsonObject& request, std::string_view member,
                                 std::string_view path, WriteRequest* req,
                                 std::optional<std::string>* update_expression = nullptr) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(req->table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto target, ReadAttributeMap(request, member, path, &v));
  DDB_ASSIGN_OR_RETURN(auto rv, ReadReturnValues(request, &v));
  DDB_ASSIGN_OR_RETURN(req->return_consumed_capacity,
                       ReadAcceptedEnums(request, &v, &req->return_item_collection_metrics));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(ReadConditionalWrite(request, req, update_expression));
  req->return_values = rv.value_or(ReturnValues::kNone);
  return std::move(*target);
}

}  // namespace

Result<PutItemRequest> ReadPutItem(const JsonObject& request) {
  PutItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.item, ReadSingleItemWrite(request, "Item", "item", &req));
  return req;
}

Result<GetItemRequest> ReadGetItem(const JsonObject& request) {
  Violations v;
  GetItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto key, ReadAttributeMap(request, "Key", "key", &v));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadAcceptedEnums(request, &v));
  DDB_RETURN_IF_ERROR(ReadAttributesToGet(request, &req.attributes_to_get, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(auto consistent, GetBool(request, "ConsistentRead"));
  req.consistent_read = consistent.value_or(false);
  DDB_ASSIGN_OR_RETURN(auto projection, GetExpression(request, "ProjectionExpression"));
  if (projection) req.projection_expression = std::string(*projection);
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(request, &req.expression_attribute_names));
  req.key = std::move(*key);
  req.accept_encoded_item = true;  // written straight to JSON
  return req;
}

Result<DeleteItemRequest> ReadDeleteItem(const JsonObject& request) {
  DeleteItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.key, ReadSingleItemWrite(request, "Key", "key", &req));
  return req;
}

Result<UpdateItemRequest> ReadUpdateItem(const JsonObject& request) {
  UpdateItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.key,
                       ReadSingleItemWrite(request, "Key", "key", &req, &req.update_expression));
  return req;
}

Result<std::string> HandlePutItem(Engine& engine, const RequestContext&,
                                  const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(PutItemRequest req, ReadPutItem(request));
  DDB_ASSIGN_OR_RETURN(auto result, engine.PutItem(req));
  return RenderAttributes("Attributes", result.attributes, result.consumed_capacity,
                          req.return_consumed_capacity, result.item_collection_metrics);
}

Result<std::string> HandleGetItem(Engine& engine, const RequestContext&,
                                  const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(GetItemRequest req, ReadGetItem(request));
  DDB_ASSIGN_OR_RETURN(GetItemResult result, engine.GetItem(req));
  return RenderAttributes("Item", result.item, result.consumed_capacity,
                          req.return_consumed_capacity, std::nullopt, result.encoded_item);
}

Result<std::string> HandleDeleteItem(Engine& engine, const RequestContext&,
                                     const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(DeleteItemRequest req, ReadDeleteItem(request));
  DDB_ASSIGN_OR_RETURN(auto result, engine.DeleteItem(req));
  return RenderAttributes("Attributes", result.attributes, result.consumed_capacity,
                          req.return_consumed_capacity, result.item_collection_metrics);
}

Result<std::string> HandleUpdateItem(Engine& engine, const RequestContext&,
                                     const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(UpdateItemRequest req, ReadUpdateItem(request));
  Result<UpdateItemResult> updated = engine.UpdateItem(req);
  if (!updated.ok()) {
    // AttributeUpdates run as a translated UpdateExpression; a type clash between an ADD or
    // DELETE value and the stored attribute is worded for the legacy parameter.
    const Error& e = updated.error();
    if (e.code() == ErrorCode::kValidation && Present(request, "AttributeUpdates") &&
        (e.message().starts_with("An operand in the update expression has an incorrect") ||
         e.message().starts_with("Incorrect operand type for operator or function"))) {
      return Error::Validation(
          "One or more parameter values were invalid: Type mismatch for attribute to update");
    }
    return e;
  }
  UpdateItemResult& result = *updated;
  return RenderAttributes("Attributes", result.attributes, result.consumed_capacity,
                          req.return_consumed_capacity, result.item_collection_metrics);
}

}  // namespace ddb::protocol
