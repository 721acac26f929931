// SearchVectors (the service's API reference, API_SearchVectors; member names as the SDKs'
// model: TableName, IndexName, SearchVector, TopK, SearchConditionExpression,
// ProjectionExpression, ExpressionAttributeNames/Values, ReturnConsumedCapacity; the answer's
// SearchResults [{Item, Score}] and ConsumedCapacity {VectorSearchRequestBytes}).
#include "ddb/limits.h"
#include "protocol/attribute_value_json.h"
#include "protocol/capacity_json.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"

namespace ddb::protocol {

Result<std::string> HandleSearchVectors(Engine& engine, const RequestContext& ctx,
                                        const JsonObject& request) {
  Violations v;
  SearchVectorsRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto index, GetString(request, "IndexName"));
  if (!index) {
    v.NotNull("indexName");
  } else {
    req.index_name = std::string(*index);
    TableNameViolations(*index, "indexName", v.list());
  }
  DDB_ASSIGN_OR_RETURN(auto vector, GetArray(request, "SearchVector"));
  if (!vector) {
    v.NotNull("searchVector");
  } else {
    for (JsonElement e : *vector) {
      DDB_ASSIGN_OR_RETURN(AttributeValue value, ParseAttributeValue(e));
      req.search_vector.push_back(std::move(value));
    }
    if (req.search_vector.empty()) {
      v.Add(
          "Value '[]' at 'searchVector' failed to satisfy constraint: Member must have length "
          "greater than or equal to 1");
    }
  }
  DDB_ASSIGN_OR_RETURN(auto top_k, GetInt(request, "TopK"));
  if (!top_k) {
    v.NotNull("topK");
  } else {
    req.top_k = *top_k;
  }
  DDB_ASSIGN_OR_RETURN(auto condition, GetExpression(request, "SearchConditionExpression"));
  if (condition) req.search_condition_expression = std::string(*condition);
  DDB_ASSIGN_OR_RETURN(auto projection, GetExpression(request, "ProjectionExpression"));
  if (projection) req.projection_expression = std::string(*projection);
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeNames(request, &req.expression_attribute_names));
  DDB_RETURN_IF_ERROR(ReadExpressionAttributeValues(request, &req.expression_attribute_values));
  DDB_ASSIGN_OR_RETURN(req.return_consumed_capacity, ReadReturnConsumedCapacity(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());

  DDB_ASSIGN_OR_RETURN(SearchVectorsResult result, engine.SearchVectors(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("SearchResults");
  w.BeginArray();
  for (const auto& r : result.results) {
    w.BeginObject();
    w.Key("Item");
    WriteAttributeMap(w, r.item);
    w.Key("Score");
    w.Number(r.score);
    w.EndObject();
  }
  w.EndArray();
  if (result.vector_search_request_bytes) {
    w.Key("ConsumedCapacity");
    w.BeginObject();
    w.Key("VectorSearchRequestBytes");
    w.Int(*result.vector_search_request_bytes);
    w.EndObject();
  }
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
