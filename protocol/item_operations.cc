// PutItem, GetItem, DeleteItem.

#include "ddb/limits.h"
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

constexpr std::string_view kReturnValuesListed = "ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW";

// The service's newer wording of a ReturnValues or ReturnItemCollectionMetrics violation.
constexpr std::string_view kReturnValuesViolation =
    "Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, "
    "ALL_NEW, UPDATE_NEW, NONE]";
constexpr std::string_view kCollectionMetricsViolation =
    "ReturnItemCollectionMetrics can only be SIZE or NONE";

// TableName's violations; an empty name's subject is `empty_subject` (the service's two
// validators word it differently, both with a minimum of 1).
void TableNameMember(const std::optional<std::string_view>& name, std::string_view empty_subject,
                     Violations* v) {
  if (!name) {
    v->NotNull("tableName");
  } else if (name->empty()) {
    v->Add(std::string(empty_subject) +
           " failed to satisfy constraint: Member must have length greater than or equal to 1");
  } else {
    TableNameViolations(TableNameOf(*name), "tableName", v->list());
  }
}

// The members PutItem, UpdateItem and DeleteItem share: TableName, the item or key
// ("member"), ReturnValues, the capacity/metrics enums, ConditionalOperator, then the
// condition and placeholders (and UpdateExpression, when given). Returns the item or key.
//
// The service (2026) validates these members in one of two ways. Without the item or key,
// every member constraint is listed together in the older wording, in the order below.
// With it, a table-name violation comes alone ("Value at 'TableName'" for an empty name),
// then UpdateItem reports a bad ReturnValues alone, PutItem and DeleteItem list the enums,
// ReturnValues and ReturnItemCollectionMetrics in the newer wording.
template <typename WriteRequest>
Result<Item> ReadSingleItemWrite(const JsonObject& request, std::string_view member,
                                 std::string_view path, WriteRequest* req,
                                 std::optional<std::string>* update_expression = nullptr) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "TableName"));
  JsonElement target;
  const bool has_target =
      request.at_key(member).get(target) == simdjson::SUCCESS && !target.is_null();
  DDB_ASSIGN_OR_RETURN(auto rv_text, GetString(request, "ReturnValues"));
  std::optional<ReturnValues> rv = rv_text ? EnumFromName<ReturnValues>(*rv_text) : std::nullopt;
  DDB_ASSIGN_OR_RETURN(auto ricm, GetString(request, "ReturnItemCollectionMetrics"));
  const bool bad_ricm = ricm && *ricm != "SIZE" && *ricm != "NONE";
  DDB_ASSIGN_OR_RETURN(auto op, GetString(request, "ConditionalOperator"));

  Violations v;
  DDB_ASSIGN_OR_RETURN(req->return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  if (!has_target) {
    TableNameMember(name, "Value '' at 'tableName'", &v);
    if (rv_text && !rv) v.Enum(*rv_text, "returnValues", kReturnValuesListed);
    if (bad_ricm) v.Enum(*ricm, "returnItemCollectionMetrics", "SIZE, NONE");
  } else {
    Violations table;
    TableNameMember(name, "Value at 'TableName'", &table);
    DDB_RETURN_IF_ERROR(table.ToStatus());
    if (rv_text && !rv && update_expression) {
      return ValidationErrors({std::string(kReturnValuesViolation)});
    }
    if (rv_text && !rv) v.Add(std::string(kReturnValuesViolation));
    if (bad_ricm) v.Add(std::string(kCollectionMetricsViolation));
  }
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(request, "ReturnValuesOnConditionCheckFailure"));
  if (rvf && *rvf != "ALL_OLD" && *rvf != "NONE") {
    v.Enum(*rvf, "returnValuesOnConditionCheckFailure", "ALL_OLD, NONE");
  }
  if (op && *op != "AND" && *op != "OR") v.Enum(*op, "conditionalOperator", "OR, AND");
  if (!has_target) v.NotNull(path);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  req->table_name = std::string(TableNameOf(*name));
  req->return_item_collection_metrics = ricm && *ricm == "SIZE";
  DDB_ASSIGN_OR_RETURN(Item item, ParseAttributeMap(target));
  DDB_RETURN_IF_ERROR(ReadConditionalWrite(request, req, update_expression));
  req->return_values = rv.value_or(ReturnValues::kNone);
  return item;
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
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
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
