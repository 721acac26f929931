// Request members shared by several operations.
#include <set>

#include "engine/table_validation.h"
#include "protocol/attribute_value_json.h"
#include "protocol/operations.h"

namespace ddb::protocol {

bool Present(const JsonObject& request, std::string_view member) {
  JsonElement e;
  return request.at_key(member).get(e) == simdjson::SUCCESS && !e.is_null();
}

Result<std::string> ReadTableName(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "TableName"));
  if (!name) {
    v->NotNull("tableName");
    return std::string();
  }
  TableNameViolations(*name, "tableName", v->list());
  return std::string(*name);
}

Status ReadExpressionAttributeNames(const JsonObject& request,
                                    std::map<std::string, std::string>* names, bool* present) {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(request, "ExpressionAttributeNames"));
  *present = obj.has_value();
  if (!obj) return Status::Ok();
  for (auto field : *obj) {
    std::string_view v;
    if (field.value.get(v) != simdjson::SUCCESS) {
      return WrongType("ExpressionAttributeNames", "a map of strings");
    }
    names->emplace(std::string(field.key), std::string(v));
  }
  return Status::Ok();
}

Status ReadExpressionAttributeValues(const JsonObject& request, Item* values, bool* present) {
  JsonElement e;
  *present =
      request.at_key("ExpressionAttributeValues").get(e) == simdjson::SUCCESS && !e.is_null();
  if (!*present) return Status::Ok();
  JsonObject obj;
  if (e.get(obj) != simdjson::SUCCESS) return WrongType("ExpressionAttributeValues", "an object");
  for (auto field : obj) {
    Result<AttributeValue> v = ParseAttributeValue(field.value);
    if (!v.ok()) {
      if (v.error().code() != ErrorCode::kValidation) return v.error();
      return Error::Validation("ExpressionAttributeValues contains invalid value: " +
                               v.error().message() + " for key " + std::string(field.key));
    }
    values->insert_or_assign(std::string(field.key), std::move(v).value());
  }
  return Status::Ok();
}

Status ReadAttributesToGet(const JsonObject& request, std::vector<std::string>* names,
                           Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(request, "AttributesToGet"));
  if (!arr) return Status::Ok();
  std::set<std::string_view> seen;
  for (JsonElement e : *arr) {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS) return WrongType("AttributesToGet", "a list of strings");
    if (!seen.insert(s).second) {
      return Error::Validation(
          "One or more parameter values were invalid: Duplicate value in attribute name: " +
          std::string(s));
    }
    names->emplace_back(s);
  }
  if (names->empty()) {
    v->Add(
        "Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have "
        "length greater than or equal to 1");
  }
  return Status::Ok();
}

}  // namespace ddb::protocol
