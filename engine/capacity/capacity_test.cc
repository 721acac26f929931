#include <gtest/gtest.h>

#include "engine/capacity/write_capacity.h"
#include "engine/catalog.h"

namespace ddb {
namespace {

Item ItemOfSize(size_t bytes) {
  // "pk" (2 bytes) + a string value; the rest in "v" (1-byte name).
  return Item{{"pk", AttributeValue::S("k")},
              {"v", AttributeValue::S(std::string(bytes - 4, 'x'))}};
}

TEST(Capacity, ReadUnitsFollowFourKilobyteRounding) {
  struct Case {
    size_t bytes;
    bool consistent;
    bool transactional;
    double units;
  } cases[] = {
      {0, true, false, 1},     {0, false, false, 0.5},  {1, true, false, 1},
      {4096, true, false, 1},  {4097, true, false, 2},  {4097, false, false, 1},
      {8192, false, false, 1}, {10240, true, false, 3}, {10240, false, false, 1.5},
      {4096, true, true, 2},   {4097, false, true, 4},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ReadUnits(c.bytes, c.consistent, c.transactional), c.units) << c.bytes;
  }
}

TEST(Capacity, WriteUnitsFollowOneKilobyteRounding) {
  EXPECT_EQ(WriteUnits(0), 1);
  EXPECT_EQ(WriteUnits(1024), 1);
  EXPECT_EQ(WriteUnits(1025), 2);
  EXPECT_EQ(WriteUnits(3500), 4);
  EXPECT_EQ(WriteUnits(1025, /*transactional=*/true), 4);
}

TEST(Capacity, WriteCostsTheLargerOfOldAndNew) {
  TableInfo table;
  table.description.table_name = "t";
  ConsumedCapacity c("t");
  AddWriteCapacity(table, ItemOfSize(3000), ItemOfSize(500), false, &c);
  EXPECT_EQ(c.capacity_units, 3);
  EXPECT_EQ(c.write_capacity_units, 3);
  ConsumedCapacity missing("t");
  AddWriteCapacity(table, std::nullopt, std::nullopt, false, &missing);  // delete of nothing
  EXPECT_EQ(missing.capacity_units, 1);
}

TEST(Capacity, IndexWritesAreCountedPerIndexAndKeyChangesTwice) {
  TableInfo table;
  table.description.table_name = "t";
  IndexSchema gsi;
  gsi.index_id = 9;
  gsi.name = "g";
  gsi.global = true;
  gsi.hash_attrs = {{"gk", AttributeType::kS}};
  gsi.projection = ProjectionType::kKeysOnly;
  gsi.table_hash = "pk";
  table.indexes.push_back(gsi);

  Item before{{"pk", AttributeValue::S("k")}, {"gk", AttributeValue::S("a")}};
  Item after{{"pk", AttributeValue::S("k")}, {"gk", AttributeValue::S("b")}};
  ConsumedCapacity moved("t");
  AddWriteCapacity(table, before, after, false, &moved);
  EXPECT_EQ(moved.table_units, 1);
  EXPECT_EQ(moved.global_secondary_indexes.at("g"), 2);  // delete + put
  EXPECT_EQ(moved.capacity_units, 3);

  Item unindexed{{"pk", AttributeValue::S("k")}, {"x", AttributeValue::S("1")}};
  ConsumedCapacity sparse("t");
  AddWriteCapacity(table, std::nullopt, unindexed, false, &sparse);
  EXPECT_TRUE(sparse.global_secondary_indexes.empty());
  EXPECT_EQ(sparse.capacity_units, 1);

  ConsumedCapacity unchanged("t");
  Item same_key = before;
  same_key["x"] = AttributeValue::S("2");  // not projected: the entry does not change
  AddWriteCapacity(table, before, same_key, false, &unchanged);
  EXPECT_TRUE(unchanged.global_secondary_indexes.empty());
}

}  // namespace
}  // namespace ddb
