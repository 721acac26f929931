#include "protocol/request_types.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::protocol {
namespace {

// The message FirstTypeError gives `body` for `operation`, or "" for none.
std::string TypeError(std::string_view operation, std::string body) {
  Result<JsonObject> request = ParseBody(body);
  EXPECT_TRUE(request.ok()) << body;
  if (!request.ok()) return "not JSON";
  std::optional<Error> e = FirstTypeError(operation, *request);
  if (!e) return "";
  EXPECT_EQ(e->code(), ErrorCode::kSerialization);
  return e->message();
}

// The service's answers as dynalite's suite records them (test/helpers assertType).
TEST(RequestTypesTest, ScalarsInTheServicesWords) {
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":true})"),
            "TRUE_VALUE cannot be converted to String");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":false})"),
            "FALSE_VALUE cannot be converted to String");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":2147483648})"),
            "NUMBER_VALUE cannot be converted to String");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":34.56})"),
            "DECIMAL_VALUE cannot be converted to String");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":[]})"),
            "Unrecognized collection type class java.lang.String");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":{}})"),
            "Start of structure or map found where not expected");
  EXPECT_EQ(TypeError("Scan", R"({"Limit":"23"})"), "STRING_VALUE cannot be converted to Integer");
  EXPECT_EQ(TypeError("Scan", R"({"Limit":true})"), "TRUE_VALUE cannot be converted to Integer");
  EXPECT_EQ(TypeError("Scan", R"({"Limit":[]})"),
            "Unrecognized collection type class java.lang.Integer");
  EXPECT_EQ(TypeError("CreateTable", R"({"ProvisionedThroughput":{"ReadCapacityUnits":"23"}})"),
            "STRING_VALUE cannot be converted to Long");
  EXPECT_EQ(TypeError("GetItem", R"({"ConsistentRead":"23"})"),
            "Unexpected token received from parser");
  // Other text is read as Java reads it (dynalite records {"NULL":"no"} as a false NULL).
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"NULL":"no"}}})"), "");
  EXPECT_EQ(TypeError("GetItem", R"({"ConsistentRead":23})"),
            "NUMBER_VALUE cannot be converted to Boolean");
  EXPECT_EQ(TypeError("GetItem", R"({"ConsistentRead":34.56})"),
            "DECIMAL_VALUE cannot be converted to Boolean");
  EXPECT_EQ(TypeError("GetItem", R"({"ConsistentRead":[]})"),
            "Unrecognized collection type class java.lang.Boolean");
}

TEST(RequestTypesTest, ListsMapsAndStructures) {
  // A structure's member ("field") and a list's element or a map's value are worded apart.
  EXPECT_EQ(TypeError("PutItem", R"({"Item":"23"})"), "Unexpected field type");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":[]})"),
            "Unrecognized collection type java.util.Map<java.lang.String, "
            "com.amazonaws.dynamodb.v20120810.AttributeValue>");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":23}})"), "Unexpected value type in payload");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":[]}})"),
            "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"SS":"x"}}})"), "Unexpected field type");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"SS":[1]}}})"),
            "NUMBER_VALUE cannot be converted to String");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"L":[{"M":{"b":{"BS":[true]}}}]}}})"),
            "only base-64-encoded strings are convertible to bytes");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"B":"23456"}}})"),
            "Base64 encoded length is expected a multiple of 4 bytes but found: 5");
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"B":[]}}})"),
            "Unrecognized collection type class java.nio.ByteBuffer");
  EXPECT_EQ(TypeError("CreateTable", R"({"ProvisionedThroughput":23})"), "Unexpected field type");
  EXPECT_EQ(TypeError("CreateTable", R"({"KeySchema":{}})"),
            "Start of structure or map found where not expected");
  EXPECT_EQ(TypeError("CreateTable", R"({"KeySchema":[23]})"), "Unexpected value type in payload");
  EXPECT_EQ(TypeError("BatchWriteItem", R"({"RequestItems":{"a":"23"}})"),
            "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to "
            "class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl "
            "and java.lang.Class are in module java.base of loader 'bootstrap')");
  EXPECT_EQ(TypeError("BatchWriteItem", R"({"RequestItems":[]})"),
            "Unrecognized collection type java.util.Map<java.lang.String, "
            "java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>>");
}

TEST(RequestTypesTest, WellTypedUnknownAndNullMembersPass) {
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":"t","Item":{"a":{"S":"x","N":null}},"Foo":12})"),
            "");
  EXPECT_EQ(TypeError("PutItem", R"({"TableName":null,"Item":null})"), "");
  EXPECT_EQ(TypeError("NoSuchOperation", R"({"TableName":12})"), "");
  // The first in the document's order names the error.
  EXPECT_EQ(TypeError("PutItem", R"({"Item":{"a":{"S":1}},"TableName":true})"),
            "NUMBER_VALUE cannot be converted to String");
}

}  // namespace
}  // namespace ddb::protocol
