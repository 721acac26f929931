#include "protocol/json_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::protocol {
namespace {

TEST(JsonReaderTest, ALargeBodysParserMemoryIsGivenBack) {
  std::string small = R"({"TableName":"t"})";
  ASSERT_TRUE(ParseBody(small).ok());
  ReleaseLargeParserMemory();
  const size_t ordinary = ThreadParserCapacity();
  EXPECT_LE(ordinary, size_t{1} << 20);

  std::string large = R"({"TableName":"t","Ignored":[)";
  for (int i = 0; i < 1'000'000; ++i) large += "0,";
  large += "0]}";
  ASSERT_TRUE(ParseBody(large).ok());
  EXPECT_GE(ThreadParserCapacity(), large.size());
  ReleaseLargeParserMemory();
  EXPECT_LE(ThreadParserCapacity(), size_t{1} << 20);

  // An ordinary body keeps its parser: nothing to give back, nothing to grow again.
  ASSERT_TRUE(ParseBody(small).ok());
  const size_t kept = ThreadParserCapacity();
  ReleaseLargeParserMemory();
  EXPECT_EQ(ThreadParserCapacity(), kept);
}

TEST(JsonReaderTest, IntegersPastInt64AreTheNearestInt64) {
  std::string body =
      R"({"a":9223372036854775808,"b":1e30,"c":-1e30,"d":1.5,"e":-1.5,"f":12,"g":"x"})";
  Result<JsonObject> obj = ParseBody(body);
  ASSERT_TRUE(obj.ok());
  EXPECT_EQ(*GetInt(*obj, "a").value(), INT64_MAX);
  EXPECT_EQ(*GetInt(*obj, "b").value(), INT64_MAX);
  EXPECT_EQ(*GetInt(*obj, "c").value(), INT64_MIN);
  EXPECT_EQ(*GetInt(*obj, "d").value(), 1);
  EXPECT_EQ(*GetInt(*obj, "e").value(), -2);
  EXPECT_EQ(*GetInt(*obj, "f").value(), 12);
  EXPECT_FALSE(GetInt(*obj, "g").ok());
  EXPECT_FALSE(GetInt(*obj, "missing").value().has_value());
}

}  // namespace
}  // namespace ddb::protocol
