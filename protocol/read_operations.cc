// Query and Scan.
#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/legacy_parameters.h"
#include "protocol/operations.h"
#include "protocol/request_readers.h"

namespace ddb::protocol {
namespace {

Status ReadBase(const JsonObject& request, ReadRequestBase* req, Violations* v) {
  DDB_ASSIGN_OR_RETURN(req->table_name, ReadTableName(request, v));
  DDB_ASSIGN_OR_RETURN(auto index, GetString(request, "IndexName"));
  if (index) {
    req->index_name = std::string(*index);
    TableNameViolations(*index, "indexName", v->list());
  }
  DDB_ASSIGN_OR_RETURN(auto filter, GetExpression(request, "FilterExpression"));
  if (filter) req->filter_expression = std::string(*filter);
  DDB_ASSIGN_OR_RETURN(auto projection, GetExpression(request, "ProjectionExpression"));
  if (projection) req->projection_expression = std::string(*projection);
  DDB_RETURN_IF_ERROR(ReadAttributesToGet(request, &req->attributes_to_get, v));
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(request, &req->expression_attribute_names));
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeValues(request, &req->expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(req->select, ReadEnum<Select>(request, "Select", "select",
                                                     "SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, "
                                                     "ALL_PROJECTED_ATTRIBUTES",
                                                     v));
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit) {
    v->MemberRange(*limit, "Limit", 1);
    req->limit = *limit;
  }
  DDB_ASSIGN_OR_RETURN(auto consistent, GetBool(request, "ConsistentRead"));
  req->consistent_read = consistent.value_or(false);
  JsonElement esk;
  if (request.at_key("ExclusiveStartKey").get(esk) == simdjson::SUCCESS && !esk.is_null()) {
    DDB_ASSIGN_OR_RETURN(Item key, ParseAttributeMap(esk));
    req->exclusive_start_key = std::move(key);
  }
  DDB_ASSIGN_OR_RETURN(req->return_consumed_capacity, ReadReturnConsumedCapacity(request, v));
  return Status::Ok();
}

Result<std::string> RenderReadResult(const ReadResult& r, bool count_only,
                                     ReturnConsumedCapacity mode) {
  JsonWriter w;
  size_t hint = 128;
  if (!count_only) {
    for (const auto& item : r.items) hint += JsonSizeHint(item) + 1;
    // Stored form to JSON: names and values in quotes, base64 and punctuation; about 2x.
    hint += 2 * r.encoded_items.size();
  }
  w.Reserve(hint);
  w.BeginObject();
  if (!count_only) {
    w.Key("Items");
    w.BeginArray();
    for (const auto& item : r.items) WriteAttributeMap(w, item);
    size_t begin = 0;
    for (size_t end : r.encoded_ends) {
      if (!WriteEncodedItem(w, std::string_view(r.encoded_items).substr(begin, end - begin))) {
        return Error::Internal("unreadable stored item");
      }
      begin = end;
    }
    w.EndArray();
  }
  w.Key("Count");
  w.Int(r.count);
  w.Key("ScannedCount");
  w.Int(r.scanned_count);
  if (r.last_evaluated_key) {
    w.Key("LastEvaluatedKey");
    WriteAttributeMap(w, *r.last_evaluated_key);
  }
  WriteConsumedCapacity(w, r.consumed_capacity, mode);
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<QueryRequest> ReadQuery(const JsonObject& request) {
  Violations v;
  QueryRequest req;
  req.accept_encoded_items = true;  // RenderReadResult writes them straight to JSON
  // Beside a Select outside its enum, Query answers a ConditionalOperator outside its enum
  // first, alone and bare, with the value set as the service prints it (its 2026 record);
  // alone, it gets the usual violation (ReadConditionalOperator).
  DDB_ASSIGN_OR_RETURN(auto op, GetString(request, "ConditionalOperator"));
  DDB_ASSIGN_OR_RETURN(auto select, GetString(request, "Select"));
  if (op && *op != "AND" && *op != "OR" && select && !EnumFromName<Select>(*select)) {
    return Error::Validation(
        "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]");
  }
  DDB_RETURN_IF_ERROR(ReadBase(request, &req, &v));
  DDB_ASSIGN_OR_RETURN(auto forward, GetBool(request, "ScanIndexForward"));
  req.scan_index_forward = forward.value_or(true);
  DDB_ASSIGN_OR_RETURN(auto kce, GetExpression(request, "KeyConditionExpression"));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(ApplyLegacyQueryParameters(request, &req));
  if (kce) {
    req.key_condition_expression = std::string(*kce);
  } else if (!Present(request, "KeyConditions")) {
    return Error::Validation(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.");
  }
  return req;
}

Result<ScanRequest> ReadScan(const JsonObject& request) {
  Violations v;
  ScanRequest req;
  req.accept_encoded_items = true;  // RenderReadResult writes them straight to JSON
  DDB_RETURN_IF_ERROR(ReadBase(request, &req, &v));
  DDB_ASSIGN_OR_RETURN(req.segment, GetInt(request, "Segment"));
  DDB_ASSIGN_OR_RETURN(req.total_segments, GetInt(request, "TotalSegments"));
  if (req.segment) v.MemberRange(*req.segment, "Segment", 0, 999999);
  if (req.total_segments) v.Range(*req.total_segments, "totalSegments", 1, 1000000);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_RETURN_IF_ERROR(ApplyLegacyScanParameters(request, &req));
  return req;
}

Result<std::string> HandleQuery(Engine& engine, const RequestContext&, const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(QueryRequest req, ReadQuery(request));
  Result<QueryResult> result = engine.Query(req);
  if (!result.ok()) return LegacyQueryError(request, result.error());
  return RenderReadResult(*result, req.select == Select::kCount, req.return_consumed_capacity);
}

Result<std::string> HandleScan(Engine& engine, const RequestContext&, const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(ScanRequest req, ReadScan(request));
  DDB_ASSIGN_OR_RETURN(ScanResult result, engine.Scan(req));
  return RenderReadResult(result, req.select == Select::kCount, req.return_consumed_capacity);
}

}  // namespace ddb::protocol
