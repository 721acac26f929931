// Request members shared by several operations.
#include <cctype>
#include <set>

#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/operations.h"

namespace ddb::protocol {

bool Present(const JsonObject& request, std::string_view member) {
  JsonElement e;
  return request.at_key(member).get(e) == simdjson::SUCCESS && !e.is_null();
}

Result<std::optional<std::string>> ReadClientRequestToken(const JsonObject& request,
                                                          Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto token, GetString(request, "ClientRequestToken"));
  if (!token) return std::optional<std::string>();
  v->Length(*token, "clientRequestToken", 1, 36);
  return std::optional<std::string>(std::string(*token));
}

Result<std::string> ReadTableName(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(request, "TableName"));
  if (!name) {
    v->NotNull("tableName");
    return std::string();
  }
  // The service also accepts the table's ARN wherever a table name goes.
  std::string_view short_name = TableNameOf(*name);
  TableNameViolations(short_name, "tableName", v->list());
  return std::string(short_name);
}

namespace {

// Placeholder keys are "#" or ":" followed by one or more [A-Za-z0-9_].
bool ValidPlaceholderKey(std::string_view key, char sigil) {
  if (key.size() < 2 || key[0] != sigil) return false;
  for (char c : key.substr(1)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Status CheckPlaceholderKeys(const JsonObject& obj, std::string_view member, char sigil) {
  if (obj.size() == 0) return Error::Validation(std::string(member) + " must not be empty");
  for (auto field : obj) {
    if (field.key.size() > 255) {
      return Error::Validation(std::string(member) +
                               " contains invalid key: The expression attribute map contains a "
                               "key that is too long; size of key: " +
                               std::to_string(field.key.size()));
    }
    if (!ValidPlaceholderKey(field.key, sigil)) {
      return Error::Validation(std::string(member) +
                               " contains invalid key: Syntax error; key: \"" +
                               std::string(field.key) + "\"");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ReadExpressionAttributeNames(const JsonObject& request,
                                    std::optional<std::map<std::string, std::string>>* names) {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(request, "ExpressionAttributeNames"));
  if (!obj) return Status::Ok();
  names->emplace();
  DDB_RETURN_IF_ERROR(CheckPlaceholderKeys(*obj, "ExpressionAttributeNames", '#'));
  for (auto field : *obj) {
    std::string_view v;
    if (field.value.get(v) != simdjson::SUCCESS) {
      return WrongType("ExpressionAttributeNames", "a map of strings");
    }
    if (v.empty()) {
      return Error::Validation(
          "ExpressionAttributeNames contains invalid value: Empty attribute name for key " +
          std::string(field.key));
    }
    DDB_RETURN_IF_ERROR(CheckAttributeNameSize(v));
    (*names)->emplace(std::string(field.key), std::string(v));
  }
  return Status::Ok();
}

Status ReadExpressionAttributeValues(const JsonObject& request, std::optional<Item>* values) {
  JsonElement e;
  if (request.at_key("ExpressionAttributeValues").get(e) != simdjson::SUCCESS || e.is_null()) {
    return Status::Ok();
  }
  values->emplace();
  JsonObject obj;
  if (e.get(obj) != simdjson::SUCCESS) return WrongType("ExpressionAttributeValues", "an object");
  DDB_RETURN_IF_ERROR(CheckPlaceholderKeys(obj, "ExpressionAttributeValues", ':'));
  for (auto field : obj) {
    Result<AttributeValue> v = ParseAttributeValue(field.value);
    if (!v.ok()) {
      // An error already in the validation envelope (an empty set, a name too large) is
      // answered as it is, not wrapped for its placeholder.
      if (v.error().code() != ErrorCode::kValidation || InValidationEnvelope(v.error())) {
        return v.error();
      }
      return Error::Validation("ExpressionAttributeValues contains invalid value: " +
                               v.error().message() + " for key " + std::string(field.key));
    }
    (*values)->insert_or_assign(std::string(field.key), std::move(v).value());
  }
  return Status::Ok();
}

Result<std::optional<std::string_view>> GetExpression(const JsonObject& request,
                                                      std::string_view member) {
  constexpr size_t kMaxExpressionSize = 4096;
  DDB_ASSIGN_OR_RETURN(auto text, GetString(request, member));
  if (text && text->size() > kMaxExpressionSize) {
    return Error::Validation("Invalid " + std::string(member) +
                             ": Expression size has exceeded the maximum allowed size; "
                             "expression size: " +
                             std::to_string(text->size()));
  }
  return text;
}

Status ReadAttributesToGet(const JsonObject& request, std::vector<std::string>* names,
                           Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(request, "AttributesToGet"));
  if (!arr) return Status::Ok();
  std::set<std::string_view> seen;
  for (JsonElement e : *arr) {
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS) return WrongType("AttributesToGet", "a list of strings");
    DDB_RETURN_IF_ERROR(CheckAttributeNameSize(s));
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

Result<bool> ReadReturnItemCollectionMetrics(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto ricm, GetString(request, "ReturnItemCollectionMetrics"));
  if (ricm && *ricm != "SIZE" && *ricm != "NONE") {
    v->Enum(*ricm, "returnItemCollectionMetrics", "SIZE, NONE");
  }
  return ricm && *ricm == "SIZE";
}

}  // namespace ddb::protocol
