// DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling (docs/global-tables.md):
// every replica's auto scaling settings, kept by each Region's table (Engine::
// UpdateAutoScaling) and described together. Write settings go to every replica, as the
// service keeps them equal; read settings to the replica named. Nothing scales.
#include <algorithm>
#include <cmath>

#include "ddb/limits.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

// The policy Application Auto Scaling names after the capacity it tracks, when the update
// names none: "DynamoDBWriteCapacityUtilization:table/T" (".../index/I" for an index's).
std::string DefaultPolicyName(bool write, const std::string& table, const std::string& index) {
  std::string name =
      write ? "DynamoDBWriteCapacityUtilization:table/" : "DynamoDBReadCapacityUtilization:table/";
  name += table;
  if (!index.empty()) name += "/index/" + index;
  return name;
}

// A number member read as a double (TargetValue); absent: nullopt.
Result<std::optional<double>> GetDouble(const JsonObject& obj, std::string_view key) {
  JsonElement e;
  if (obj.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::optional<double>();
  double d;
  if (e.get(d) != simdjson::SUCCESS) return WrongType(key, "a number");
  return std::optional<double>(d);
}

// One AutoScalingSettingsUpdate member of `in` (absent: nullopt), its constraints checked
// at `path` as the service names them ("provisionedWriteCapacityAutoScalingUpdate").
Result<std::optional<AutoScalingSettingsUpdate>> ReadSettingsUpdate(
    const JsonObject& in, std::string_view member, const std::string& path, bool write,
    const std::string& table, const std::string& index, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto o, GetObject(in, member));
  if (!o) return std::optional<AutoScalingSettingsUpdate>();
  AutoScalingSettingsUpdate u;
  DDB_ASSIGN_OR_RETURN(u.minimum_units, GetInt(*o, "MinimumUnits"));
  DDB_ASSIGN_OR_RETURN(u.maximum_units, GetInt(*o, "MaximumUnits"));
  DDB_ASSIGN_OR_RETURN(u.disabled, GetBool(*o, "AutoScalingDisabled"));
  DDB_ASSIGN_OR_RETURN(auto role, GetString(*o, "AutoScalingRoleArn"));
  if (u.minimum_units) v->Range(*u.minimum_units, path + ".minimumUnits", 1);
  if (u.maximum_units) v->Range(*u.maximum_units, path + ".maximumUnits", 1);
  if (role) {
    v->Length(*role, path + ".autoScalingRoleArn", 1, 1600);
    u.role_arn = std::string(*role);
  }
  DDB_ASSIGN_OR_RETURN(auto policy, GetObject(*o, "ScalingPolicyUpdate"));
  if (policy) {
    const std::string ppath = path + ".scalingPolicyUpdate";
    AutoScalingPolicy p;
    DDB_ASSIGN_OR_RETURN(auto name, GetString(*policy, "PolicyName"));
    if (name) {
      v->Length(*name, ppath + ".policyName", 1, 256);
      p.policy_name = std::string(*name);
    } else {
      p.policy_name = DefaultPolicyName(write, table, index);
    }
    DDB_ASSIGN_OR_RETURN(auto config,
                         GetObject(*policy, "TargetTrackingScalingPolicyConfiguration"));
    if (!config) {
      v->NotNull(ppath + ".targetTrackingScalingPolicyConfiguration");
    } else {
      DDB_ASSIGN_OR_RETURN(auto target, GetDouble(*config, "TargetValue"));
      if (!target) {
        v->NotNull(ppath + ".targetTrackingScalingPolicyConfiguration.targetValue");
      } else {
        p.target_value = *target;
      }
      DDB_ASSIGN_OR_RETURN(p.disable_scale_in, GetBool(*config, "DisableScaleIn"));
      DDB_ASSIGN_OR_RETURN(p.scale_in_cooldown, GetInt(*config, "ScaleInCooldown"));
      DDB_ASSIGN_OR_RETURN(p.scale_out_cooldown, GetInt(*config, "ScaleOutCooldown"));
    }
    u.policy = std::move(p);
  }
  return std::optional<AutoScalingSettingsUpdate>(std::move(u));
}

// The objects of a list member, each with its path ("replicaUpdates.1.member"); a present
// empty list adds the service's minimum-length violation.
Result<std::vector<std::pair<JsonObject, std::string>>> ReadObjects(const JsonObject& in,
                                                                    std::string_view member,
                                                                    const std::string& path,
                                                                    Violations* v) {
  std::vector<std::pair<JsonObject, std::string>> out;
  DDB_ASSIGN_OR_RETURN(auto list, GetArray(in, member));
  if (!list) return out;
  for (JsonElement e : *list) {
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS) return WrongType(member, "a list of objects");
    out.emplace_back(o, path + "." + std::to_string(out.size() + 1) + ".member");
  }
  if (out.empty()) {
    v->Add("Value '[]' at '" + path +
           "' failed to satisfy constraint: Member must have length greater than or equal to 1");
  }
  return out;
}

// An index name member (optional in the shape), its constraints checked when present.
Result<std::string> ReadIndexName(const JsonObject& o, const std::string& path, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto name, GetString(o, "IndexName"));
  if (!name) return std::string();
  TableNameViolations(*name, path + ".indexName", v->list());
  return std::string(*name);
}

// The update of an index in `u`, added if `u` has none yet.
TableAutoScalingUpdate::Index& IndexUpdate(TableAutoScalingUpdate& u, const std::string& name) {
  for (TableAutoScalingUpdate::Index& i : u.indexes) {
    if (i.index_name == name) return i;
  }
  u.indexes.push_back({name, std::nullopt, std::nullopt});
  return u.indexes.back();
}

// UpdateTableReplicaAutoScaling's request: the write settings every replica takes, and each
// named Region's read settings.
struct ReplicaAutoScalingRequest {
  std::string table;
  TableAutoScalingUpdate everywhere;                      // write settings
  std::map<std::string, TableAutoScalingUpdate> regions;  // read settings, by Region
};

Result<ReplicaAutoScalingRequest> ReadUpdateRequest(const JsonObject& request) {
  Violations v;
  ReplicaAutoScalingRequest r;
  DDB_ASSIGN_OR_RETURN(r.table, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(
      r.everywhere.write,
      ReadSettingsUpdate(request, "ProvisionedWriteCapacityAutoScalingUpdate",
                         "provisionedWriteCapacityAutoScalingUpdate", true, r.table, "", &v));
  DDB_ASSIGN_OR_RETURN(auto gsis, ReadObjects(request, "GlobalSecondaryIndexUpdates",
                                              "globalSecondaryIndexUpdates", &v));
  for (const auto& [o, path] : gsis) {
    DDB_ASSIGN_OR_RETURN(std::string index, ReadIndexName(o, path, &v));
    DDB_ASSIGN_OR_RETURN(
        auto write, ReadSettingsUpdate(o, "ProvisionedWriteCapacityAutoScalingUpdate",
                                       path + ".provisionedWriteCapacityAutoScalingUpdate", true,
                                       r.table, index, &v));
    IndexUpdate(r.everywhere, index).write = std::move(write);
  }
  DDB_ASSIGN_OR_RETURN(auto replicas, ReadObjects(request, "ReplicaUpdates", "replicaUpdates", &v));
  for (const auto& [o, path] : replicas) {
    DDB_ASSIGN_OR_RETURN(auto region, GetString(o, "RegionName"));
    if (!region) v.NotNull(path + ".regionName");
    TableAutoScalingUpdate& u = r.regions[std::string(region.value_or(""))];
    DDB_ASSIGN_OR_RETURN(
        u.read, ReadSettingsUpdate(o, "ReplicaProvisionedReadCapacityAutoScalingUpdate",
                                   path + ".replicaProvisionedReadCapacityAutoScalingUpdate", false,
                                   r.table, "", &v));
    DDB_ASSIGN_OR_RETURN(auto indexes,
                         ReadObjects(o, "ReplicaGlobalSecondaryIndexUpdates",
                                     path + ".replicaGlobalSecondaryIndexUpdates", &v));
    for (const auto& [io, ipath] : indexes) {
      DDB_ASSIGN_OR_RETURN(std::string index, ReadIndexName(io, ipath, &v));
      DDB_ASSIGN_OR_RETURN(
          auto read, ReadSettingsUpdate(io, "ProvisionedReadCapacityAutoScalingUpdate",
                                        ipath + ".provisionedReadCapacityAutoScalingUpdate", false,
                                        r.table, index, &v));
      IndexUpdate(u, index).read = std::move(read);
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return r;
}

// The Regions of the table: the caller's, then its replicas'.
std::vector<std::string> RegionsOf(const RequestContext& ctx, const TableDescription& d) {
  std::vector<std::string> regions{ctx.region};
  for (const ReplicaDescription& r : d.replicas) regions.push_back(r.region_name);
  return regions;
}

// The table as `region` keeps it: the caller's own, or another replica's through the
// coordinator.
Result<TableDescription> DescribeIn(ReplicaCoordinator* replicas, Engine& engine,
                                    const RequestContext& ctx, const std::string& table,
                                    const std::string& region) {
  if (region == ctx.region) return engine.DescribeTable(ctx, table);
  if (!replicas) return Error::NotFound("Requested resource not found: Table: " + table);
  DDB_ASSIGN_OR_RETURN(Engine * there, replicas->EngineIn(ctx, region));
  RequestContext in = ctx;
  in.region = region;
  return there->DescribeTable(in, table);
}

// One capacity's AutoScalingSettingsDescription; none on an on-demand table.
void WriteSettings(JsonWriter& w, std::string_view key, const std::optional<AutoScalingSettings>& s,
                   const TableDescription& d, const RequestContext& ctx) {
  if (d.billing_mode == BillingMode::kPayPerRequest) return;
  w.Key(key);
  w.BeginObject();
  if (!s) {
    w.Key("AutoScalingDisabled");
    w.Bool(true);
  } else {
    w.OptionalInt("MinimumUnits", s->minimum_units);
    w.OptionalInt("MaximumUnits", s->maximum_units);
    w.Key("AutoScalingRoleArn");
    w.String(s->role_arn.value_or(
        "arn:aws:iam::" + ctx.account_id +
        ":role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
        "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"));
  }
  w.Key("ScalingPolicies");
  w.BeginArray();
  if (s && s->policy) {
    const AutoScalingPolicy& p = *s->policy;
    w.BeginObject();
    w.Key("PolicyName");
    w.String(p.policy_name);
    w.Key("TargetTrackingScalingPolicyConfiguration");
    w.BeginObject();
    if (p.disable_scale_in) {
      w.Key("DisableScaleIn");
      w.Bool(*p.disable_scale_in);
    }
    w.OptionalInt("ScaleInCooldown", p.scale_in_cooldown);
    w.OptionalInt("ScaleOutCooldown", p.scale_out_cooldown);
    w.Key("TargetValue");
    w.Number(p.target_value);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

ReplicaStatus StatusOfTable(TableStatus s) {
  switch (s) {
    case TableStatus::kCreating:
      return ReplicaStatus::kCreating;
    case TableStatus::kUpdating:
      return ReplicaStatus::kUpdating;
    case TableStatus::kDeleting:
      return ReplicaStatus::kDeleting;
    default:
      return ReplicaStatus::kActive;
  }
}

// TableAutoScalingDescription: the table's status here and every replica's settings, by
// Region name.
Result<std::string> DescribeAll(ReplicaCoordinator* replicas, Engine& engine,
                                const RequestContext& ctx, const std::string& table) {
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.DescribeTable(ctx, table));
  std::map<std::string, ReplicaStatus> statuses{{ctx.region, StatusOfTable(d.table_status)}};
  for (const ReplicaDescription& r : d.replicas) statuses[r.region_name] = r.status;
  JsonWriter w;
  w.BeginObject();
  w.Key("TableAutoScalingDescription");
  w.BeginObject();
  w.Key("TableName");
  w.String(d.table_name);
  w.Key("TableStatus");
  w.String(EnumName(d.table_status));
  w.Key("Replicas");
  w.BeginArray();
  for (const auto& [region, status] : statuses) {
    w.BeginObject();
    w.Key("RegionName");
    w.String(region);
    // A replica whose table cannot be read (its Region's store failed) is listed bare.
    Result<TableDescription> there = DescribeIn(replicas, engine, ctx, d.table_name, region);
    if (there.ok()) {
      const TableDescription& t = there.value();
      const TableAutoScaling& a = t.auto_scaling;
      w.Key("GlobalSecondaryIndexes");
      w.BeginArray();
      for (const SecondaryIndexDefinition& g : t.global_secondary_indexes) {
        auto it = std::find_if(
            a.indexes.begin(), a.indexes.end(),
            [&](const TableAutoScaling::Index& i) { return i.index_name == g.index_name; });
        const bool kept = it != a.indexes.end();
        w.BeginObject();
        w.Key("IndexName");
        w.String(g.index_name);
        w.Key("IndexStatus");
        w.String(EnumName(g.index_status));
        WriteSettings(w, "ProvisionedReadCapacityAutoScalingSettings",
                      kept ? it->read : std::nullopt, t, ctx);
        WriteSettings(w, "ProvisionedWriteCapacityAutoScalingSettings",
                      kept ? it->write : std::nullopt, t, ctx);
        w.EndObject();
      }
      w.EndArray();
      WriteSettings(w, "ReplicaProvisionedReadCapacityAutoScalingSettings", a.read, t, ctx);
      WriteSettings(w, "ReplicaProvisionedWriteCapacityAutoScalingSettings", a.write, t, ctx);
    }
    w.Key("ReplicaStatus");
    w.String(EnumName(status));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::string> DescribeTableReplicaAutoScalingWith(ReplicaCoordinator* replicas,
                                                        Engine& engine, const RequestContext& ctx,
                                                        const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string table, ReadTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return DescribeAll(replicas, engine, ctx, table);
}

Result<std::string> UpdateTableReplicaAutoScalingWith(ReplicaCoordinator* replicas, Engine& engine,
                                                      const RequestContext& ctx,
                                                      const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(ReplicaAutoScalingRequest r, ReadUpdateRequest(request));
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.DescribeTable(ctx, r.table));
  const std::vector<std::string> regions = RegionsOf(ctx, d);
  std::string strangers;
  for (const auto& [region, update] : r.regions) {
    if (std::find(regions.begin(), regions.end(), region) == regions.end()) {
      strangers += (strangers.empty() ? "" : ", ") + region;
    }
  }
  if (!strangers.empty()) {
    // UpdateTable's text for replicas that are not the table's (guessed for this operation).
    return Error::Validation(
        "Update global table operation failed because one or more replicas were not part of "
        "the global table. Please retry the request without these replicas: [" +
        strangers + "].");
  }
  // This Region's first: its refusals (on-demand, a missing index, minimum above maximum)
  // come before anything changes in the others.
  for (const std::string& region : regions) {
    TableAutoScalingUpdate u = r.everywhere;
    if (auto it = r.regions.find(region); it != r.regions.end()) {
      u.read = it->second.read;
      for (const TableAutoScalingUpdate::Index& i : it->second.indexes) {
        IndexUpdate(u, i.index_name).read = i.read;
      }
    }
    if (region == ctx.region) {
      DDB_RETURN_IF_ERROR(engine.UpdateAutoScaling(ctx, r.table, u).status());
      continue;
    }
    if (!replicas) continue;  // not reached: a table has replicas only with a coordinator
    DDB_ASSIGN_OR_RETURN(Engine * there, replicas->EngineIn(ctx, region));
    RequestContext in = ctx;
    in.region = region;
    DDB_RETURN_IF_ERROR(there->UpdateAutoScaling(in, d.table_name, u).status());
  }
  return DescribeAll(replicas, engine, ctx, r.table);
}

Result<std::string> HandleDescribeTableReplicaAutoScaling(Engine& engine, const RequestContext& ctx,
                                                          const JsonObject& request) {
  return DescribeTableReplicaAutoScalingWith(nullptr, engine, ctx, request);
}

Result<std::string> HandleUpdateTableReplicaAutoScaling(Engine& engine, const RequestContext& ctx,
                                                        const JsonObject& request) {
  return UpdateTableReplicaAutoScalingWith(nullptr, engine, ctx, request);
}

}  // namespace ddb::protocol
