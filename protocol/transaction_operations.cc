// TransactWriteItems and TransactGetItems.
#include <cctype>

#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/request_readers.h"
#include "util/ascii.h"

namespace ddb::protocol {
namespace {

constexpr std::string_view kWriteKinds[] = {"ConditionCheck", "Put", "Delete", "Update"};

// The members every kind of TransactWriteItem shares: table, condition and placeholders.
Status ReadActionCommon(const JsonObject& o, const std::string& path, TransactWriteAction* a,
                        Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto table, GetString(o, "TableName"));
  if (!table) {
    v->NotNull(path + ".tableName");
  } else {
    a->table_name = std::string(TableNameOf(*table));  // a name or the table's ARN
    TableNameViolations(a->table_name, path + ".tableName", v->list());
  }
  DDB_ASSIGN_OR_RETURN(auto condition, GetExpression(o, "ConditionExpression"));
  if (condition) a->condition_expression = std::string(*condition);
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(o, &a->expression_attribute_names));
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeValues(o, &a->expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(auto rvf, GetString(o, "ReturnValuesOnConditionCheckFailure"));
  if (rvf && *rvf != "ALL_OLD" && *rvf != "NONE") {
    v->Enum(*rvf, path + ".returnValuesOnConditionCheckFailure", "ALL_OLD, NONE");
  }
  a->return_old_on_condition_failure = rvf && *rvf == "ALL_OLD";
  return Status::Ok();
}

// TransactItems holds 1 to 100 actions (the 2026 wording names the member, echoes no value).
void CheckTransactItemCount(size_t n, Violations* v) {
  if (n >= 1 && n <= 100) return;
  v->Add("Value at 'TransactItems' failed to satisfy constraint: Member must have length " +
         std::string(n == 0 ? "greater than or equal to 1" : "less than or equal to 100"));
}

}  // namespace

Result<TransactWriteItemsRequest> ReadTransactWriteItems(const JsonObject& request) {
  Violations v;
  TransactWriteItemsRequest req;
  DDB_ASSIGN_OR_RETURN(auto items, GetArray(request, "TransactItems"));
  if (!items) {
    v.NotNull("transactItems");
  } else {
    size_t i = 0;
    for (JsonElement e : *items) {
      ++i;
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) return WrongType("TransactItems", "a list of objects");
      int kinds = 0;
      TransactWriteAction a;
      for (size_t k = 0; k < std::size(kWriteKinds); ++k) {
        DDB_ASSIGN_OR_RETURN(auto body, GetObject(o, kWriteKinds[k]));
        if (!body) continue;
        ++kinds;
        a.kind = static_cast<TransactWriteAction::Kind>(k);
        std::string member(kWriteKinds[k]);
        member[0] = util::AsciiLower(member[0]);
        std::string path = "transactItems." + std::to_string(i) + ".member." + member;
        DDB_RETURN_IF_ERROR(ReadActionCommon(*body, path, &a, &v));
        bool is_put = a.kind == TransactWriteAction::Kind::kPut;
        JsonElement target;
        if (body->at_key(is_put ? "Item" : "Key").get(target) != simdjson::SUCCESS ||
            target.is_null()) {
          v.NotNull(path + (is_put ? ".item" : ".key"));
        } else {
          DDB_ASSIGN_OR_RETURN(a.item_or_key, ParseAttributeMap(target));
        }
        if (a.kind == TransactWriteAction::Kind::kUpdate) {
          DDB_ASSIGN_OR_RETURN(auto update, GetExpression(*body, "UpdateExpression"));
          if (!update) {
            v.NotNull(path + ".updateExpression");
          } else {
            a.update_expression = std::string(*update);
          }
        }
        if (a.kind == TransactWriteAction::Kind::kConditionCheck && !a.condition_expression) {
          v.NotNull(path + ".conditionExpression");
        }
      }
      if (kinds == 0) {
        return Error::Validation(
            "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request");
      }
      if (kinds > 1) {
        return Error::Validation(
            "TransactItems can only contain one of Check, Put, Update or Delete");
      }
      req.actions.push_back(std::move(a));
    }
    CheckTransactItemCount(req.actions.size(), &v);
  }
  DDB_ASSIGN_OR_RETURN(req.client_request_token, ReadClientRequestToken(request, &v));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_ASSIGN_OR_RETURN(req.return_item_collection_metrics,
                       ReadReturnItemCollectionMetrics(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return req;
}

Result<std::string> HandleTransactWriteItems(Engine& engine, const RequestContext&,
                                             const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(TransactWriteItemsRequest req, ReadTransactWriteItems(request));
  DDB_ASSIGN_OR_RETURN(TransactWriteItemsResult result, engine.TransactWriteItems(req));
  JsonWriter w;
  w.BeginObject();
  WriteConsumedCapacityList(w, result.consumed_capacity, req.return_consumed_capacity,
                            result.replayed ? CapacitySplit::kRead : CapacitySplit::kWrite);
  WriteItemCollectionMetricsMap(w, result.item_collection_metrics);
  w.EndObject();
  return w.Take();
}

Result<TransactGetItemsRequest> ReadTransactGetItems(const JsonObject& request) {
  Violations v;
  TransactGetItemsRequest req;
  DDB_ASSIGN_OR_RETURN(auto items, GetArray(request, "TransactItems"));
  if (!items) {
    v.NotNull("transactItems");
  } else {
    size_t i = 0;
    for (JsonElement e : *items) {
      ++i;
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) return WrongType("TransactItems", "a list of objects");
      std::string path = "transactItems." + std::to_string(i) + ".member.get";
      DDB_ASSIGN_OR_RETURN(auto get, GetObject(o, "Get"));
      if (!get) {
        v.NotNull(path);
        continue;
      }
      TransactGetAction a;
      DDB_ASSIGN_OR_RETURN(auto table, GetString(*get, "TableName"));
      if (!table) {
        v.NotNull(path + ".tableName");
      } else {
        a.table_name = std::string(TableNameOf(*table));  // a name or the table's ARN
        TableNameViolations(a.table_name, path + ".tableName", v.list());
      }
      JsonElement key;
      if (get->at_key("Key").get(key) != simdjson::SUCCESS || key.is_null()) {
        v.NotNull(path + ".key");
      } else {
        DDB_ASSIGN_OR_RETURN(a.key, ParseAttributeMap(key));
      }
      DDB_ASSIGN_OR_RETURN(auto projection, GetExpression(*get, "ProjectionExpression"));
      if (projection) a.projection_expression = std::string(*projection);
      DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(*get, &a.expression_attribute_names));
      req.actions.push_back(std::move(a));
    }
    CheckTransactItemCount(req.actions.size(), &v);
  }
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return req;
}

Result<std::string> HandleTransactGetItems(Engine& engine, const RequestContext&,
                                           const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(TransactGetItemsRequest req, ReadTransactGetItems(request));
  DDB_ASSIGN_OR_RETURN(TransactGetItemsResult result, engine.TransactGetItems(req));
  JsonWriter w;
  w.BeginObject();
  WriteConsumedCapacityList(w, result.consumed_capacity, req.return_consumed_capacity,
                            CapacitySplit::kRead);
  w.Key("Responses");
  w.BeginArray();
  for (const auto& item : result.items) {
    w.BeginObject();
    // "If the requested item has no projected attributes, the corresponding ItemResponse
    // object is an empty map": unlike GetItem's {"Item": {}}, no Item member at all.
    if (item && !item->empty()) {
      w.Key("Item");
      WriteAttributeMap(w, *item);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
