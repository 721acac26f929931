#include "engine/catalog.h"

#include <cstdio>

#include "ddb/number.h"
#include "ddb/stored_item.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/store_format.h"

namespace ddb {
namespace {

constexpr std::string_view kNextTableIdKey = "next_table_id";

// --- TableDescription <-> Item (the catalog record) ---

AttributeValue Str(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue Num(int64_t n) { return AttributeValue::N(std::to_string(n)); }

AttributeValue KeySchemaRecord(const std::vector<KeySchemaElement>& ks) {
  std::vector<AttributeValue> l;
  for (const auto& k : ks) {
    l.push_back(AttributeValue::M({{"AttributeName", Str(k.attribute_name)},
                                   {"KeyType", Str(k.key_type == KeyType::kHash ? "H" : "R")}}));
  }
  return AttributeValue::L(std::move(l));
}

std::vector<KeySchemaElement> KeySchemaFrom(const AttributeValue& v) {
  std::vector<KeySchemaElement> ks;
  for (const auto& e : v.list()) {
    ks.push_back({e.map().at("AttributeName").scalar(),
                  e.map().at("KeyType").scalar() == "H" ? KeyType::kHash : KeyType::kRange});
  }
  return ks;
}

AttributeValue ThroughputRecord(const ProvisionedThroughput& t) {
  return AttributeValue::M({{"R", Num(t.read_capacity_units)}, {"W", Num(t.write_capacity_units)}});
}

ProvisionedThroughput ThroughputFrom(const AttributeValue& v) {
  return {std::stoll(v.map().at("R").scalar()), std::stoll(v.map().at("W").scalar())};
}

AttributeValue OnDemandRecord(const OnDemandThroughput& t) {
  return AttributeValue::M(
      {{"R", Num(t.max_read_request_units)}, {"W", Num(t.max_write_request_units)}});
}

OnDemandThroughput OnDemandFrom(const AttributeValue& v) {
  return {std::stoll(v.map().at("R").scalar()), std::stoll(v.map().at("W").scalar())};
}

AttributeValue WarmRecord(const WarmThroughput& t) {
  return AttributeValue::M(
      {{"R", Num(t.read_units_per_second)}, {"W", Num(t.write_units_per_second)}});
}

WarmThroughput WarmFrom(const AttributeValue& v) {
  return {std::stoll(v.map().at("R").scalar()), std::stoll(v.map().at("W").scalar())};
}

AttributeValue IndexesRecord(const std::vector<SecondaryIndexDefinition>& indexes, int key_format) {
  std::vector<AttributeValue> l;
  for (const auto& idx : indexes) {
    AttributeMap m{{"IndexName", Str(idx.index_name)},
                   {"KeySchema", KeySchemaRecord(idx.key_schema)},
                   {"ProjectionType", Num(static_cast<int>(idx.projection.projection_type))}};
    if (!idx.projection.non_key_attributes.empty()) {
      std::vector<AttributeValue> names;
      for (const auto& n : idx.projection.non_key_attributes) names.push_back(Str(n));
      m["NonKeyAttributes"] = AttributeValue::L(std::move(names));
    }
    if (idx.provisioned_throughput) m["Throughput"] = ThroughputRecord(*idx.provisioned_throughput);
    m["KeyFormat"] = Num(key_format);
    m["Status"] = Str(std::string(EnumName(idx.index_status)));
    m["Backfilling"] = AttributeValue::Bool(idx.backfilling);
    if (idx.on_demand_throughput) m["OnDemand"] = OnDemandRecord(*idx.on_demand_throughput);
    l.push_back(AttributeValue::M(std::move(m)));
  }
  return AttributeValue::L(std::move(l));
}

std::vector<SecondaryIndexDefinition> IndexesFrom(const AttributeValue& v) {
  std::vector<SecondaryIndexDefinition> out;
  for (const auto& e : v.list()) {
    const AttributeMap& m = e.map();
    SecondaryIndexDefinition idx;
    idx.index_name = m.at("IndexName").scalar();
    idx.key_schema = KeySchemaFrom(m.at("KeySchema"));
    if (auto it = m.find("Status"); it != m.end()) {
      idx.index_status =
          EnumFromName<IndexStatus>(it->second.scalar()).value_or(IndexStatus::kActive);
    }
    if (auto it = m.find("Backfilling"); it != m.end()) idx.backfilling = it->second.boolean();
    idx.projection.projection_type =
        static_cast<ProjectionType>(std::stoi(m.at("ProjectionType").scalar()));
    if (auto it = m.find("NonKeyAttributes"); it != m.end()) {
      for (const auto& n : it->second.list())
        idx.projection.non_key_attributes.push_back(n.scalar());
    }
    if (auto it = m.find("Throughput"); it != m.end())
      idx.provisioned_throughput = ThroughputFrom(it->second);
    if (auto it = m.find("OnDemand"); it != m.end())
      idx.on_demand_throughput = MergeOnDemand(std::nullopt, OnDemandFrom(it->second));
    out.push_back(std::move(idx));
  }
  return out;
}

// Vector index definitions (an optional "VectorIndexes" attribute of the table record,
// absent: none; each entry versioned by its "Format", kVectorIndexFormat). Their contents are
// not persisted: they are rebuilt from the table's items at open.
AttributeValue VectorIndexesRecord(const std::vector<VectorIndexDefinition>& indexes) {
  std::vector<AttributeValue> l;
  for (const auto& idx : indexes) {
    std::vector<AttributeValue> schema;
    for (const auto& e : idx.search_schema) {
      schema.push_back(AttributeValue::M({{"AttributeName", Str(e.attribute_name)},
                                          {"Type", Str(std::string(EnumName(e.type)))}}));
    }
    AttributeMap m{{"Format", Num(kVectorIndexFormat)},
                   {"IndexName", Str(idx.index_name)},
                   {"VectorAttribute", Str(idx.vector_attribute)},
                   {"Dimensions", Num(idx.dimensions)},
                   {"DistanceFunction", Str(std::string(EnumName(idx.distance_function)))},
                   {"SearchSchema", AttributeValue::L(std::move(schema))},
                   {"ProjectionType", Num(static_cast<int>(idx.projection.projection_type))},
                   {"Status", Str(std::string(EnumName(idx.index_status)))},
                   {"Backfilling", AttributeValue::Bool(idx.backfilling)},
                   {"ReportsBackfilling", AttributeValue::Bool(idx.reports_backfilling)}};
    if (!idx.projection.non_key_attributes.empty()) {
      std::vector<AttributeValue> names;
      for (const auto& n : idx.projection.non_key_attributes) names.push_back(Str(n));
      m["NonKeyAttributes"] = AttributeValue::L(std::move(names));
    }
    l.push_back(AttributeValue::M(std::move(m)));
  }
  return AttributeValue::L(std::move(l));
}

std::vector<VectorIndexDefinition> VectorIndexesFrom(const AttributeValue& v) {
  std::vector<VectorIndexDefinition> out;
  for (const auto& e : v.list()) {
    const AttributeMap& m = e.map();
    VectorIndexDefinition idx;
    idx.index_name = m.at("IndexName").scalar();
    idx.vector_attribute = m.at("VectorAttribute").scalar();
    idx.dimensions = std::stoll(m.at("Dimensions").scalar());
    idx.distance_function = EnumFromName<VectorDistanceFunction>(m.at("DistanceFunction").scalar())
                                .value_or(VectorDistanceFunction::kCosine);
    for (const auto& s : m.at("SearchSchema").list()) {
      idx.search_schema.push_back(
          {s.map().at("AttributeName").scalar(),
           EnumFromName<SearchSchemaElementType>(s.map().at("Type").scalar())
               .value_or(SearchSchemaElementType::kInlineFilter)});
    }
    idx.projection.projection_type =
        static_cast<ProjectionType>(std::stoi(m.at("ProjectionType").scalar()));
    if (auto it = m.find("NonKeyAttributes"); it != m.end()) {
      for (const auto& n : it->second.list())
        idx.projection.non_key_attributes.push_back(n.scalar());
    }
    idx.index_status =
        EnumFromName<IndexStatus>(m.at("Status").scalar()).value_or(IndexStatus::kActive);
    idx.backfilling = m.at("Backfilling").boolean();
    idx.reports_backfilling = m.at("ReportsBackfilling").boolean();
    out.push_back(std::move(idx));
  }
  return out;
}

AttributeValue PolicyRecord(const ResourcePolicy& p) {
  return AttributeValue::M({{"Text", Str(p.policy)}, {"Revision", Str(p.revision_id)}});
}

ResourcePolicy PolicyFrom(const AttributeValue& v) {
  return {v.map().at("Text").scalar(), v.map().at("Revision").scalar()};
}

// Table and index ids stay below 2^24, so that a change record of format 0 (no version
// byte) starts with a 0 byte and is told apart from later ones (change_log.h). A store
// would need 16 million tables and indexes created to reach it.
Status CheckIdSpace(uint32_t next_id) {
  if (next_id < (1u << 24)) return Status::Ok();
  return Error{ErrorCode::kLimitExceeded, "this store has used up its table and index ids"};
}

// A record's "Format", its "KeyFormat" and each index's "KeyFormat" (absent: 1, the records
// before each existed) must be ones this build reads.
Status CheckRecordFormats(const Item& record) {
  auto format = [](const AttributeMap& m, const char* name) -> int64_t {
    auto it = m.find(name);
    return it == m.end() ? 1 : std::stoll(it->second.scalar());
  };
  const std::string table = record.count("TableName") ? record.at("TableName").scalar() : "?";
  if (int64_t f = format(record, "Format"); f > kTableRecordFormat) {
    return NewerFormat("the record of table " + table, f, kTableRecordFormat);
  }
  if (int64_t f = format(record, "KeyFormat"); f > kTableKeyFormat) {
    return NewerFormat("the keys of table " + table, f, kTableKeyFormat);
  }
  for (const char* list : {"LocalSecondaryIndexes", "GlobalSecondaryIndexes"}) {
    auto it = record.find(list);
    if (it == record.end()) continue;
    for (const AttributeValue& index : it->second.list()) {
      if (int64_t f = format(index.map(), "KeyFormat"); f > kIndexKeyFormat) {
        return NewerFormat("index " + index.map().at("IndexName").scalar() + " of table " + table,
                           f, kIndexKeyFormat);
      }
    }
  }
  if (auto it = record.find("VectorIndexes"); it != record.end()) {
    for (const AttributeValue& index : it->second.list()) {
      if (int64_t f = format(index.map(), "Format"); f > kVectorIndexFormat) {
        return NewerFormat(
            "vector index " + index.map().at("IndexName").scalar() + " of table " + table, f,
            kVectorIndexFormat);
      }
    }
  }
  return Status::Ok();
}

// The parts of a table record (ToRecord) that are lists or maps of their own.
AttributeValue AttributeDefinitionsRecord(const std::vector<AttributeDefinition>& definitions) {
  std::vector<AttributeValue> defs;
  for (const auto& a : definitions) {
    defs.push_back(
        AttributeValue::M({{"AttributeName", Str(a.attribute_name)},
                           {"AttributeType", Str(std::string(ScalarTypeName(a.attribute_type)))}}));
  }
  return AttributeValue::L(std::move(defs));
}

AttributeValue StreamSpecificationRecord(const StreamSpecification& s) {
  return AttributeValue::M(
      {{"Enabled", AttributeValue::Bool(s.stream_enabled)},
       {"ViewType",
        Str(std::string(EnumName(s.stream_view_type.value_or(StreamViewType::kKeysOnly))))}});
}

AttributeValue TagsRecord(const std::vector<Tag>& tags) {
  std::vector<AttributeValue> list;
  for (const auto& t : tags) {
    list.push_back(AttributeValue::M({{"Key", Str(t.key)}, {"Value", Str(t.value)}}));
  }
  return AttributeValue::L(std::move(list));
}

AttributeValue RestoreSummaryRecord(const TableDescription::RestoreSummary& summary) {
  AttributeMap m;
  if (summary.source_backup_arn) m["SourceBackupArn"] = Str(*summary.source_backup_arn);
  if (summary.source_table_arn) m["SourceTableArn"] = Str(*summary.source_table_arn);
  m["DateTimeMs"] = Num(static_cast<int64_t>(summary.restore_date_time * 1000));
  m["InProgress"] = AttributeValue::Bool(summary.restore_in_progress);
  return AttributeValue::M(std::move(m));
}

AttributeValue RestoreJobRecord(const TableInfo::RestoreJob& job) {
  return AttributeValue::M({{"SourceId", Num(job.source_id)},
                            {"AsOfMs", Num(static_cast<int64_t>(job.as_of_ms))},
                            {"BackupId", Str(job.backup_id)}});
}

AttributeValue ContributorInsightsRecord(
    const std::map<std::string, TableDescription::ContributorInsightsSetting>& by_index) {
  AttributeMap insights;
  for (const auto& [index, c] : by_index) {
    insights[index] =
        AttributeValue::M({{"Enabled", AttributeValue::Bool(c.enabled)},
                           {"Mode", Num(c.mode)},
                           {"Updated", Num(static_cast<int64_t>(c.last_update * 1000))}});
  }
  return AttributeValue::M(std::move(insights));
}

AttributeValue ReplicasRecord(const std::vector<ReplicaDescription>& replicas) {
  std::vector<AttributeValue> list;
  for (const ReplicaDescription& r : replicas) {
    AttributeMap m{{"Region", Str(r.region_name)},
                   {"Status", Str(std::string(EnumName(r.status)))}};
    if (r.percent_progress) m["Progress"] = Num(*r.percent_progress);
    if (r.kms_master_key_id) m["KmsKey"] = Str(*r.kms_master_key_id);
    if (r.read_capacity_override) m["Read"] = Num(*r.read_capacity_override);
    if (r.max_read_request_units_override) m["MaxRead"] = Num(*r.max_read_request_units_override);
    if (r.table_class_override)
      m["TableClass"] = Str(std::string(EnumName(*r.table_class_override)));
    std::vector<AttributeValue> indexes;
    for (const ReplicaIndexSettings& g : r.global_secondary_indexes) {
      AttributeMap gm{{"IndexName", Str(g.index_name)}};
      if (g.read_capacity_units) gm["Read"] = Num(*g.read_capacity_units);
      if (g.max_read_request_units) gm["MaxRead"] = Num(*g.max_read_request_units);
      indexes.push_back(AttributeValue::M(std::move(gm)));
    }
    if (!indexes.empty()) m["Indexes"] = AttributeValue::L(std::move(indexes));
    list.push_back(AttributeValue::M(std::move(m)));
  }
  return AttributeValue::L(std::move(list));
}

std::vector<ReplicaDescription> ReplicasFrom(const AttributeValue& record) {
  std::vector<ReplicaDescription> replicas;
  auto int_of = [](const AttributeMap& m, const char* name) -> std::optional<int64_t> {
    auto it = m.find(name);
    if (it == m.end()) return std::nullopt;
    return std::stoll(it->second.scalar());
  };
  for (const AttributeValue& v : record.list()) {
    const AttributeMap& m = v.map();
    ReplicaDescription r;
    r.region_name = m.at("Region").scalar();
    r.status =
        EnumFromName<ReplicaStatus>(m.at("Status").scalar()).value_or(ReplicaStatus::kActive);
    if (auto p = int_of(m, "Progress")) r.percent_progress = static_cast<int>(*p);
    if (auto it = m.find("KmsKey"); it != m.end()) r.kms_master_key_id = it->second.scalar();
    r.read_capacity_override = int_of(m, "Read");
    r.max_read_request_units_override = int_of(m, "MaxRead");
    if (auto it = m.find("TableClass"); it != m.end()) {
      r.table_class_override = EnumFromName<TableClass>(it->second.scalar());
    }
    if (auto it = m.find("Indexes"); it != m.end()) {
      for (const AttributeValue& g : it->second.list()) {
        ReplicaIndexSettings settings;
        settings.index_name = g.map().at("IndexName").scalar();
        settings.read_capacity_units = int_of(g.map(), "Read");
        settings.max_read_request_units = int_of(g.map(), "MaxRead");
        r.global_secondary_indexes.push_back(std::move(settings));
      }
    }
    replicas.push_back(std::move(r));
  }
  return replicas;
}

// Kinesis streaming destinations: Arn, Status (the enum's number), Precision (0 unset, 1 ms,
// 2 us), Description, Stream (the stream an ACTIVE one writes to).
AttributeValue KinesisDestinationsRecord(const std::vector<KinesisDestination>& list) {
  std::vector<AttributeValue> out;
  for (const KinesisDestination& k : list) {
    AttributeMap m{{"Arn", Str(k.stream_arn)},
                   {"Status", Num(static_cast<int64_t>(k.status))},
                   {"Precision", Num(!k.precision                                         ? 0
                                     : *k.precision == KinesisTimePrecision::kMicrosecond ? 2
                                                                                          : 1)}};
    if (!k.status_description.empty()) m["Description"] = Str(k.status_description);
    if (!k.stream_name.empty()) m["Stream"] = Str(k.stream_name);
    out.push_back(AttributeValue::M(std::move(m)));
  }
  return AttributeValue::L(std::move(out));
}

std::vector<KinesisDestination> KinesisDestinationsFrom(const AttributeValue& record) {
  std::vector<KinesisDestination> list;
  for (const AttributeValue& v : record.list()) {
    const AttributeMap& m = v.map();
    KinesisDestination k;
    k.stream_arn = m.at("Arn").scalar();
    const int64_t status = std::stoll(m.at("Status").scalar());
    k.status = status >= 0 && status <= static_cast<int64_t>(KinesisDestinationStatus::kUpdating)
                   ? static_cast<KinesisDestinationStatus>(status)
                   : KinesisDestinationStatus::kDisabled;
    const int64_t precision = std::stoll(m.at("Precision").scalar());
    if (precision == 1) k.precision = KinesisTimePrecision::kMillisecond;
    if (precision == 2) k.precision = KinesisTimePrecision::kMicrosecond;
    if (auto it = m.find("Description"); it != m.end()) k.status_description = it->second.scalar();
    if (auto it = m.find("Stream"); it != m.end()) k.stream_name = it->second.scalar();
    list.push_back(std::move(k));
  }
  return list;
}

// Replica auto scaling: each capacity's settings as a map, absent members absent.
AttributeValue AutoScalingSettingsRecord(const AutoScalingSettings& s) {
  AttributeMap m;
  if (s.minimum_units) m["Min"] = Num(*s.minimum_units);
  if (s.maximum_units) m["Max"] = Num(*s.maximum_units);
  if (s.role_arn) m["Role"] = Str(*s.role_arn);
  if (s.policy) {
    char target[32];
    std::snprintf(target, sizeof(target), "%.17g", s.policy->target_value);
    AttributeMap p{{"Name", Str(s.policy->policy_name)}, {"Target", AttributeValue::N(target)}};
    if (s.policy->disable_scale_in)
      p["NoScaleIn"] = AttributeValue::Bool(*s.policy->disable_scale_in);
    if (s.policy->scale_in_cooldown) p["InCooldown"] = Num(*s.policy->scale_in_cooldown);
    if (s.policy->scale_out_cooldown) p["OutCooldown"] = Num(*s.policy->scale_out_cooldown);
    m["Policy"] = AttributeValue::M(std::move(p));
  }
  return AttributeValue::M(std::move(m));
}

AutoScalingSettings AutoScalingSettingsFrom(const AttributeValue& record) {
  const AttributeMap& m = record.map();
  auto int_of = [](const AttributeMap& in, const char* name) -> std::optional<int64_t> {
    auto it = in.find(name);
    if (it == in.end()) return std::nullopt;
    return std::stoll(it->second.scalar());
  };
  AutoScalingSettings s;
  s.minimum_units = int_of(m, "Min");
  s.maximum_units = int_of(m, "Max");
  if (auto it = m.find("Role"); it != m.end()) s.role_arn = it->second.scalar();
  if (auto it = m.find("Policy"); it != m.end()) {
    const AttributeMap& p = it->second.map();
    AutoScalingPolicy policy;
    policy.policy_name = p.at("Name").scalar();
    policy.target_value = std::stod(p.at("Target").scalar());
    if (auto b = p.find("NoScaleIn"); b != p.end()) policy.disable_scale_in = b->second.boolean();
    policy.scale_in_cooldown = int_of(p, "InCooldown");
    policy.scale_out_cooldown = int_of(p, "OutCooldown");
    s.policy = std::move(policy);
  }
  return s;
}

AttributeValue AutoScalingRecord(const TableAutoScaling& a) {
  AttributeMap m;
  if (a.read) m["Read"] = AutoScalingSettingsRecord(*a.read);
  if (a.write) m["Write"] = AutoScalingSettingsRecord(*a.write);
  std::vector<AttributeValue> indexes;
  for (const TableAutoScaling::Index& i : a.indexes) {
    AttributeMap im{{"IndexName", Str(i.index_name)}};
    if (i.read) im["Read"] = AutoScalingSettingsRecord(*i.read);
    if (i.write) im["Write"] = AutoScalingSettingsRecord(*i.write);
    indexes.push_back(AttributeValue::M(std::move(im)));
  }
  if (!indexes.empty()) m["Indexes"] = AttributeValue::L(std::move(indexes));
  return AttributeValue::M(std::move(m));
}

TableAutoScaling AutoScalingFrom(const AttributeValue& record) {
  const AttributeMap& m = record.map();
  auto settings_of = [](const AttributeMap& in, const char* name) {
    auto it = in.find(name);
    return it == in.end() ? std::nullopt
                          : std::optional<AutoScalingSettings>(AutoScalingSettingsFrom(it->second));
  };
  TableAutoScaling a;
  a.read = settings_of(m, "Read");
  a.write = settings_of(m, "Write");
  if (auto it = m.find("Indexes"); it != m.end()) {
    for (const AttributeValue& v : it->second.list()) {
      a.indexes.push_back({v.map().at("IndexName").scalar(), settings_of(v.map(), "Read"),
                           settings_of(v.map(), "Write")});
    }
  }
  return a;
}

Item ToRecord(const TableInfo& info) {
  const TableDescription& d = info.description;
  Item r;
  // Format 1 records (key format 1) stay readable by the builds before key format 2.
  // Format 3 only for a global table, which older builds could not serve.
  r["Format"] = Num(!d.replicas.empty()                 ? kTableRecordFormat
                    : info.key_format == kKeyFormatXxh3 ? 1
                                                        : kTableRecordFormatBeforeReplicas);
  if (info.key_format != kKeyFormatXxh3) r["KeyFormat"] = Num(info.key_format);
  r["Id"] = Num(info.id);
  AttributeMap index_ids;
  for (const auto& idx : info.indexes) index_ids[idx.name] = Num(idx.index_id);
  r["IndexIds"] = AttributeValue::M(std::move(index_ids));
  r["TableName"] = Str(d.table_name);
  r["TableId"] = Str(d.table_id);
  r["Created"] =
      AttributeValue::N(std::to_string(static_cast<int64_t>(d.creation_date_time * 1000)));
  r["AttributeDefinitions"] = AttributeDefinitionsRecord(d.attribute_definitions);
  r["KeySchema"] = KeySchemaRecord(d.key_schema);
  r["LocalSecondaryIndexes"] = IndexesRecord(d.local_secondary_indexes, info.key_format);
  r["GlobalSecondaryIndexes"] = IndexesRecord(d.global_secondary_indexes, info.key_format);
  r["BillingMode"] = Num(static_cast<int>(d.billing_mode));
  if (d.last_update_to_pay_per_request > 0) {
    r["PayPerRequestSince"] = Num(static_cast<int64_t>(d.last_update_to_pay_per_request * 1000));
  }
  r["Throughput"] = ThroughputRecord(d.provisioned_throughput);
  if (d.on_demand_throughput) r["OnDemand"] = OnDemandRecord(*d.on_demand_throughput);
  if (d.warm_throughput) r["Warm"] = WarmRecord(*d.warm_throughput);
  if (d.stream_specification) r["Stream"] = StreamSpecificationRecord(*d.stream_specification);
  if (d.latest_stream_label) r["StreamLabel"] = Str(*d.latest_stream_label);
  if (d.table_class) r["TableClass"] = Str(std::string(EnumName(*d.table_class)));
  if (d.table_class_last_update > 0) {
    r["TableClassSince"] = Num(static_cast<int64_t>(d.table_class_last_update * 1000));
  }
  if (d.sse_kms_key) r["SseKmsKey"] = Str(*d.sse_kms_key);
  r["DeletionProtection"] = AttributeValue::Bool(d.deletion_protection_enabled);
  if (d.ttl_attribute) r["Ttl"] = Str(*d.ttl_attribute);
  if (d.pitr_enabled_since) {
    r["PitrSinceMs"] =
        AttributeValue::N(std::to_string(static_cast<int64_t>(*d.pitr_enabled_since * 1000)));
    r["PitrDays"] = AttributeValue::N(std::to_string(d.pitr_recovery_period_days));
  }
  r["Tags"] = TagsRecord(d.tags);
  if (d.resource_policy) r["Policy"] = PolicyRecord(*d.resource_policy);
  if (!d.stream_policies.empty()) {
    AttributeMap streams;
    for (const auto& [label, p] : d.stream_policies) streams[label] = PolicyRecord(p);
    r["StreamPolicies"] = AttributeValue::M(std::move(streams));
  }
  if (d.restore_summary) r["Restore"] = RestoreSummaryRecord(*d.restore_summary);
  if (info.restore_job) r["RestoreJob"] = RestoreJobRecord(*info.restore_job);
  if (!d.vector_indexes.empty()) r["VectorIndexes"] = VectorIndexesRecord(d.vector_indexes);
  if (!d.contributor_insights.empty()) {
    r["ContributorInsights"] = ContributorInsightsRecord(d.contributor_insights);
  }
  if (!d.replicas.empty()) {
    r["Replicas"] = ReplicasRecord(d.replicas);
    r["GlobalTableVersion"] = Str(d.global_table_version.value_or(kGlobalTableVersion));
  }
  if (!d.auto_scaling.empty()) r["AutoScaling"] = AutoScalingRecord(d.auto_scaling);
  if (d.multi_region_strong) {
    r["Strong"] = AttributeValue::Bool(true);
    std::vector<AttributeValue> witnesses;
    for (const WitnessDescription& w : d.witnesses) {
      witnesses.push_back(AttributeValue::M(
          {{"Region", Str(w.region_name)}, {"Status", Str(std::string(EnumName(w.status)))}}));
    }
    r["Witnesses"] = AttributeValue::L(std::move(witnesses));
  }
  if (!d.kinesis_destinations.empty()) {
    r["Kinesis"] = KinesisDestinationsRecord(d.kinesis_destinations);
  }
  return r;
}

TableDescription FromRecord(const Item& r) {
  TableDescription d;
  d.table_name = r.at("TableName").scalar();
  d.table_id = r.at("TableId").scalar();
  d.creation_date_time = std::stoll(r.at("Created").scalar()) / 1000.0;
  for (const auto& a : r.at("AttributeDefinitions").list()) {
    const std::string& t = a.map().at("AttributeType").scalar();
    d.attribute_definitions.push_back(
        {a.map().at("AttributeName").scalar(), t == "S"   ? ScalarType::kS
                                               : t == "N" ? ScalarType::kN
                                                          : ScalarType::kB});
  }
  d.key_schema = KeySchemaFrom(r.at("KeySchema"));
  d.local_secondary_indexes = IndexesFrom(r.at("LocalSecondaryIndexes"));
  d.global_secondary_indexes = IndexesFrom(r.at("GlobalSecondaryIndexes"));
  d.billing_mode = static_cast<BillingMode>(std::stoi(r.at("BillingMode").scalar()));
  if (auto it = r.find("PayPerRequestSince"); it != r.end()) {
    d.last_update_to_pay_per_request = std::stoll(it->second.scalar()) / 1000.0;
  } else if (d.billing_mode == BillingMode::kPayPerRequest) {
    d.last_update_to_pay_per_request = d.creation_date_time;  // records from before the field
  }
  d.provisioned_throughput = ThroughputFrom(r.at("Throughput"));
  if (auto it = r.find("OnDemand"); it != r.end())
    d.on_demand_throughput = MergeOnDemand(std::nullopt, OnDemandFrom(it->second));
  if (auto it = r.find("Warm"); it != r.end()) d.warm_throughput = WarmFrom(it->second);
  if (auto it = r.find("Stream"); it != r.end()) {
    d.stream_specification =
        StreamSpecification{it->second.map().at("Enabled").boolean(),
                            EnumFromName<StreamViewType>(it->second.map().at("ViewType").scalar())};
  }
  if (auto it = r.find("StreamLabel"); it != r.end()) d.latest_stream_label = it->second.scalar();
  if (auto it = r.find("TableClass"); it != r.end()) {
    d.table_class = EnumFromName<TableClass>(it->second.scalar());
  }
  if (auto it = r.find("TableClassSince"); it != r.end()) {
    d.table_class_last_update = std::stoll(it->second.scalar()) / 1000.0;
  }
  if (auto it = r.find("SseKmsKey"); it != r.end()) d.sse_kms_key = it->second.scalar();
  d.deletion_protection_enabled = r.at("DeletionProtection").boolean();
  if (auto it = r.find("Ttl"); it != r.end()) d.ttl_attribute = it->second.scalar();
  if (auto it = r.find("PitrSinceMs"); it != r.end()) {
    d.pitr_enabled_since = std::stoll(it->second.scalar()) / 1000.0;
    d.pitr_recovery_period_days = std::stoi(r.at("PitrDays").scalar());
  }
  if (auto it = r.find("Tags"); it != r.end()) {
    for (const auto& t : it->second.list()) {
      d.tags.push_back({t.map().at("Key").scalar(), t.map().at("Value").scalar()});
    }
  }
  if (auto it = r.find("Policy"); it != r.end()) d.resource_policy = PolicyFrom(it->second);
  if (auto it = r.find("StreamPolicies"); it != r.end()) {
    for (const auto& [label, p] : it->second.map()) d.stream_policies[label] = PolicyFrom(p);
  }
  if (auto it = r.find("Restore"); it != r.end()) {
    const AttributeMap& m = it->second.map();
    TableDescription::RestoreSummary summary;
    if (auto b = m.find("SourceBackupArn"); b != m.end())
      summary.source_backup_arn = b->second.scalar();
    if (auto t = m.find("SourceTableArn"); t != m.end())
      summary.source_table_arn = t->second.scalar();
    summary.restore_date_time = std::stoll(m.at("DateTimeMs").scalar()) / 1000.0;
    summary.restore_in_progress = m.at("InProgress").boolean();
    d.restore_summary = summary;
  }
  if (auto it = r.find("VectorIndexes"); it != r.end()) {
    d.vector_indexes = VectorIndexesFrom(it->second);
  }
  if (auto it = r.find("ContributorInsights"); it != r.end()) {
    for (const auto& [index, c] : it->second.map()) {
      TableDescription::ContributorInsightsSetting setting;
      setting.enabled = c.map().at("Enabled").boolean();
      setting.mode = static_cast<uint8_t>(std::stoi(c.map().at("Mode").scalar()));
      setting.last_update = std::stoll(c.map().at("Updated").scalar()) / 1000.0;
      d.contributor_insights[index] = setting;
    }
  }
  if (auto it = r.find("Replicas"); it != r.end()) d.replicas = ReplicasFrom(it->second);
  if (auto it = r.find("GlobalTableVersion"); it != r.end()) {
    d.global_table_version = it->second.scalar();
  }
  if (auto it = r.find("AutoScaling"); it != r.end()) d.auto_scaling = AutoScalingFrom(it->second);
  if (auto it = r.find("Strong"); it != r.end()) d.multi_region_strong = it->second.boolean();
  if (auto it = r.find("Witnesses"); it != r.end()) {
    for (const AttributeValue& w : it->second.list()) {
      d.witnesses.push_back(
          {w.map().at("Region").scalar(), EnumFromName<WitnessStatus>(w.map().at("Status").scalar())
                                              .value_or(WitnessStatus::kActive)});
    }
  }
  if (auto it = r.find("Kinesis"); it != r.end()) {
    d.kinesis_destinations = KinesisDestinationsFrom(it->second);
  }
  return d;
}

int KeyFormatOf(const Item& r) {
  auto it = r.find("KeyFormat");
  return it == r.end() ? kKeyFormatXxh3 : std::stoi(it->second.scalar());
}

std::optional<TableInfo::RestoreJob> RestoreJobFrom(const Item& r) {
  auto it = r.find("RestoreJob");
  if (it == r.end()) return std::nullopt;
  const AttributeMap& m = it->second.map();
  TableInfo::RestoreJob job;
  job.source_id = static_cast<uint32_t>(std::stoul(m.at("SourceId").scalar()));
  job.as_of_ms = std::stoull(m.at("AsOfMs").scalar());
  job.backup_id = m.at("BackupId").scalar();
  return job;
}

}  // namespace

Item TableCreationRecord(const CreateTableRequest& req) {
  TableDescription d;
  d.table_name = req.table_name;
  d.attribute_definitions = req.attribute_definitions;
  d.key_schema = req.key_schema;
  d.global_secondary_indexes = req.global_secondary_indexes;
  TableInfo info;
  info.description = std::move(d);
  Item full = ToRecord(info);
  Item r;
  for (const char* field :
       {"TableName", "AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes"}) {
    r[field] = full.at(field);
  }
  if (req.billing_mode) r["BillingMode"] = Num(static_cast<int>(*req.billing_mode));
  if (req.provisioned_throughput) r["Throughput"] = ThroughputRecord(*req.provisioned_throughput);
  if (req.sse_specification) {
    r["Sse"] = AttributeValue::M({{"Enabled", AttributeValue::Bool(req.sse_specification->enabled)},
                                  {"Key", Str(req.sse_specification->kms_key_id)}});
  }
  return r;
}

CreateTableRequest TableCreationFrom(const Item& r) {
  Item full = r;
  full["TableId"] = Str("");
  full["Created"] = Num(0);
  full["LocalSecondaryIndexes"] = AttributeValue::L({});
  if (!full.count("BillingMode")) full["BillingMode"] = Num(0);
  if (!full.count("Throughput")) full["Throughput"] = ThroughputRecord({});
  full["DeletionProtection"] = AttributeValue::Bool(false);
  TableDescription d = FromRecord(full);
  CreateTableRequest req;
  req.table_name = d.table_name;
  req.attribute_definitions = d.attribute_definitions;
  req.key_schema = d.key_schema;
  req.global_secondary_indexes = d.global_secondary_indexes;
  if (r.count("BillingMode")) req.billing_mode = d.billing_mode;
  if (r.count("Throughput")) req.provisioned_throughput = d.provisioned_throughput;
  if (auto it = r.find("Sse"); it != r.end()) {
    req.sse_specification = SseSpecification{it->second.map().at("Enabled").boolean(),
                                             it->second.map().at("Key").scalar()};
  }
  return req;
}

namespace {

AttributeType KeyTypeOf(const TableDescription& d, const std::string& name) {
  return ToAttributeType(d.AttributeTypeOf(name));
}

IndexSchema SchemaOf(const TableDescription& d, const SecondaryIndexDefinition& def, bool global,
                     uint32_t id, int key_format) {
  IndexSchema s;
  s.index_id = id;
  s.name = def.index_name;
  s.global = global;
  for (const auto& k : def.key_schema) {
    auto& list = k.key_type == KeyType::kHash ? s.hash_attrs : s.range_attrs;
    list.emplace_back(k.attribute_name, KeyTypeOf(d, k.attribute_name));
  }
  s.projection = def.projection.projection_type;
  s.non_key_attributes = def.projection.non_key_attributes;
  s.backfilling = def.backfilling;
  s.table_hash = d.hash_key();
  if (const std::string* r = d.range_key()) s.table_range = *r;
  s.key_format = key_format;
  return s;
}

// Fills info->indexes from the description; "ids" maps index names to ids.
void BuildIndexes(TableInfo* info, const std::map<std::string, uint32_t>& ids) {
  const TableDescription& d = info->description;
  for (const auto& def : d.local_secondary_indexes) {
    info->indexes.push_back(SchemaOf(d, def, false, ids.at(def.index_name), info->key_format));
  }
  for (const auto& def : d.global_secondary_indexes) {
    // A DELETING index (held by EngineOptions::index_status_hold_ms) is described only.
    if (def.index_status == IndexStatus::kDeleting) continue;
    info->indexes.push_back(SchemaOf(d, def, true, ids.at(def.index_name), info->key_format));
  }
}

}  // namespace

bool TableInfo::has_lsi() const {
  for (const auto& i : indexes) {
    if (!i.global) return true;
  }
  return false;
}

bool TableInfo::has_gsi() const {
  for (const auto& i : indexes) {
    if (i.global) return true;
  }
  return false;
}

const IndexSchema* TableInfo::FindIndex(const std::string& name) const {
  for (const auto& i : indexes) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::string StatsKey(uint32_t id) {
  std::string k = "stats/";
  PutFixed32BE(&k, id);
  return k;
}

Result<std::unique_ptr<Catalog>> Catalog::Load(Storage* storage) {
  std::unique_ptr<Catalog> catalog(new Catalog(storage));
  Status newer = Status::Ok();
  bool bad = false;
  DDB_RETURN_IF_ERROR(
      storage->ForEach(Cf::kCatalog, "", "", [&](std::string_view, std::string_view v) {
        Item record;
        if (!DecodeItem(v, &record)) {
          bad = true;
          return false;
        }
        if (Status readable = CheckRecordFormats(record); !readable.ok()) {
          newer = readable;
          return false;
        }
        auto info = std::make_shared<TableInfo>();
        info->id = static_cast<uint32_t>(std::stoul(record.at("Id").scalar()));
        info->key_format = KeyFormatOf(record);
        info->description = FromRecord(record);
        info->restore_job = RestoreJobFrom(record);
        std::map<std::string, uint32_t> ids;
        if (auto it = record.find("IndexIds"); it != record.end()) {
          for (const auto& [name, id] : it->second.map()) ids[name] = std::stoul(id.scalar());
        }
        BuildIndexes(info.get(), ids);
        catalog->by_id_[info->id] = info;
        catalog->tables_[info->description.table_name] = std::move(info);
        return true;
      }));
  if (bad) return Error::Internal("unreadable table record in the catalog");
  DDB_RETURN_IF_ERROR(newer);
  DDB_ASSIGN_OR_RETURN(int64_t next, storage->GetCounter(kNextTableIdKey));
  catalog->next_id_ = static_cast<uint32_t>(next) + 1;
  return catalog;
}

std::shared_ptr<const TableInfo> Catalog::Find(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second;
}

std::shared_ptr<const TableInfo> Catalog::FindById(uint32_t id) const {
  std::shared_lock lock(mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::string> Catalog::Names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> names;
  names.reserve(tables_.size());
  for (const auto& [name, info] : tables_) names.push_back(name);
  return names;
}

Result<std::shared_ptr<const TableInfo>> Catalog::Create(
    TableDescription description, std::optional<TableInfo::RestoreJob> restore_job,
    int key_format) {
  std::unique_lock lock(mu_);
  if (tables_.count(description.table_name)) {
    return Error::InUse("Table already exists: " + description.table_name);
  }
  auto info = std::make_shared<TableInfo>();
  info->id = next_id_;
  info->key_format = key_format;
  info->description = std::move(description);
  info->restore_job = std::move(restore_job);
  std::map<std::string, uint32_t> ids;
  uint32_t next = next_id_ + 1;
  for (const auto& def : info->description.local_secondary_indexes) ids[def.index_name] = next++;
  for (const auto& def : info->description.global_secondary_indexes) ids[def.index_name] = next++;
  DDB_RETURN_IF_ERROR(CheckIdSpace(next));
  BuildIndexes(info.get(), ids);
  std::string record;
  EncodeItem(ToRecord(*info), &record);
  Storage::Batch batch(*storage_);
  batch.Put(Cf::kCatalog, info->description.table_name, record);
  batch.AddToCounter(kNextTableIdKey, next - next_id_);
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  next_id_ = next;
  tables_[info->description.table_name] = info;
  by_id_[info->id] = info;
  return std::shared_ptr<const TableInfo>(info);
}

Result<std::shared_ptr<const TableInfo>> Catalog::Update(
    const std::string& name,
    const std::function<Status(const TableInfo& current, TableDescription*)>& change) {
  return UpdateSeeing(name, change, /*end_restore=*/false);
}

Result<std::shared_ptr<const TableInfo>> Catalog::Update(
    const std::string& name, const std::function<Status(TableDescription*)>& change,
    bool end_restore) {
  return UpdateSeeing(
      name, [&](const TableInfo&, TableDescription* d) { return change(d); }, end_restore);
}

Result<std::shared_ptr<const TableInfo>> Catalog::UpdateSeeing(
    const std::string& name,
    const std::function<Status(const TableInfo& current, TableDescription*)>& change,
    bool end_restore) {
  std::unique_lock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return Error::NotFound("Requested resource not found: Table: " + name + " not found");
  }
  auto info = std::make_shared<TableInfo>();
  info->id = it->second->id;
  info->key_format = it->second->key_format;
  info->description = it->second->description;
  info->keep_history = it->second->keep_history;
  if (!end_restore) info->restore_job = it->second->restore_job;
  DDB_RETURN_IF_ERROR(change(*it->second, &info->description));
  // Indexes keep their ids; new ones get fresh ids.
  std::map<std::string, uint32_t> ids;
  for (const auto& index : it->second->indexes) ids[index.name] = index.index_id;
  uint32_t next = next_id_;
  for (const auto* list :
       {&info->description.local_secondary_indexes, &info->description.global_secondary_indexes}) {
    for (const auto& def : *list) {
      if (!ids.count(def.index_name)) ids[def.index_name] = next++;
    }
  }
  DDB_RETURN_IF_ERROR(CheckIdSpace(next));
  BuildIndexes(info.get(), ids);
  std::string record;
  EncodeItem(ToRecord(*info), &record);
  Storage::Batch batch(*storage_);
  batch.Put(Cf::kCatalog, name, record);
  if (next != next_id_) batch.AddToCounter(kNextTableIdKey, next - next_id_);
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  next_id_ = next;
  it->second = info;
  by_id_[info->id] = info;
  return std::shared_ptr<const TableInfo>(info);
}

void Catalog::SetKeepHistory(uint32_t id, bool keep) {
  std::unique_lock lock(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end() || it->second->keep_history == keep) return;
  auto info = std::make_shared<TableInfo>(*it->second);
  info->keep_history = keep;
  it->second = info;
  tables_[info->description.table_name] = info;
}

std::string RetainedKey(uint32_t id) {
  std::string k = "retained/";
  PutFixed32BE(&k, id);
  return k;
}

std::string EncodeTableRecord(const TableInfo& info) {
  std::string record;
  EncodeItem(ToRecord(info), &record);
  return record;
}

Result<TableInfo> DecodeTableRecord(std::string_view v) {
  Item record;
  if (!DecodeItem(v, &record)) return Error::Internal("unreadable table record");
  DDB_RETURN_IF_ERROR(CheckRecordFormats(record));
  TableInfo info;
  info.id = static_cast<uint32_t>(std::stoul(record.at("Id").scalar()));
  info.key_format = KeyFormatOf(record);
  info.description = FromRecord(record);
  info.restore_job = RestoreJobFrom(record);
  std::map<std::string, uint32_t> ids;
  if (auto it = record.find("IndexIds"); it != record.end()) {
    for (const auto& [name, id] : it->second.map()) ids[name] = std::stoul(id.scalar());
  }
  BuildIndexes(&info, ids);
  return info;
}

Result<std::shared_ptr<const TableInfo>> Catalog::Drop(const std::string& name,
                                                       const DropAlso& also) {
  std::unique_lock lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return Error::NotFound("Requested resource not found: Table: " + name + " not found");
  }
  std::shared_ptr<const TableInfo> info = it->second;
  Storage::Batch batch(*storage_);
  batch.Delete(Cf::kCatalog, name);
  if (also) also(*info, &batch);
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  tables_.erase(it);
  by_id_.erase(info->id);
  return info;
}

}  // namespace ddb
