// What writes charge to the partition model: a GSI's partitions count the entries they hold
// and those entries' IndexSizeBytes, as the table's partitions count items and bytes, so the
// partition lab shows a GSI's size and splits it by size too.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ddb/engine.h"

namespace ddb {
namespace {

class CapacityAccountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.in_memory = true;
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
    CreateTableRequest req;
    req.table_name = "tbl";
    req.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    SecondaryIndexDefinition gsi;
    gsi.index_name = "by-g";
    gsi.key_schema = {{"g", KeyType::kHash}};
    req.global_secondary_indexes = {gsi};
    ASSERT_TRUE(engine_->CreateTable(RequestContext{}, req).ok());
  }

  void Put(const std::string& pk, const std::string* g, const std::string& payload) {
    PutItemRequest req;
    req.table_name = "tbl";
    req.item = {{"pk", AttributeValue::S(pk)}, {"x", AttributeValue::S(payload)}};
    if (g) req.item["g"] = AttributeValue::S(*g);
    ASSERT_TRUE(engine_->PutItem(req).ok());
  }

  // The GSI's items and bytes, summed over its partitions, and what DescribeTable reports.
  struct Sizes {
    int64_t partition_items = 0, partition_bytes = 0, described_items = 0, described_bytes = 0;
  };
  Sizes IndexSizes() {
    Sizes s;
    for (const ResourceSnapshot& r : engine_->GetMetrics().resources) {
      if (r.table != "tbl" || r.index != "by-g") continue;
      for (const PartitionSnapshot& p : r.partitions) {
        s.partition_items += p.items;
        s.partition_bytes += p.bytes;
      }
    }
    auto d = engine_->DescribeTable(RequestContext{}, "tbl");
    EXPECT_TRUE(d.ok());
    if (d.ok()) {
      s.described_items = d->global_secondary_indexes.at(0).item_count;
      s.described_bytes = d->global_secondary_indexes.at(0).size_bytes;
    }
    return s;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(CapacityAccountingTest, GsiPartitionsCountTheirEntriesAndTheirBytes) {
  const std::string a = "a", b = "b";
  for (int i = 0; i < 20; ++i) Put("k" + std::to_string(i), i % 2 ? &a : &b, "v");
  Put("k0", &a, std::string(500, 'y'));  // grows, and moves from b to a
  Put("k1", nullptr, "v");               // leaves the index
  Put("k2", &b, "w");                    // same partition, same size
  DeleteItemRequest del;
  del.table_name = "tbl";
  del.key = {{"pk", AttributeValue::S("k3")}};
  ASSERT_TRUE(engine_->DeleteItem(del).ok());
  Sizes s = IndexSizes();
  EXPECT_EQ(s.described_items, 18);
  EXPECT_EQ(s.partition_items, s.described_items);
  EXPECT_GT(s.described_bytes, 18 * 100);
  EXPECT_EQ(s.partition_bytes, s.described_bytes);
}

}  // namespace
}  // namespace ddb
