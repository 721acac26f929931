// UpdateContributorInsights, DescribeContributorInsights, ListContributorInsights.
#include "ddb/import_export.h"
#include "ddb/limits.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

Result<std::optional<std::string>> ReadIndexName(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto index, GetString(request, "IndexName"));
  if (!index) return std::optional<std::string>();
  std::vector<std::string> violations;
  TableNameViolations(*index, "indexName", &violations);
  for (auto& s : violations) v->Add(std::move(s));
  return std::optional<std::string>(std::string(*index));
}

void WriteKeys(JsonWriter& w, const char* name, const std::vector<ContributorKey>& keys) {
  // ddb's addition (the service shows these in CloudWatch, not in the API): the ranking.
  w.Key(name);
  w.BeginArray();
  for (const auto& k : keys) {
    w.BeginObject();
    w.Key("PartitionKey");
    w.String(k.partition_key);
    w.OptionalString("SortKey", k.sort_key);
    w.Key("Value");
    w.Double(k.value);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

Result<std::string> HandleUpdateContributorInsights(Engine& engine, const RequestContext& ctx,
                                                    const JsonObject& request) {
  Violations v;
  UpdateContributorInsightsRequest req;
  DDB_ASSIGN_OR_RETURN(auto table, GetString(request, "TableName"));
  if (!table) {
    v.NotNull("tableName");
  } else {
    v.Length(*table, "tableName", 1, 1024);
    req.table_name = std::string(*table);
  }
  DDB_ASSIGN_OR_RETURN(req.index_name, ReadIndexName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto action, GetString(request, "ContributorInsightsAction"));
  if (!action) {
    v.NotNull("contributorInsightsAction");
  } else if (*action != "ENABLE" && *action != "DISABLE") {
    v.Enum(*action, "contributorInsightsAction", "ENABLE, DISABLE");
  }
  DDB_ASSIGN_OR_RETURN(req.mode, ReadEnum<ContributorInsightsMode>(
                                     request, "ContributorInsightsMode", "contributorInsightsMode",
                                     "ACCESSED_AND_THROTTLED_KEYS, THROTTLED_KEYS", &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  req.enable = *action == "ENABLE";
  DDB_ASSIGN_OR_RETURN(ContributorInsightsDescription d,
                       engine.UpdateContributorInsights(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("TableName");
  w.String(d.table_name);
  w.OptionalString("IndexName", d.index_name);
  w.Key("ContributorInsightsStatus");
  w.String(EnumName(d.status));
  w.OptionalEnum("ContributorInsightsMode", d.mode);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleDescribeContributorInsights(Engine& engine, const RequestContext& ctx,
                                                      const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(auto index, ReadIndexName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ContributorInsightsDescription d,
                       engine.DescribeContributorInsights(ctx, table, index));
  JsonWriter w;
  w.BeginObject();
  w.Key("TableName");
  w.String(d.table_name);
  w.OptionalString("IndexName", d.index_name);
  w.Key("ContributorInsightsStatus");
  w.String(EnumName(d.status));
  if (!d.rule_list.empty()) {
    w.Key("ContributorInsightsRuleList");
    w.BeginArray();
    for (const auto& r : d.rule_list) w.String(r);
    w.EndArray();
  }
  w.OptionalDouble("LastUpdateDateTime", d.last_update);
  if (d.mode && d.status == ContributorInsightsStatus::kEnabled) {
    w.Key("ContributorInsightsMode");
    w.String(EnumName(*d.mode));
  }
  if (d.status == ContributorInsightsStatus::kEnabled) {
    WriteKeys(w, "DdbMostAccessedKeys", d.most_accessed_keys);
    WriteKeys(w, "DdbMostThrottledKeys", d.most_throttled_keys);
  }
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleListContributorInsights(Engine& engine, const RequestContext& ctx,
                                                  const JsonObject& request) {
  Violations v;
  ListContributorInsightsRequest req;
  DDB_ASSIGN_OR_RETURN(auto table, GetString(request, "TableName"));
  if (table) req.table_name = std::string(*table);
  DDB_ASSIGN_OR_RETURN(auto max, GetInt(request, "MaxResults"));
  if (max && v.Range(*max, "maxResults", 0, 100)) req.max_results = static_cast<int>(*max);
  DDB_ASSIGN_OR_RETURN(auto token, GetString(request, "NextToken"));
  if (token) req.next_token = std::string(*token);
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ListContributorInsightsResult r, engine.ListContributorInsights(ctx, req));
  JsonWriter w;
  w.BeginObject();
  w.Key("ContributorInsightsSummaries");
  w.BeginArray();
  for (const auto& d : r.summaries) {
    w.BeginObject();
    w.Key("TableName");
    w.String(d.table_name);
    w.OptionalString("IndexName", d.index_name);
    w.Key("ContributorInsightsStatus");
    w.String(EnumName(d.status));
    if (d.mode && d.status == ContributorInsightsStatus::kEnabled) {
      w.Key("ContributorInsightsMode");
      w.String(EnumName(*d.mode));
    }
    w.EndObject();
  }
  w.EndArray();
  w.OptionalString("NextToken", r.next_token);
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
