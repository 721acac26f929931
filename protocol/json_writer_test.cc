#include "protocol/json_writer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "ddb/types.h"

namespace ddb::protocol {
namespace {

std::string Str(std::string_view s) {
  JsonWriter w;
  w.String(s);
  return w.Take();
}

// Strings go through util::AppendJsonString (util/json_escape_test.cc checks it against a
// byte-wise reference).
TEST(JsonWriter, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(Str("plain text"), "\"plain text\"");
  EXPECT_EQ(Str(""), "\"\"");
  EXPECT_EQ(Str("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Str("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(Str(std::string("\x01x\x1f", 3)), "\"\\u0001x\\u001f\"");
  EXPECT_EQ(Str(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(Str("h\xc3\xa9llo \xe2\x82\xac"), "\"h\xc3\xa9llo \xe2\x82\xac\"");  // UTF-8 as is
}

TEST(JsonWriter, StructuresAndNumbers) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(1);
  w.Number(0.5);
  w.Number(2);
  w.Bool(true);
  w.EndArray();
  w.Key("b");
  w.BeginObject();
  w.EndObject();
  w.EndObject();
  EXPECT_EQ(w.Take(), "{\"a\":[1,0.5,2.0,true],\"b\":{}}");
}

TEST(JsonWriter, OptionalMembersOnlyWhenGiven) {
  JsonWriter w;
  w.BeginObject();
  w.OptionalString("a", std::optional<std::string>("x"));
  w.OptionalString("b", std::optional<std::string>());
  w.OptionalInt("c", std::optional<int64_t>(-3));
  w.OptionalInt("d", std::optional<int>());
  w.OptionalDouble("e", std::optional<double>(1.5));
  w.OptionalDouble("f", std::optional<double>());
  w.OptionalEnum("g", std::optional<BillingMode>(BillingMode::kPayPerRequest));
  w.OptionalEnum("h", std::optional<BillingMode>());
  w.NonEmptyString("i", "y");
  w.NonEmptyString("j", "");
  w.EndObject();
  EXPECT_EQ(w.Take(), R"({"a":"x","c":-3,"e":1.500,"g":"PAY_PER_REQUEST","i":"y"})");
}

}  // namespace
}  // namespace ddb::protocol
