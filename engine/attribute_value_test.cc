#include "ddb/attribute_value.h"

#include <gtest/gtest.h>

namespace ddb {
namespace {

// Sizes from the developer guide's rules: strings and binaries by length, numbers about one
// byte per two significant digits plus one, BOOL/NULL one byte, L/M 3 bytes plus one per
// element, names counted with their values.
TEST(ItemSize, Scalars) {
  EXPECT_EQ(AttributeValueSize(AttributeValue::S("hello")), 5u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::S("h\xc3\xa9")), 3u);  // UTF-8 bytes
  EXPECT_EQ(AttributeValueSize(AttributeValue::B("abc")), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::Bool(true)), 1u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::Null()), 1u);
}

TEST(ItemSize, Numbers) {
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("0")), 1u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("1")), 2u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("12")), 2u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("123")), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("1.2")), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("-1")), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("1000")), 2u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("0.001")), 2u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::N("12345678901234567890123456789012345678")), 20u);
}

TEST(ItemSize, Collections) {
  EXPECT_EQ(AttributeValueSize(AttributeValue::SS({"ab", "c"})), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::L({})), 3u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::L({AttributeValue::S("ab")})), 3u + 1u + 2u);
  EXPECT_EQ(AttributeValueSize(AttributeValue::M({{"k", AttributeValue::S("ab")}})),
            3u + 1u + 1u + 2u);
  Item item{{"pk", AttributeValue::S("abc")}, {"n", AttributeValue::N("1")}};
  EXPECT_EQ(ItemSize(item), 2u + 3u + 1u + 2u);
}

TEST(AttributeValue, SetsSortAndDetectDuplicates) {
  std::vector<std::string> ns = {"10", "-1", "2.5"};
  EXPECT_TRUE(SortSet(AttributeType::kNS, &ns));
  EXPECT_EQ(ns, (std::vector<std::string>{"-1", "2.5", "10"}));
  std::vector<std::string> ss = {"b", "a", "b"};
  EXPECT_FALSE(SortSet(AttributeType::kSS, &ss));
  std::vector<std::string> bs = {"\xff", std::string("\0", 1)};
  EXPECT_TRUE(SortSet(AttributeType::kBS, &bs));
  EXPECT_EQ(bs[0], std::string("\0", 1));
}

TEST(AttributeValue, EqualityIsTypedAndDeep) {
  EXPECT_EQ(AttributeValue::S("1"), AttributeValue::S("1"));
  EXPECT_FALSE(AttributeValue::S("1") == AttributeValue::N("1"));
  EXPECT_EQ(AttributeValue::M({{"a", AttributeValue::L({AttributeValue::Null()})}}),
            AttributeValue::M({{"a", AttributeValue::L({AttributeValue::Null()})}}));
}

}  // namespace
}  // namespace ddb
