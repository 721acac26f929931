// PutItem, GetItem, DeleteItem.
#include <set>

#include "protocol/attribute_value_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

// Members that belong to conditional writes, which come with the expressions work.
// Until then a request using them is refused rather than silently written unconditionally.
constexpr std::string_view kConditionMembers[] = {"ConditionExpression", "Expected",
                                                  "ConditionalOperator"};

Status RefuseConditions(const JsonObject& request) {
  for (std::string_view m : kConditionMembers) {
    JsonElement e;
    if (request.at_key(m).get(e) == simdjson::SUCCESS && !e.is_null()) {
      return Error::Validation(std::string(m) + " is not supported by this server yet");
    }
  }
  return Status::Ok();
}

Result<std::optional<ReturnValues>> ReadReturnValues(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto rv, GetString(request, "ReturnValues"));
  if (!rv) return std::optional<ReturnValues>();
  if (*rv == "NONE") return std::optional(ReturnValues::kNone);
  if (*rv == "ALL_OLD") return std::optional(ReturnValues::kAllOld);
  if (*rv == "UPDATED_OLD") return std::optional(ReturnValues::kUpdatedOld);
  if (*rv == "ALL_NEW") return std::optional(ReturnValues::kAllNew);
  if (*rv == "UPDATED_NEW") return std::optional(ReturnValues::kUpdatedNew);
  v->Enum(*rv, "returnValues", "ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW");
  return std::optional<ReturnValues>();
}

// Enum members accepted now whose effect (consumed capacity, item collection metrics)
// comes with the capacity work.
Status ReadAcceptedEnums(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto rcc, GetString(request, "ReturnConsumedCapacity"));
  if (rcc && *rcc != "INDEXES" && *rcc != "TOTAL" && *rcc != "NONE") {
    v->Enum(*rcc, "returnConsumedCapacity", "INDEXES, TOTAL, NONE");
  }
  DDB_ASSIGN_OR_RETURN(auto ricm, GetString(request, "ReturnItemCollectionMetrics"));
  if (ricm && *ricm != "SIZE" && *ricm != "NONE") {
    v->Enum(*ricm, "returnItemCollectionMetrics", "SIZE, NONE");
  }
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(request, "ReturnValuesOnConditionCheckFailure"));
  if (rvf && *rvf != "ALL_OLD" && *rvf != "NONE") {
    v->Enum(*rvf, "returnValuesOnConditionCheckFailure", "ALL_OLD, NONE");
  }
  return Status::Ok();
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

std::string RenderAttributes(std::string_view member, const std::optional<Item>& item) {
  JsonWriter w;
  w.BeginObject();
  if (item) {
    w.Key(member);
    WriteAttributeMap(w, *item);
  }
  w.EndObject();
  return w.Take();
}

// GetItem's projection: AttributesToGet, or a ProjectionExpression of top-level names
// (with #name placeholders). Nested document paths come with the expressions work.
Result<std::vector<std::string>> ReadProjection(const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(auto attrs, GetArray(request, "AttributesToGet"));
  DDB_ASSIGN_OR_RETURN(auto expr, GetString(request, "ProjectionExpression"));
  DDB_ASSIGN_OR_RETURN(auto names, GetObject(request, "ExpressionAttributeNames"));
  std::vector<std::string> out;
  if (attrs && expr) {
    return Error::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{ProjectionExpression}");
  }
  if (names && !expr) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (attrs) {
    std::set<std::string> seen;
    for (JsonElement e : *attrs) {
      std::string_view s;
      if (e.get(s) != simdjson::SUCCESS) return WrongType("AttributesToGet", "a list of strings");
      if (!seen.insert(std::string(s)).second) {
        return Error::Validation(
            "One or more parameter values were invalid: Duplicate value in "
            "attribute name: " +
            std::string(s));
      }
      out.emplace_back(s);
    }
    if (out.empty()) {
      return Error::Validation(
          "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy "
          "constraint: Member must have length greater than or equal to 1");
    }
    return out;
  }
  if (!expr) return out;
  std::set<std::string> used_names;
  std::string_view rest = *expr;
  bool any = false;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view token = rest.substr(0, comma);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front())))
      token.remove_prefix(1);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
      token.remove_suffix(1);
    if (token.empty()) {
      if (!any && comma == std::string_view::npos) {
        return Error::Validation("Invalid ProjectionExpression: The expression can not be empty;");
      }
      return Error::Validation(
          "Invalid ProjectionExpression: Syntax error; token: \",\", near: \"" +
          std::string(*expr) + "\"");
    }
    any = true;
    if (token.find_first_of(".[] ") != std::string_view::npos) {
      return Error::Validation(
          "Invalid ProjectionExpression: nested document paths are not supported by this server "
          "yet: " +
          std::string(token));
    }
    if (token.front() == '#') {
      std::string_view resolved;
      JsonElement e;
      if (!names || names->at_key(token).get(e) != simdjson::SUCCESS ||
          e.get(resolved) != simdjson::SUCCESS) {
        return Error::Validation(
            "Invalid ProjectionExpression: An expression attribute name used in the document "
            "path is not defined; attribute name: " +
            std::string(token));
      }
      used_names.insert(std::string(token));
      out.emplace_back(resolved);
    } else {
      out.emplace_back(token);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (names) {
    std::string unused;
    for (auto field : *names) {
      if (!used_names.count(std::string(field.key))) {
        unused += (unused.empty() ? "" : ", ") + std::string(field.key);
      }
    }
    if (!unused.empty()) {
      return Error::Validation(
          "Value provided in ExpressionAttributeNames unused in expressions: "
          "keys: {" +
          unused + "}");
    }
  }
  return out;
}

}  // namespace

Result<std::string> HandlePutItem(Engine& engine, const RequestContext&,
                                  const JsonObject& request) {
  Violations v;
  PutItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto item, ReadAttributeMap(request, "Item", "item", &v));
  DDB_ASSIGN_OR_RETURN(auto rv, ReadReturnValues(request, &v));
  DDB_RETURN_IF_ERROR(ReadAcceptedEnums(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(RefuseConditions(request));
  req.item = std::move(*item);
  req.return_values = rv.value_or(ReturnValues::kNone);
  DDB_ASSIGN_OR_RETURN(PutItemResult result, engine.PutItem(req));
  return RenderAttributes("Attributes", result.attributes);
}

Result<std::string> HandleGetItem(Engine& engine, const RequestContext&,
                                  const JsonObject& request) {
  Violations v;
  GetItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto key, ReadAttributeMap(request, "Key", "key", &v));
  DDB_RETURN_IF_ERROR(ReadAcceptedEnums(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(auto consistent, GetBool(request, "ConsistentRead"));
  req.consistent_read = consistent.value_or(false);
  DDB_ASSIGN_OR_RETURN(req.projection, ReadProjection(request));
  req.key = std::move(*key);
  DDB_ASSIGN_OR_RETURN(GetItemResult result, engine.GetItem(req));
  return RenderAttributes("Item", result.item);
}

Result<std::string> HandleDeleteItem(Engine& engine, const RequestContext&,
                                     const JsonObject& request) {
  Violations v;
  DeleteItemRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto key, ReadAttributeMap(request, "Key", "key", &v));
  DDB_ASSIGN_OR_RETURN(auto rv, ReadReturnValues(request, &v));
  DDB_RETURN_IF_ERROR(ReadAcceptedEnums(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(RefuseConditions(request));
  req.key = std::move(*key);
  req.return_values = rv.value_or(ReturnValues::kNone);
  DDB_ASSIGN_OR_RETURN(DeleteItemResult result, engine.DeleteItem(req));
  return RenderAttributes("Attributes", result.attributes);
}

}  // namespace ddb::protocol
