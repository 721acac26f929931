#include "cli/json_lines.h"

#include <gtest/gtest.h>

#include "cli/json_text.h"
#include "util/json_escape.h"

namespace ddb::cli {
namespace {

TEST(CliJsonLines, ItemOfLine) {
  simdjson::dom::parser parser;
  Result<std::string> item =
      ItemOfLine(parser, R"( {"Item": {"pk": {"S": "a\"b"}, "n": {"N": "1"}}} )");
  ASSERT_TRUE(item.ok()) << item.error().message();
  EXPECT_EQ(item.value(), R"({"pk":{"S":"a\"b"},"n":{"N":"1"}})");
}

TEST(CliJsonLines, BadLines) {
  simdjson::dom::parser parser;
  EXPECT_EQ(ItemOfLine(parser, "{\"Item\":").error().code(), ErrorCode::kSerialization);
  EXPECT_EQ(ItemOfLine(parser, "[1]").error().code(), ErrorCode::kValidation);
  EXPECT_EQ(ItemOfLine(parser, "{}").error().code(), ErrorCode::kValidation);
  EXPECT_EQ(ItemOfLine(parser, R"({"Item":{},"x":1})").error().code(), ErrorCode::kValidation);
  EXPECT_EQ(ItemOfLine(parser, R"({"Item":"s"})").error().code(), ErrorCode::kValidation);
  EXPECT_TRUE(IsBlankLine(" \t\r"));
  EXPECT_FALSE(IsBlankLine(" {"));
}

TEST(CliJsonLines, RoundTrip) {
  simdjson::dom::parser parser;
  simdjson::dom::element item = parser.parse(std::string(R"({"pk":{"S":"é\n"}})"));
  const std::string line = LineOfItem(item);
  EXPECT_EQ(line, "{\"Item\":{\"pk\":{\"S\":\"é\\n\"}}}\n");
  simdjson::dom::parser again;
  EXPECT_EQ(ItemOfLine(again, line).value(), R"({"pk":{"S":"é\n"}})");
}

TEST(CliJsonText, QuoteAndErrors) {
  EXPECT_EQ(util::JsonString("a\"b\\c\x01"), "\"a\\\"b\\\\c\\u0001\"");
  EXPECT_EQ(
      ErrorText(
          400,
          R"({"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"})"),
      "ResourceNotFoundException: Requested resource not found");
  EXPECT_EQ(
      ErrorText(400, R"({"__type":"com.amazon.coral.validate#ValidationException","Message":"m"})"),
      "ValidationException: m");
  EXPECT_EQ(ErrorText(503, "busy"), "HTTP 503: busy");
  EXPECT_EQ(ErrorType(R"({"__type":"x#ThrottlingException"})"), "ThrottlingException");
}

}  // namespace
}  // namespace ddb::cli
