#include "cli/metrics_text.h"

#include <gtest/gtest.h>

namespace ddb::cli {
namespace {

constexpr char kText[] = R"(# HELP ddb_partition_items Items in one partition (since start).
# TYPE ddb_partition_items gauge
ddb_partition_items{table="T",partition="0",range_start="0x0000000000000000",range_end="0x7fffffffffffffff"} 10
ddb_partition_items{table="T",partition="1",range_start="0x8000000000000000",range_end="0xffffffffffffffff"} 12
ddb_partition_items{table="T",index="g",partition="0",range_start="0x0000000000000000",range_end="0xffffffffffffffff"} 3
ddb_partition_items{table="Other",partition="0",range_start="0x0",range_end="0x1"} 99
ddb_partition_consumed_capacity_units_total{table="T",partition="1",range_start="0x8000000000000000",range_end="0xffffffffffffffff",kind="write"} 7.5
ddb_partition_throttled_requests_total{table="T",partition="1",range_start="0x8000000000000000",range_end="0xffffffffffffffff",kind="read"} 2
ddb_hot_key_consumed_capacity_units{table="T",rank="2",key="b\"q"} 3
ddb_hot_key_consumed_capacity_units{table="T",rank="1",key="a{}"} 5
ddb_requests_total 4
ddb_table_items{table="T"} 22
ddb_table_items{table="T",index="idle"} 5
ddb_table_size_bytes{table="T",index="idle"} 500
malformed{ 1
)";

TEST(CliMetricsText, Samples) {
  const std::vector<MetricSample> s = ParseMetricsText(kText);
  ASSERT_EQ(s.size(), 12u);
  EXPECT_EQ(s[0].name, "ddb_partition_items");
  EXPECT_EQ(s[0].labels.at("range_end"), "0x7fffffffffffffff");
  EXPECT_EQ(s[8].name, "ddb_requests_total");
  EXPECT_EQ(s[8].value, 4);
}

TEST(CliMetricsText, PartitionsAndHotKeys) {
  const std::vector<MetricSample> s = ParseMetricsText(kText);
  const std::vector<PartitionRow> p = PartitionsOf(s, "T");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].index, "");
  EXPECT_EQ(p[0].items, 10);
  EXPECT_EQ(p[1].partition, 1);
  EXPECT_EQ(p[1].write_units, 7.5);
  EXPECT_EQ(p[1].read_throttles, 2);
  EXPECT_EQ(p[2].index, "g");
  EXPECT_TRUE(p[2].active);
  EXPECT_EQ(p[3].index, "idle");  // no activity: the stored figures, one whole range
  EXPECT_FALSE(p[3].active);
  EXPECT_EQ(p[3].items, 5);
  EXPECT_EQ(p[3].bytes, 500);
  EXPECT_EQ(p[3].range_end, "0xffffffffffffffff");
  const std::vector<HotKeyRow> h = HotKeysOf(s, "T");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].key, "a{}");
  EXPECT_EQ(h[1].key, "b\"q");
  EXPECT_TRUE(HotKeysOf(s, "None").empty());
}

}  // namespace
}  // namespace ddb::cli
