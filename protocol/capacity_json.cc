#include "protocol/capacity_json.h"

#include "protocol/attribute_value_json.h"

namespace ddb::protocol {
namespace {

void WriteSplit(JsonWriter& w, double units, CapacitySplit split) {
  if (split == CapacitySplit::kNone) return;
  w.Key(split == CapacitySplit::kRead ? "ReadCapacityUnits" : "WriteCapacityUnits");
  w.Number(units);
}

void WriteUnits(JsonWriter& w, double units, CapacitySplit split = CapacitySplit::kNone) {
  w.BeginObject();
  w.Key("CapacityUnits");
  w.Number(units);
  WriteSplit(w, units, split);
  w.EndObject();
}

void WriteOne(JsonWriter& w, const ConsumedCapacity& c, ReturnConsumedCapacity mode,
              CapacitySplit split) {
  w.BeginObject();
  w.Key("TableName");
  w.String(c.table_name);
  w.Key("CapacityUnits");
  w.Number(c.capacity_units);
  WriteSplit(w, c.capacity_units, split);
  if (mode == ReturnConsumedCapacity::kIndexes) {
    w.Key("Table");
    WriteUnits(w, c.table_units, split);
    for (const auto& [member, indexes] :
         {std::pair{"LocalSecondaryIndexes", &c.local_secondary_indexes},
          std::pair{"GlobalSecondaryIndexes", &c.global_secondary_indexes}}) {
      if (indexes->empty()) continue;
      w.Key(member);
      w.BeginObject();
      for (const auto& [name, units] : *indexes) {
        w.Key(name);
        WriteUnits(w, units, split);
      }
      w.EndObject();
    }
  }
  w.EndObject();
}

}  // namespace

Result<ReturnConsumedCapacity> ReadReturnConsumedCapacity(const JsonObject& request,
                                                          Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto rcc, ReadEnum<ReturnConsumedCapacity>(request, "ReturnConsumedCapacity",
                                                                  "returnConsumedCapacity",
                                                                  "INDEXES, TOTAL, NONE", v));
  return rcc.value_or(ReturnConsumedCapacity::kNone);
}

void WriteConsumedCapacity(JsonWriter& w, const std::optional<ConsumedCapacity>& c,
                           ReturnConsumedCapacity mode) {
  if (!c || mode == ReturnConsumedCapacity::kNone) return;
  w.Key("ConsumedCapacity");
  WriteOne(w, *c, mode, CapacitySplit::kNone);
}

void WriteConsumedCapacityList(JsonWriter& w, const std::vector<ConsumedCapacity>& list,
                               ReturnConsumedCapacity mode, CapacitySplit split) {
  if (mode == ReturnConsumedCapacity::kNone) return;
  w.Key("ConsumedCapacity");
  w.BeginArray();
  for (const auto& c : list) WriteOne(w, c, mode, split);
  w.EndArray();
}

void WriteItemCollectionMetrics(JsonWriter& w, const ItemCollectionMetrics& m) {
  w.BeginObject();
  w.Key("ItemCollectionKey");
  WriteAttributeMap(w, m.item_collection_key);
  w.Key("SizeEstimateRangeGB");
  w.BeginArray();
  w.Number(m.size_estimate_lower_gb);
  w.Number(m.size_estimate_upper_gb);
  w.EndArray();
  w.EndObject();
}

void WriteItemCollectionMetricsMap(
    JsonWriter& w, const std::vector<TableEntry<std::vector<ItemCollectionMetrics>>>& metrics) {
  if (metrics.empty()) return;
  w.Key("ItemCollectionMetrics");
  w.BeginObject();
  for (const auto& [table, list] : metrics) {
    w.Key(table);
    w.BeginArray();
    for (const auto& m : list) WriteItemCollectionMetrics(w, m);
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace ddb::protocol
