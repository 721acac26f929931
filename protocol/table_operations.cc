// CreateTable, DescribeTable, DeleteTable, ListTables.
#include <algorithm>
#include <tuple>

#include "ddb/limits.h"
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/replica_members.h"
#include "protocol/request_readers.h"
#include "util/arn.h"

namespace ddb::protocol {
namespace {

Result<std::vector<KeySchemaElement>> ReadKeySchema(const simdjson::dom::array& arr,
                                                    const std::string& path, Violations* v) {
  std::vector<KeySchemaElement> ks;
  // The list as the service echoes it in a length violation.
  std::string echoed;
  size_t i = 0;
  for (JsonElement e : arr) {
    ++i;
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS) return WrongType("KeySchemaElement", "an object");
    std::string member = path + "." + std::to_string(i) + ".member.";
    KeySchemaElement k;
    DDB_ASSIGN_OR_RETURN(auto name, GetString(o, "AttributeName"));
    DDB_ASSIGN_OR_RETURN(auto type, GetString(o, "KeyType"));
    if (!name) {
      v->NotNull(member + "attributeName");
    } else {
      k.attribute_name = std::string(*name);
      v->Length(*name, member + "attributeName", 1, 255);
    }
    if (!type) {
      v->NotNull(member + "keyType");
    } else if (auto t = v->EnumValue<KeyType>(*type, member + "keyType", "HASH, RANGE")) {
      k.key_type = *t;
    }
    if (!echoed.empty()) echoed += ", ";
    echoed += "KeySchemaElement(attributeName=" + std::string(name.value_or("null")) +
              ", keyType=" + std::string(type.value_or("null")) + ")";
    ks.push_back(std::move(k));
  }
  if (ks.empty()) {
    v->Add("Value '[]' at '" + path +
           "' failed to satisfy constraint: Member must have length greater than or equal to 1");
  }
  // Global secondary indexes may have keys of up to 4 HASH and 4 RANGE attributes.
  size_t max = path.rfind("globalSecondaryIndex", 0) == 0 ? 8 : 2;
  if (ks.size() > max) {
    v->Add("Value '[" + echoed + "]' at '" + path +
           "' failed to satisfy constraint: Member must have length less than or equal to " +
           std::to_string(max));
  }
  return ks;
}

Result<std::optional<ProvisionedThroughput>> ReadThroughput(const JsonObject& parent,
                                                            const std::string& path,
                                                            Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(parent, "ProvisionedThroughput"));
  if (!obj) return std::optional<ProvisionedThroughput>();
  ProvisionedThroughput t;
  DDB_ASSIGN_OR_RETURN(auto read, GetInt(*obj, "ReadCapacityUnits"));
  DDB_ASSIGN_OR_RETURN(auto write, GetInt(*obj, "WriteCapacityUnits"));
  auto check = [&](const std::optional<int64_t>& n, const char* member, int64_t* out) {
    std::string p = path + "." + member;
    if (!n) {
      v->NotNull(p);
    } else if (v->Range(*n, p, 1)) {
      *out = *n;
    }
  };
  check(read, "readCapacityUnits", &t.read_capacity_units);
  check(write, "writeCapacityUnits", &t.write_capacity_units);
  return std::optional<ProvisionedThroughput>(t);
}

// WarmThroughput: {"ReadUnitsPerSecond": n, "WriteUnitsPerSecond": n}, each optional, >= 1.
Result<std::optional<WarmThroughput>> ReadWarm(const JsonObject& parent, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(parent, "WarmThroughput"));
  if (!obj) return std::optional<WarmThroughput>();
  WarmThroughput t;
  DDB_ASSIGN_OR_RETURN(auto read, GetInt(*obj, "ReadUnitsPerSecond"));
  DDB_ASSIGN_OR_RETURN(auto write, GetInt(*obj, "WriteUnitsPerSecond"));
  auto check = [&](const std::optional<int64_t>& n, const char* member, int64_t* out) {
    if (n && v->Range(*n, std::string("warmThroughput.") + member, 1)) *out = *n;
  };
  check(read, "readUnitsPerSecond", &t.read_units_per_second);
  check(write, "writeUnitsPerSecond", &t.write_units_per_second);
  return std::optional<WarmThroughput>(t);
}

// OnDemandThroughput: each member optional (kOnDemandNotGiven when absent), at least 1 or -1
// (no maximum).
Result<std::optional<OnDemandThroughput>> ReadOnDemand(
    const JsonObject& parent, std::string_view member = "OnDemandThroughput") {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(parent, member));
  if (!obj) return std::optional<OnDemandThroughput>();
  OnDemandThroughput t{kOnDemandNotGiven, kOnDemandNotGiven};
  DDB_ASSIGN_OR_RETURN(auto read, GetInt(*obj, "MaxReadRequestUnits"));
  DDB_ASSIGN_OR_RETURN(auto write, GetInt(*obj, "MaxWriteRequestUnits"));
  for (auto [n, member, out] :
       {std::tuple{read, "MaxReadRequestUnits", &t.max_read_request_units},
        std::tuple{write, "MaxWriteRequestUnits", &t.max_write_request_units}}) {
    if (!n) continue;
    if (*n == 0 || *n < -1) {
      return Error::Validation("One or more parameter values were invalid: Requested " +
                               std::string(member) +
                               " for OnDemandThroughput for table is outside of valid range");
    }
    *out = *n;
  }
  return std::optional<OnDemandThroughput>(t);
}

// A Projection member (of a secondary or a vector index) into *out; "p" is the index's
// member path for constraint messages.
Status ReadProjection(const JsonObject& proj, const std::string& p, Violations* v,
                      IndexProjection* out, bool defer_missing_type = false) {
  DDB_ASSIGN_OR_RETURN(auto type, GetString(proj, "ProjectionType"));
  if (type) {
    if (auto t = v->EnumValue<ProjectionType>(*type, p + ".projection.projectionType",
                                              "ALL, INCLUDE, KEYS_ONLY")) {
      out->projection_type = *t;
    }
  }
  DDB_ASSIGN_OR_RETURN(auto nka, GetArray(proj, "NonKeyAttributes"));
  if (nka) {
    bool bad_length = false;
    for (JsonElement n : *nka) {
      std::string_view s;
      if (n.get(s) != simdjson::SUCCESS) return WrongType("NonKeyAttributes", "a list of strings");
      bad_length = bad_length || s.empty() || s.size() > 255;
      out->non_key_attributes.emplace_back(s);
    }
    if (bad_length) {
      std::string list = "[";
      for (const std::string& n : out->non_key_attributes) {
        list += (list.size() > 1 ? ", " : "") + n;
      }
      v->Add("Value '" + list + "]' at '" + p +
             ".projection.nonKeyAttributes' failed to satisfy constraint: Member must satisfy "
             "constraint: [Member must have length less than or equal to 255, Member must have "
             "length greater than or equal to 1]");
    }
    if (out->non_key_attributes.empty()) {
      // The model's NonKeyAttributeNameList: 1 to 20 names (dynalite, recorded against the
      // service, answers an empty list so).
      v->Add("Value '[]' at '" + p +
             ".projection.nonKeyAttributes' failed to satisfy constraint: Member must have "
             "length greater than or equal to 1");
    }
    if (out->non_key_attributes.size() > 20) {
      std::string list = "[";
      for (const std::string& n : out->non_key_attributes) {
        list += (list.size() > 1 ? ", " : "") + n;
      }
      v->Add("Value '" + list + "]' at '" + p +
             ".projection.nonKeyAttributes' failed to satisfy constraint: Member must have "
             "length less than or equal to 20");
    }
  }
  if (!type) {
    // A secondary index's is the engine's to refuse, in the service's order (dynalite's suite,
    // recorded against it, asks the index's key schema first).
    if (defer_missing_type) {
      out->type_missing = true;
      return Status::Ok();
    }
    return Error::Validation(
        "One or more parameter values were invalid: Unknown ProjectionType: null");
  }
  return Status::Ok();
}

// One LocalSecondaryIndex/GlobalSecondaryIndex (or GlobalSecondaryIndexUpdate.Create);
// "p" is its member path for constraint messages.
Result<SecondaryIndexDefinition> ReadIndex(const JsonObject& o, const std::string& p,
                                           Violations* v) {
  SecondaryIndexDefinition idx;
  DDB_ASSIGN_OR_RETURN(auto name, GetString(o, "IndexName"));
  if (!name) {
    v->NotNull(p + ".indexName");
  } else {
    idx.index_name = std::string(*name);
  }
  DDB_ASSIGN_OR_RETURN(auto ks, GetArray(o, "KeySchema"));
  if (!ks) {
    v->NotNull(p + ".keySchema");
  } else {
    DDB_ASSIGN_OR_RETURN(idx.key_schema, ReadKeySchema(*ks, p + ".keySchema", v));
  }
  DDB_ASSIGN_OR_RETURN(auto proj, GetObject(o, "Projection"));
  if (!proj) {
    v->NotNull(p + ".projection");
  } else {
    DDB_RETURN_IF_ERROR(ReadProjection(*proj, p, v, &idx.projection, /*defer_missing_type=*/true));
  }
  DDB_ASSIGN_OR_RETURN(idx.provisioned_throughput,
                       ReadThroughput(o, p + ".provisionedThroughput", v));
  DDB_ASSIGN_OR_RETURN(idx.on_demand_throughput, ReadOnDemand(o));
  return idx;
}

// One VectorIndex (CreateTable) or VectorIndexUpdate.Create; "p" is its member path. Members
// as the SDKs' model names them (VectorIndex, CreateVectorIndexAction: IndexName,
// VectorAttribute.AttributeName, Projection, Dimensions, DistanceFunction, SearchSchema).
Result<VectorIndexDefinition> ReadVectorIndex(const JsonObject& o, const std::string& p,
                                              Violations* v) {
  VectorIndexDefinition idx;
  DDB_ASSIGN_OR_RETURN(auto name, GetString(o, "IndexName"));
  if (!name) {
    v->NotNull(p + ".indexName");
  } else {
    idx.index_name = std::string(*name);
    TableNameViolations(*name, p + ".indexName", v->list());
  }
  DDB_ASSIGN_OR_RETURN(auto attr, GetObject(o, "VectorAttribute"));
  if (!attr) {
    v->NotNull(p + ".vectorAttribute");
  } else {
    DDB_ASSIGN_OR_RETURN(auto attr_name, GetString(*attr, "AttributeName"));
    if (!attr_name) {
      v->NotNull(p + ".vectorAttribute.attributeName");
    } else {
      idx.vector_attribute = std::string(*attr_name);
      v->Length(*attr_name, p + ".vectorAttribute.attributeName", 1, 255);
    }
  }
  DDB_ASSIGN_OR_RETURN(auto dims, GetInt(o, "Dimensions"));
  if (!dims) {
    v->NotNull(p + ".dimensions");
  } else if (v->Range(*dims, p + ".dimensions", 1)) {
    idx.dimensions = *dims;
  }
  DDB_ASSIGN_OR_RETURN(auto distance, GetString(o, "DistanceFunction"));
  if (!distance) {
    v->NotNull(p + ".distanceFunction");
  } else if (auto f = v->EnumValue<VectorDistanceFunction>(*distance, p + ".distanceFunction",
                                                           "COSINE, DOT_PRODUCT, EUCLIDEAN")) {
    idx.distance_function = *f;
  }
  DDB_ASSIGN_OR_RETURN(auto schema, GetArray(o, "SearchSchema"));
  if (schema) {
    size_t i = 0;
    for (JsonElement e : *schema) {
      ++i;
      JsonObject so;
      if (e.get(so) != simdjson::SUCCESS) return WrongType("SearchSchema", "a list of objects");
      std::string m = p + ".searchSchema." + std::to_string(i) + ".member.";
      SearchSchemaElement el;
      DDB_ASSIGN_OR_RETURN(auto an, GetString(so, "AttributeName"));
      DDB_ASSIGN_OR_RETURN(auto type, GetString(so, "SearchSchemaElementType"));
      if (!an) {
        v->NotNull(m + "attributeName");
      } else {
        el.attribute_name = std::string(*an);
      }
      if (!type) {
        v->NotNull(m + "searchSchemaElementType");
      } else if (auto t = v->EnumValue<SearchSchemaElementType>(
                     *type, m + "searchSchemaElementType", "HASH, INLINE_FILTER")) {
        el.type = *t;
      }
      idx.search_schema.push_back(std::move(el));
    }
    if (idx.search_schema.empty()) {
      v->Add("Value '[]' at '" + p +
             ".searchSchema' failed to satisfy constraint: Member must have length greater than "
             "or equal to 1");
    }
  }
  DDB_ASSIGN_OR_RETURN(auto proj, GetObject(o, "Projection"));
  if (!proj) {
    v->NotNull(p + ".projection");
  } else {
    DDB_RETURN_IF_ERROR(ReadProjection(*proj, p, v, &idx.projection));
  }
  return idx;
}

void WriteVectorIndexes(JsonWriter& w, const TableDescription& d) {
  w.BeginArray();
  for (const auto& idx : d.vector_indexes) {
    w.BeginObject();
    w.Key("IndexName");
    w.String(idx.index_name);
    if (!idx.search_schema.empty()) {
      w.Key("SearchSchema");
      w.BeginArray();
      for (const auto& e : idx.search_schema) {
        w.BeginObject();
        w.Key("AttributeName");
        w.String(e.attribute_name);
        w.Key("SearchSchemaElementType");
        w.String(EnumName(e.type));
        w.EndObject();
      }
      w.EndArray();
    }
    w.Key("Projection");
    w.BeginObject();
    w.Key("ProjectionType");
    w.String(ProjectionTypeName(idx.projection.projection_type));
    if (!idx.projection.non_key_attributes.empty()) {
      w.Key("NonKeyAttributes");
      w.BeginArray();
      std::vector<std::string> names = idx.projection.non_key_attributes;
      std::sort(names.begin(), names.end());
      for (const auto& n : names) w.String(n);
      w.EndArray();
    }
    w.EndObject();
    w.Key("VectorAttribute");
    w.BeginObject();
    w.Key("AttributeName");
    w.String(idx.vector_attribute);
    w.EndObject();
    w.Key("Dimensions");
    w.Int(idx.dimensions);
    w.Key("DistanceFunction");
    w.String(EnumName(idx.distance_function));
    w.Key("IndexStatus");
    w.String(EnumName(idx.index_status));
    // Reported for an index added by UpdateTable only (VectorIndexDescription.Backfilling).
    if (idx.reports_backfilling) {
      w.Key("Backfilling");
      w.Bool(idx.backfilling);
    }
    w.Key("IndexSizeBytes");
    w.Int(idx.size_bytes);
    w.Key("ItemCount");
    w.Int(idx.item_count);
    w.Key("IndexArn");
    w.String(util::IndexArn(d.table_arn, idx.index_name));
    w.EndObject();
  }
  w.EndArray();
}

Result<std::vector<SecondaryIndexDefinition>> ReadIndexes(const JsonObject& request,
                                                          std::string_view member,
                                                          const std::string& path, Violations* v) {
  std::vector<SecondaryIndexDefinition> out;
  DDB_ASSIGN_OR_RETURN(auto arr, GetArray(request, member));
  if (!arr) return out;
  size_t i = 0;
  for (JsonElement e : *arr) {
    ++i;
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS) return WrongType(member, "a list of objects");
    DDB_ASSIGN_OR_RETURN(SecondaryIndexDefinition idx,
                         ReadIndex(o, path + "." + std::to_string(i) + ".member", v));
    out.push_back(std::move(idx));
  }
  return out;
}

// AttributeDefinitions (absent: empty).
Result<std::vector<AttributeDefinition>> ReadAttributeDefinitions(const JsonObject& request,
                                                                  Violations* v) {
  std::vector<AttributeDefinition> out;
  DDB_ASSIGN_OR_RETURN(auto defs, GetArray(request, "AttributeDefinitions"));
  if (!defs) return out;
  size_t i = 0;
  for (JsonElement e : *defs) {
    ++i;
    JsonObject o;
    if (e.get(o) != simdjson::SUCCESS)
      return WrongType("AttributeDefinitions", "a list of objects");
    std::string p = "attributeDefinitions." + std::to_string(i) + ".member.";
    AttributeDefinition a;
    DDB_ASSIGN_OR_RETURN(auto name, GetString(o, "AttributeName"));
    DDB_ASSIGN_OR_RETURN(auto type, GetString(o, "AttributeType"));
    if (!name) {
      v->NotNull(p + "attributeName");
    } else {
      a.attribute_name = std::string(*name);
      v->Length(*name, p + "attributeName", 1, 255);
    }
    if (!type) {
      v->NotNull(p + "attributeType");
    } else if (auto t = v->EnumValue<ScalarType>(*type, p + "attributeType", "B, N, S")) {
      a.attribute_type = *t;
    }
    out.push_back(std::move(a));
  }
  return out;
}

Result<std::optional<BillingMode>> ReadBillingMode(const JsonObject& request, Violations* v) {
  return ReadEnum<BillingMode>(request, "BillingMode", "billingMode",
                               "PROVISIONED, PAY_PER_REQUEST", v);
}

Result<std::optional<StreamSpecification>> ReadStream(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto stream, GetObject(request, "StreamSpecification"));
  if (!stream) return std::optional<StreamSpecification>();
  StreamSpecification s;
  DDB_ASSIGN_OR_RETURN(auto enabled, GetBool(*stream, "StreamEnabled"));
  if (!enabled) v->NotNull("streamSpecification.streamEnabled");
  s.stream_enabled = enabled.value_or(false);
  DDB_ASSIGN_OR_RETURN(
      s.stream_view_type,
      ReadEnum<StreamViewType>(*stream, "StreamViewType", "streamSpecification.streamViewType",
                               "NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY", v));
  return std::optional<StreamSpecification>(s);
}

// SSESpecification: Enabled (absent: KMS when an SSEType is given, else nothing to do),
// SSEType (AES256 or KMS), KMSMasterKeyId.
Result<std::optional<SseSpecification>> ReadSse(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto obj, GetObject(request, "SSESpecification"));
  if (!obj) return std::optional<SseSpecification>();
  DDB_ASSIGN_OR_RETURN(auto enabled, GetBool(*obj, "Enabled"));
  DDB_ASSIGN_OR_RETURN(auto type, GetString(*obj, "SSEType"));
  DDB_ASSIGN_OR_RETURN(auto key, GetString(*obj, "KMSMasterKeyId"));
  if (type && *type != "AES256" && *type != "KMS") {
    v->Enum(*type, "sSESpecification.sSEType", "AES256, KMS");
  }
  if (!enabled && !type) return std::optional<SseSpecification>();
  SseSpecification spec;
  spec.enabled = enabled.value_or(true);
  if (key) spec.kms_key_id = std::string(*key);
  return std::optional<SseSpecification>(std::move(spec));
}

// Not an enum violation: the service has its own message for an unknown table class.
Result<std::optional<TableClass>> ReadTableClass(const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string_view> text, GetString(request, "TableClass"));
  if (!text) return std::optional<TableClass>();
  std::optional<TableClass> table_class = EnumFromName<TableClass>(*text);
  if (!table_class) {
    return Error::Validation(
        "Invalid table-class parameter provided. Please try again with a valid table-class "
        "value: [STANDARD, STANDARD_INFREQUENT_ACCESS].");
  }
  return table_class;
}

void WriteThroughput(JsonWriter& w, const ProvisionedThroughput& t) {
  w.BeginObject();
  w.Key("NumberOfDecreasesToday");
  w.Int(0);
  w.Key("ReadCapacityUnits");
  w.Int(t.read_capacity_units);
  w.Key("WriteCapacityUnits");
  w.Int(t.write_capacity_units);
  w.EndObject();
}

void WriteOnDemand(JsonWriter& w, const OnDemandThroughput& t) {
  // A member without a maximum (-1) is left out.
  w.BeginObject();
  if (t.max_read_request_units != -1) {
    w.Key("MaxReadRequestUnits");
    w.Int(t.max_read_request_units);
  }
  if (t.max_write_request_units != -1) {
    w.Key("MaxWriteRequestUnits");
    w.Int(t.max_write_request_units);
  }
  w.EndObject();
}

void WriteWarm(JsonWriter& w, const WarmThroughput& warm, std::string_view status) {
  w.Key("WarmThroughput");
  w.BeginObject();
  w.Key("ReadUnitsPerSecond");
  w.Int(warm.read_units_per_second);
  w.Key("WriteUnitsPerSecond");
  w.Int(warm.write_units_per_second);
  w.Key("Status");
  w.String(status);
  w.EndObject();
}

void WriteIndexes(JsonWriter& w, const TableDescription& d,
                  const std::vector<SecondaryIndexDefinition>& indexes, bool global,
                  bool with_warm) {
  w.BeginArray();
  for (const auto& idx : indexes) {
    w.BeginObject();
    w.Key("IndexName");
    w.String(idx.index_name);
    w.Key("KeySchema");
    WriteKeySchema(w, idx.key_schema);
    w.Key("Projection");
    w.BeginObject();
    w.Key("ProjectionType");
    w.String(ProjectionTypeName(idx.projection.projection_type));
    if (!idx.projection.non_key_attributes.empty()) {
      w.Key("NonKeyAttributes");
      w.BeginArray();
      std::vector<std::string> names = idx.projection.non_key_attributes;  // sorted, as served
      std::sort(names.begin(), names.end());
      for (const auto& n : names) w.String(n);
      w.EndArray();
    }
    w.EndObject();
    if (global) {
      w.Key("IndexStatus");
      w.String(EnumName(idx.index_status));
      if (idx.backfilling) {
        w.Key("Backfilling");
        w.Bool(true);
      }
      w.Key("ProvisionedThroughput");
      WriteThroughput(w, idx.provisioned_throughput.value_or(ProvisionedThroughput{}));
      if (idx.on_demand_throughput) {
        w.Key("OnDemandThroughput");
        WriteOnDemand(w, *idx.on_demand_throughput);
      }
      // An index starts warm at the on-demand baseline or at its provisioned capacity.
      const ProvisionedThroughput pt = idx.provisioned_throughput.value_or(ProvisionedThroughput{});
      const bool on_demand = d.billing_mode == BillingMode::kPayPerRequest;
      if (with_warm) {
        WriteWarm(w,
                  WarmThroughput{on_demand ? kBaselineWarmReads : pt.read_capacity_units,
                                 on_demand ? kBaselineWarmWrites : pt.write_capacity_units},
                  EnumName(idx.index_status));
      }
    }
    w.Key("IndexSizeBytes");
    w.Int(idx.size_bytes);
    w.Key("ItemCount");
    w.Int(idx.item_count);
    w.Key("IndexArn");
    w.String(util::IndexArn(d.table_arn, idx.index_name));
    w.EndObject();
  }
  w.EndArray();
}

// AttributeDefinitions, sorted by name as the service returns them.
void WriteAttributeDefinitions(JsonWriter& w, const TableDescription& d) {
  std::vector<AttributeDefinition> definitions = d.attribute_definitions;
  std::sort(definitions.begin(), definitions.end(),
            [](const AttributeDefinition& a, const AttributeDefinition& b) {
              return a.attribute_name < b.attribute_name;
            });
  w.Key("AttributeDefinitions");
  w.BeginArray();
  for (const auto& a : definitions) {
    w.BeginObject();
    w.Key("AttributeName");
    w.String(a.attribute_name);
    w.Key("AttributeType");
    w.String(ScalarTypeName(a.attribute_type));
    w.EndObject();
  }
  w.EndArray();
}

// DeleteTable's description leaves out the schema: no AttributeDefinitions, KeySchema,
// CreationDateTime, indexes or warm throughput, as the service answers. CreateTable's has no
// warm throughput unless the request set one (then UPDATING), and no
// LastUpdateToPayPerRequestDateTime (recorded answers; tests/wire/test_table_answers.py).
enum class DescriptionOf { kTable, kCreatedTable, kDeletedTable };

void WriteTableDescription(JsonWriter& w, const TableDescription& d,
                           DescriptionOf of = DescriptionOf::kTable) {
  const bool schema = of != DescriptionOf::kDeletedTable;
  const bool created = of == DescriptionOf::kCreatedTable;
  w.BeginObject();
  if (schema) WriteAttributeDefinitions(w, d);
  w.Key("TableName");
  w.String(d.table_name);
  if (schema) {
    w.Key("KeySchema");
    WriteKeySchema(w, d.key_schema);
  }
  w.Key("TableStatus");
  w.String(TableStatusName(d.table_status));
  if (schema) {
    w.Key("CreationDateTime");
    w.Double(d.creation_date_time);
  }
  w.Key("ProvisionedThroughput");
  WriteThroughput(w, d.provisioned_throughput);
  w.Key("TableSizeBytes");
  w.Int(d.table_size_bytes);
  w.Key("ItemCount");
  w.Int(d.item_count);
  w.Key("TableArn");
  w.String(d.table_arn);
  w.Key("TableId");
  w.String(d.table_id);
  // Only a table that is or was on-demand has a billing summary: the service writes none for
  // one that was always provisioned.
  const bool on_demand = d.billing_mode == BillingMode::kPayPerRequest;
  if (on_demand || d.last_update_to_pay_per_request > 0) {
    w.Key("BillingModeSummary");
    w.BeginObject();
    w.Key("BillingMode");
    w.String(on_demand ? "PAY_PER_REQUEST" : "PROVISIONED");
    if (!created) {
      w.Key("LastUpdateToPayPerRequestDateTime");
      w.Double(d.last_update_to_pay_per_request > 0 ? d.last_update_to_pay_per_request
                                                    : d.creation_date_time);
    }
    w.EndObject();
  }
  if (schema && !d.local_secondary_indexes.empty()) {
    w.Key("LocalSecondaryIndexes");
    WriteIndexes(w, d, d.local_secondary_indexes, false, !created);
  }
  if (schema && !d.global_secondary_indexes.empty()) {
    w.Key("GlobalSecondaryIndexes");
    WriteIndexes(w, d, d.global_secondary_indexes, true, !created);
  }
  if (schema && !d.vector_indexes.empty()) {
    w.Key("VectorIndexes");
    WriteVectorIndexes(w, d);
  }
  if (d.stream_specification) {
    w.Key("StreamSpecification");
    w.BeginObject();
    w.Key("StreamEnabled");
    w.Bool(d.stream_specification->stream_enabled);
    w.Key("StreamViewType");
    w.String(
        EnumName(d.stream_specification->stream_view_type.value_or(StreamViewType::kKeysOnly)));
    w.EndObject();
  }
  if (d.latest_stream_label && d.latest_stream_arn) {
    w.Key("LatestStreamLabel");
    w.String(*d.latest_stream_label);
    w.Key("LatestStreamArn");
    w.String(*d.latest_stream_arn);
  }
  if (d.on_demand_throughput) {
    w.Key("OnDemandThroughput");
    WriteOnDemand(w, *d.on_demand_throughput);
  }
  if (schema && !created) {
    WriteWarm(w, d.EffectiveWarmThroughput(), TableStatusName(d.table_status));
  } else if (created && d.warm_throughput) {
    WriteWarm(w, *d.warm_throughput, "UPDATING");
  }
  if (d.table_class) {
    w.Key("TableClassSummary");
    w.BeginObject();
    w.Key("TableClass");
    w.String(EnumName(*d.table_class));
    if (d.table_class_last_update > 0) {
      w.Key("LastUpdateDateTime");
      w.Double(d.table_class_last_update);
    }
    w.EndObject();
  }
  if (d.sse_kms_key) {
    // The key's ARN is in the table's region and account.
    std::string key = *d.sse_kms_key;
    if (key.rfind("arn:", 0) != 0) key = util::KmsKeyArn(d.table_arn, key);
    w.Key("SSEDescription");
    w.BeginObject();
    w.Key("Status");
    w.String("ENABLED");
    w.Key("SSEType");
    w.String("KMS");
    w.Key("KMSMasterKeyArn");
    w.String(key);
    w.EndObject();
  }
  if (d.restore_summary) {
    w.Key("RestoreSummary");
    w.BeginObject();
    w.OptionalString("SourceBackupArn", d.restore_summary->source_backup_arn);
    w.OptionalString("SourceTableArn", d.restore_summary->source_table_arn);
    w.Key("RestoreDateTime");
    w.Double(d.restore_summary->restore_date_time);
    w.Key("RestoreInProgress");
    w.Bool(d.restore_summary->restore_in_progress);
    w.EndObject();
  }
  if (schema) WriteReplicas(w, d);
  w.Key("DeletionProtectionEnabled");
  w.Bool(d.deletion_protection_enabled);
  w.EndObject();
}

std::string RenderDescription(std::string_view member, const TableDescription& d,
                              DescriptionOf of = DescriptionOf::kTable) {
  JsonWriter w;
  w.BeginObject();
  w.Key(member);
  WriteTableDescription(w, d, of);
  w.EndObject();
  return w.Take();
}

}  // namespace

std::string RenderTableDescription(std::string_view member, const TableDescription& d) {
  return RenderDescription(member, d);
}

Result<RestoreOverrides> ReadRestoreOverrides(const JsonObject& request, Violations* v) {
  RestoreOverrides o;
  DDB_ASSIGN_OR_RETURN(o.billing_mode_override,
                       ReadEnum<BillingMode>(request, "BillingModeOverride", "billingModeOverride",
                                             "PROVISIONED, PAY_PER_REQUEST", v));
  if (Present(request, "GlobalSecondaryIndexOverride")) {
    DDB_ASSIGN_OR_RETURN(
        o.global_secondary_index_override,
        ReadIndexes(request, "GlobalSecondaryIndexOverride", "globalSecondaryIndexOverride", v));
  }
  if (Present(request, "LocalSecondaryIndexOverride")) {
    DDB_ASSIGN_OR_RETURN(
        o.local_secondary_index_override,
        ReadIndexes(request, "LocalSecondaryIndexOverride", "localSecondaryIndexOverride", v));
  }
  DDB_ASSIGN_OR_RETURN(auto throughput, GetObject(request, "ProvisionedThroughputOverride"));
  if (throughput) {
    ProvisionedThroughput t;
    DDB_ASSIGN_OR_RETURN(auto read, GetInt(*throughput, "ReadCapacityUnits"));
    DDB_ASSIGN_OR_RETURN(auto write, GetInt(*throughput, "WriteCapacityUnits"));
    if (!read) {
      v->NotNull("provisionedThroughputOverride.readCapacityUnits");
    } else if (v->Range(*read, "provisionedThroughputOverride.readCapacityUnits", 1)) {
      t.read_capacity_units = *read;
    }
    if (!write) {
      v->NotNull("provisionedThroughputOverride.writeCapacityUnits");
    } else if (v->Range(*write, "provisionedThroughputOverride.writeCapacityUnits", 1)) {
      t.write_capacity_units = *write;
    }
    o.provisioned_throughput_override = t;
  }
  DDB_ASSIGN_OR_RETURN(o.on_demand_throughput_override,
                       ReadOnDemand(request, "OnDemandThroughputOverride"));
  DDB_ASSIGN_OR_RETURN(auto sse, GetObject(request, "SSESpecificationOverride"));
  if (sse) {
    DDB_ASSIGN_OR_RETURN(auto enabled, GetBool(*sse, "Enabled"));
    DDB_ASSIGN_OR_RETURN(auto type, GetString(*sse, "SSEType"));
    DDB_ASSIGN_OR_RETURN(auto key, GetString(*sse, "KMSMasterKeyId"));
    if (type && *type != "AES256" && *type != "KMS") {
      v->Enum(*type, "sSESpecificationOverride.sSEType", "AES256, KMS");
    }
    if (enabled || type) {
      SseSpecification spec;
      spec.enabled = enabled.value_or(true);
      if (key) spec.kms_key_id = std::string(*key);
      o.sse_specification_override = std::move(spec);
    }
  }
  return o;
}

void WriteKeySchema(JsonWriter& w, const std::vector<KeySchemaElement>& ks) {
  w.BeginArray();
  for (const auto& k : ks) {
    w.BeginObject();
    w.Key("AttributeName");
    w.String(k.attribute_name);
    w.Key("KeyType");
    w.String(k.key_type == KeyType::kHash ? "HASH" : "RANGE");
    w.EndObject();
  }
  w.EndArray();
}

Result<CreateTableRequest> ReadCreateTable(const JsonObject& request) {
  Violations v;
  CreateTableRequest req;
  // CreateTable answers a missing name alone, in a sentence of its own (2026).
  if (!Present(request, "TableName")) {
    return Error::Validation(
        "The parameter 'TableName' is required but was not present in the request");
  }
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));

  if (!Present(request, "AttributeDefinitions")) v.NotNull("attributeDefinitions");
  DDB_ASSIGN_OR_RETURN(req.attribute_definitions, ReadAttributeDefinitions(request, &v));
  DDB_ASSIGN_OR_RETURN(auto ks, GetArray(request, "KeySchema"));
  if (!ks) {
    v.NotNull("keySchema");
  } else {
    DDB_ASSIGN_OR_RETURN(req.key_schema, ReadKeySchema(*ks, "keySchema", &v));
  }
  // The service lists the global indexes' violations before the local ones'.
  DDB_ASSIGN_OR_RETURN(req.global_secondary_indexes, ReadIndexes(request, "GlobalSecondaryIndexes",
                                                                 "globalSecondaryIndexes", &v));
  DDB_ASSIGN_OR_RETURN(req.local_secondary_indexes,
                       ReadIndexes(request, "LocalSecondaryIndexes", "localSecondaryIndexes", &v));
  DDB_ASSIGN_OR_RETURN(req.billing_mode, ReadBillingMode(request, &v));
  DDB_ASSIGN_OR_RETURN(req.provisioned_throughput,
                       ReadThroughput(request, "provisionedThroughput", &v));
  DDB_ASSIGN_OR_RETURN(req.on_demand_throughput, ReadOnDemand(request));
  DDB_ASSIGN_OR_RETURN(req.warm_throughput, ReadWarm(request, &v));
  DDB_ASSIGN_OR_RETURN(req.stream_specification, ReadStream(request, &v));
  DDB_ASSIGN_OR_RETURN(req.table_class, ReadTableClass(request));
  DDB_ASSIGN_OR_RETURN(req.sse_specification, ReadSse(request, &v));
  DDB_ASSIGN_OR_RETURN(auto protection, GetBool(request, "DeletionProtectionEnabled"));
  req.deletion_protection_enabled = protection.value_or(false);
  DDB_ASSIGN_OR_RETURN(req.tags, ReadCreateTableTags(request, &v));
  DDB_ASSIGN_OR_RETURN(auto vector_indexes, GetArray(request, "VectorIndexes"));
  if (vector_indexes) {
    size_t i = 0;
    for (JsonElement e : *vector_indexes) {
      ++i;
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) return WrongType("VectorIndexes", "a list of objects");
      DDB_ASSIGN_OR_RETURN(
          VectorIndexDefinition idx,
          ReadVectorIndex(o, "vectorIndexes." + std::to_string(i) + ".member", &v));
      req.vector_indexes.push_back(std::move(idx));
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  // An index list that is present must not be empty (an empty Tags list is fine).
  for (std::string_view member :
       {"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "VectorIndexes"}) {
    DDB_ASSIGN_OR_RETURN(auto list, GetArray(request, member));
    if (list && list->size() == 0) {
      return Error::Validation("One or more parameter values were invalid: List of " +
                               std::string(member) + " is empty");
    }
  }

  return req;
}

Result<std::string> HandleCreateTable(Engine& engine, const RequestContext& ctx,
                                      const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(CreateTableRequest req, ReadCreateTable(request));
  DDB_ASSIGN_OR_RETURN(req.resource_policy, ReadCreateTablePolicy(request, ctx, req.table_name));
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.CreateTable(ctx, req));
  return RenderDescription("TableDescription", d, DescriptionOf::kCreatedTable);
}

Result<std::string> HandleDescribeTable(Engine& engine, const RequestContext& ctx,
                                        const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.DescribeTable(ctx, name));
  return RenderDescription("Table", d);
}

Result<std::string> HandleDeleteTable(Engine& engine, const RequestContext& ctx,
                                      const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string name, ReadTableName(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.DeleteTable(ctx, name));
  return RenderDescription("TableDescription", d, DescriptionOf::kDeletedTable);
}

Result<UpdateTableRequest> ReadUpdateTable(const JsonObject& request) {
  Violations v;
  UpdateTableRequest req;
  DDB_ASSIGN_OR_RETURN(req.table_name, ReadTableName(request, &v));
  DDB_ASSIGN_OR_RETURN(req.attribute_definitions, ReadAttributeDefinitions(request, &v));
  DDB_ASSIGN_OR_RETURN(req.billing_mode, ReadBillingMode(request, &v));
  DDB_ASSIGN_OR_RETURN(req.provisioned_throughput,
                       ReadThroughput(request, "provisionedThroughput", &v));
  DDB_ASSIGN_OR_RETURN(req.on_demand_throughput, ReadOnDemand(request));
  DDB_ASSIGN_OR_RETURN(req.warm_throughput, ReadWarm(request, &v));
  DDB_ASSIGN_OR_RETURN(req.stream_specification, ReadStream(request, &v));
  DDB_ASSIGN_OR_RETURN(req.table_class, ReadTableClass(request));
  DDB_ASSIGN_OR_RETURN(req.sse_specification, ReadSse(request, &v));
  DDB_ASSIGN_OR_RETURN(req.deletion_protection_enabled,
                       GetBool(request, "DeletionProtectionEnabled"));
  DDB_ASSIGN_OR_RETURN(auto updates, GetArray(request, "GlobalSecondaryIndexUpdates"));
  if (updates && updates->size() == 0 &&
      (req.billing_mode || req.provisioned_throughput || req.on_demand_throughput ||
       req.warm_throughput || req.sse_specification || req.stream_specification ||
       req.table_class || req.deletion_protection_enabled)) {
    // An empty list alone is as if absent; next to another change it is an error.
    return Error::Validation(
        "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty");
  }
  if (updates) {
    size_t i = 0;
    for (JsonElement e : *updates) {
      ++i;
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) {
        return WrongType("GlobalSecondaryIndexUpdates", "a list of objects");
      }
      std::string p = "globalSecondaryIndexUpdates." + std::to_string(i) + ".member";
      DDB_ASSIGN_OR_RETURN(auto create, GetObject(o, "Create"));
      DDB_ASSIGN_OR_RETURN(auto update, GetObject(o, "Update"));
      DDB_ASSIGN_OR_RETURN(auto del, GetObject(o, "Delete"));
      int actions = (create ? 1 : 0) + (update ? 1 : 0) + (del ? 1 : 0);
      if (actions == 0) {
        return Error::Validation(
            "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, "
            "GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be "
            "null");
      }
      if (actions > 1) {
        return Error::Validation(
            "One or more parameter values were invalid: Only one global secondary index action "
            "is allowed per GlobalSecondaryIndexUpdate object");
      }
      GlobalSecondaryIndexUpdate u;
      if (create) {
        u.kind = GlobalSecondaryIndexUpdate::Kind::kCreate;
        DDB_ASSIGN_OR_RETURN(u.index, ReadIndex(*create, p + ".create", &v));
        TableNameViolations(u.index.index_name, p + ".create.indexName", v.list());
        if (!Present(request, "AttributeDefinitions")) {
          return Error::Validation("AttributeDefinitions is not specified for index: " +
                                   u.index.index_name);
        }
      } else {
        u.kind = update ? GlobalSecondaryIndexUpdate::Kind::kUpdate
                        : GlobalSecondaryIndexUpdate::Kind::kDelete;
        const JsonObject& body = update ? *update : *del;
        DDB_ASSIGN_OR_RETURN(auto name, GetString(body, "IndexName"));
        if (!name) {
          v.NotNull(p + (update ? ".update.indexName" : ".delete.indexName"));
        } else {
          u.index.index_name = std::string(*name);
        }
        if (update) {
          DDB_ASSIGN_OR_RETURN(u.index.provisioned_throughput,
                               ReadThroughput(body, p + ".update.provisionedThroughput", &v));
          DDB_ASSIGN_OR_RETURN(u.index.on_demand_throughput, ReadOnDemand(body));
        }
      }
      req.global_secondary_index_updates.push_back(std::move(u));
    }
  }
  DDB_ASSIGN_OR_RETURN(auto vector_updates, GetArray(request, "VectorIndexUpdates"));
  if (vector_updates) {
    size_t i = 0;
    for (JsonElement e : *vector_updates) {
      ++i;
      JsonObject o;
      if (e.get(o) != simdjson::SUCCESS) {
        return WrongType("VectorIndexUpdates", "a list of objects");
      }
      std::string p = "vectorIndexUpdates." + std::to_string(i) + ".member";
      DDB_ASSIGN_OR_RETURN(auto create, GetObject(o, "Create"));
      DDB_ASSIGN_OR_RETURN(auto del, GetObject(o, "Delete"));
      // As GlobalSecondaryIndexUpdate's rules (guessed wording for vector indexes).
      if (!create && !del) {
        return Error::Validation(
            "One or more parameter values were invalid: One of VectorIndexUpdate.Create, "
            "VectorIndexUpdate.Delete must not be null");
      }
      if (create && del) {
        return Error::Validation(
            "One or more parameter values were invalid: Only one vector index action is allowed "
            "per VectorIndexUpdate object");
      }
      VectorIndexUpdate u;
      if (create) {
        u.kind = VectorIndexUpdate::Kind::kCreate;
        DDB_ASSIGN_OR_RETURN(u.index, ReadVectorIndex(*create, p + ".create", &v));
      } else {
        u.kind = VectorIndexUpdate::Kind::kDelete;
        DDB_ASSIGN_OR_RETURN(auto name, GetString(*del, "IndexName"));
        if (!name) {
          v.NotNull(p + ".delete.indexName");
        } else {
          u.index.index_name = std::string(*name);
        }
      }
      req.vector_index_updates.push_back(std::move(u));
    }
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  return req;
}

Result<std::string> HandleUpdateTable(Engine& engine, const RequestContext& ctx,
                                      const JsonObject& request) {
  return UpdateTableWith(nullptr, engine, ctx, request);
}

Result<std::string> UpdateTableWith(ReplicaCoordinator* replicas, Engine& engine,
                                    const RequestContext& ctx, const JsonObject& request) {
  DDB_ASSIGN_OR_RETURN(UpdateTableRequest req, ReadUpdateTable(request));
  DDB_ASSIGN_OR_RETURN(std::optional<ReplicaChanges> replica_updates, ReadReplicaChanges(request));
  if (!replica_updates) {
    DDB_ASSIGN_OR_RETURN(TableDescription d, engine.UpdateTable(ctx, req));
    if (replicas && !d.replicas.empty()) replicas->FollowUpdateTable(ctx, d, req);
    return RenderDescription("TableDescription", d);
  }
  if (req.billing_mode || req.provisioned_throughput || req.on_demand_throughput ||
      req.warm_throughput || req.sse_specification || req.stream_specification || req.table_class ||
      req.deletion_protection_enabled || !req.global_secondary_index_updates.empty() ||
      !req.vector_index_updates.empty()) {
    if (replica_updates->strong || !replica_updates->witness_updates.empty()) {
      return Error::Validation(
          "Requests that modify replicas or witnesses must not also modify other fields");
    }
    return Error::Validation(
        "One or more parameter values were invalid: Replica modification must be the only "
        "operation in the request");
  }
  if (!replicas) {
    return Error::Validation(
        "ReplicaUpdates need Regions of their own: this server keeps one namespace of tables "
        "for every Region (start ddb-server with --isolation account or access-key for global "
        "tables)");
  }
  DDB_ASSIGN_OR_RETURN(TableDescription d,
                       replicas->UpdateReplicas(engine, ctx, req.table_name, *replica_updates));
  return RenderDescription("TableDescription", d);
}

Result<std::string> HandleListTables(Engine& engine, const RequestContext&,
                                     const JsonObject& request) {
  Violations v;
  ListTablesRequest req;
  DDB_ASSIGN_OR_RETURN(auto start, GetString(request, "ExclusiveStartTableName"));
  if (start) {
    TableNameViolations(*start, "exclusiveStartTableName", v.list());
    req.exclusive_start_table_name = std::string(*start);
  }
  DDB_ASSIGN_OR_RETURN(auto limit, GetInt(request, "Limit"));
  if (limit) {
    if (v.Range(*limit, "limit", 1, 100)) req.limit = static_cast<int>(*limit);
  }
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ListTablesResult result, engine.ListTables(req));
  JsonWriter w;
  w.BeginObject();
  w.Key("TableNames");
  w.BeginArray();
  for (const auto& n : result.table_names) w.String(n);
  w.EndArray();
  w.OptionalString("LastEvaluatedTableName", result.last_evaluated_table_name);
  w.EndObject();
  return w.Take();
}

}  // namespace ddb::protocol
