#include "cli/output.h"

#include <gtest/gtest.h>

#include "cli/progress.h"

namespace ddb::cli {
namespace {

TEST(CliOutput, ValueText) {
  simdjson::dom::parser parser;
  auto text = [&](const char* json) { return ValueText(parser.parse(std::string(json))); };
  EXPECT_EQ(text(R"({"S":"abc"})"), "abc");
  EXPECT_EQ(text(R"({"N":"-1.5"})"), "-1.5");
  EXPECT_EQ(text(R"({"BOOL":true})"), "true");
  EXPECT_EQ(text(R"({"NULL":true})"), "null");
  EXPECT_EQ(text(R"({"SS":["a","b"]})"), "[a, b]");
  EXPECT_EQ(text(R"({"L":[{"N":"1"},{"S":"x"}]})"), "[1, x]");
  EXPECT_EQ(text(R"({"M":{"k":{"N":"2"}}})"), "{k: 2}");
}

TEST(CliOutput, TableAligned) {
  const std::string t = RenderTable({"pk", "value"}, {{"a", "1"}, {"long key", "é"}});
  EXPECT_EQ(t,
            "pk        value\n"
            "--------  -----\n"
            "a         1\n"
            "long key  é\n");
  EXPECT_EQ(RenderTable({"", ""}, {{"k", "v"}}), "k  v\n");
  EXPECT_EQ(RenderTable({"c"}, {{"abcdefghij"}}, 6), "c\n------\nabc...\n");
}

TEST(CliOutput, ItemsKeysFirst) {
  simdjson::dom::parser parser;
  simdjson::dom::array items = parser.parse(
      std::string(R"([{"v":{"N":"1"},"pk":{"S":"a"}},{"pk":{"S":"b"},"w":{"S":"x"}}])"));
  std::vector<simdjson::dom::element> rows(items.begin(), items.end());
  EXPECT_EQ(RenderItems(rows, {"pk"}),
            "pk  v  w\n"
            "--  -  -\n"
            "a   1\n"
            "b      x\n");
}

TEST(CliOutput, BarsAndNumbers) {
  EXPECT_EQ(Bar(0.5, 4, false), "##  ");
  EXPECT_EQ(Bar(1, 2, true), "\u2588\u2588");
  EXPECT_EQ(Bar(0.25, 2, true), "\u258C ");
  EXPECT_EQ(Bar(0.0625, 2, true), "\u258F ");
  EXPECT_EQ(Bar(0, 3, true), "   ");
  EXPECT_EQ(Grouped(1234567), "1,234,567");
  EXPECT_EQ(Grouped(12), "12");
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
}

TEST(CliProgress, Line) {
  EXPECT_EQ(Progress::Line(1000, 50, 100, 2.0, false),
            "1,000 items   50% [############            ]  500 items/s  ETA 2s");
  EXPECT_EQ(Progress::Line(10, 0, 0, 1.0, false), "10 items  10 items/s");
}

}  // namespace
}  // namespace ddb::cli
