#include "protocol/request_readers.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/json_testing.h"

namespace ddb::protocol {
namespace {

// Parsing requests without an engine.
class RequestReadersTest : public JsonTest {
 protected:
  template <typename R>
  static std::string ErrorOf(const Result<R>& r) {
    return r.ok() ? "<ok>" : r.error().message();
  }
};

TEST_F(RequestReadersTest, PutItemReadsItemAndDefaults) {
  auto r = ReadPutItem(
      Parse(R"({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "n": {"N": "01.50"}}})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->table_name, "tbl");
  EXPECT_EQ(r->item.at("pk"), AttributeValue::S("a"));
  EXPECT_EQ(r->item.at("n"), AttributeValue::N("1.5"));  // normalised on the way in
  EXPECT_EQ(r->return_values, ReturnValues::kNone);
  EXPECT_EQ(r->return_consumed_capacity, ReturnConsumedCapacity::kNone);
  EXPECT_FALSE(r->condition_expression.has_value());
  EXPECT_FALSE(r->expression_attribute_names.has_value());
}

TEST_F(RequestReadersTest, ShapeViolationsAreReportedTogether) {
  // Without an item, every member constraint together, in the service's order.
  auto r = ReadPutItem(Parse(R"({"ReturnValues": "SOME", "ReturnConsumedCapacity": "ALL"})"));
  EXPECT_EQ(ErrorOf(r),
            "4 validation errors detected: "
            "Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must "
            "satisfy enum value set: [INDEXES, TOTAL, NONE]; "
            "Value null at 'tableName' failed to satisfy constraint: Member must not be null; "
            "Value 'SOME' at 'returnValues' failed to satisfy constraint: Member must satisfy "
            "enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; "
            "Value null at 'item' failed to satisfy constraint: Member must not be null");
  // With one, a table-name violation alone.
  r = ReadPutItem(Parse(R"({"TableName": "", "Item": {}, "ReturnValues": "SOME"})"));
  EXPECT_EQ(ErrorOf(r),
            "1 validation error detected: Value at 'TableName' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1");
}

TEST_F(RequestReadersTest, UpdateItemTranslatesLegacyAttributeUpdates) {
  auto r = ReadUpdateItem(Parse(R"({"TableName": "tbl", "Key": {"pk": {"S": "a"}},
      "AttributeUpdates": {"v": {"Action": "PUT", "Value": {"N": "2"}}}})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->update_expression.has_value());
  ASSERT_TRUE(r->expression_attribute_names.has_value());
  ASSERT_TRUE(r->expression_attribute_values.has_value());
  EXPECT_EQ(*r->update_expression, "SET #l0 = :l0");
  EXPECT_EQ(r->expression_attribute_names->at("#l0"), "v");
  EXPECT_EQ(r->expression_attribute_values->at(":l0"), AttributeValue::N("2"));
}

TEST_F(RequestReadersTest, GetItemAcceptsTheStoredFormAndReadsPlaceholders) {
  auto r = ReadGetItem(Parse(R"({"TableName": "tbl", "Key": {"pk": {"S": "a"}},
      "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "a"},
      "ConsistentRead": true})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->consistent_read);
  EXPECT_TRUE(r->accept_encoded_item);
  EXPECT_EQ(r->projection_expression, "#a");
  ASSERT_TRUE(r->expression_attribute_names.has_value());
  EXPECT_EQ(r->expression_attribute_names->size(), 1u);
}

TEST_F(RequestReadersTest, QueryNeedsAKeyCondition) {
  auto r = ReadQuery(Parse(R"({"TableName": "tbl"})"));
  EXPECT_EQ(ErrorOf(r),
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
            "the request.");
  r = ReadQuery(Parse(R"({"TableName": "tbl", "KeyConditionExpression": "pk = :p",
      "ExpressionAttributeValues": {":p": {"S": "a"}}, "ScanIndexForward": false,
      "Select": "COUNT", "Limit": 5})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_FALSE(r->scan_index_forward);
  EXPECT_EQ(r->select, Select::kCount);
  EXPECT_EQ(r->limit, 5);
}

TEST_F(RequestReadersTest, ScanChecksSegmentRanges) {
  auto r = ReadScan(Parse(R"({"TableName": "tbl", "Segment": -1, "TotalSegments": 1000001,
      "Limit": 0})"));
  EXPECT_EQ(ErrorOf(r),
            "3 validation errors detected: "
            "Value at 'Limit' failed to satisfy constraint: Member must have value greater "
            "than or equal to 1; "
            "Value at 'Segment' failed to satisfy constraint: Member must have value "
            "greater than or equal to 0; "
            "Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have "
            "value less than or equal to 1000000");
}

TEST_F(RequestReadersTest, BatchWriteItemGroupsRequestsByTable) {
  auto r = ReadBatchWriteItem(Parse(R"({"RequestItems": {
      "tbl": [{"PutRequest": {"Item": {"pk": {"S": "a"}}}},
              {"DeleteRequest": {"Key": {"pk": {"S": "b"}}}}],
      "other": [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]}})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->request_items.size(), 2u);
  EXPECT_EQ(r->request_items[0].table_name, "tbl");
  ASSERT_EQ(r->request_items[0].value.size(), 2u);
  EXPECT_TRUE(r->request_items[0].value[0].is_put);
  EXPECT_FALSE(r->request_items[0].value[1].is_put);
  EXPECT_EQ(r->request_items[1].table_name, "other");
}

TEST_F(RequestReadersTest, CreateTableReadsEnums) {
  auto r = ReadCreateTable(Parse(R"({"TableName": "tbl", "BillingMode": "PAY_PER_REQUEST",
      "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "N"}],
      "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
      "TableClass": "STANDARD_INFREQUENT_ACCESS",
      "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}})"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->billing_mode, BillingMode::kPayPerRequest);
  EXPECT_EQ(r->attribute_definitions.at(0).attribute_type, ScalarType::kN);
  EXPECT_EQ(r->key_schema.at(0).key_type, KeyType::kHash);
  EXPECT_EQ(r->table_class, TableClass::kStandardInfrequentAccess);
  ASSERT_TRUE(r->stream_specification.has_value());
  EXPECT_EQ(r->stream_specification->stream_view_type, StreamViewType::kNewImage);

  r = ReadCreateTable(Parse(R"({"TableName": "tbl", "BillingMode": "FREE",
      "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "X"}],
      "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})"));
  EXPECT_EQ(ErrorOf(r),
            "2 validation errors detected: Value 'X' at 'attributeDefinitions.1.member."
            "attributeType' failed to satisfy constraint: Member must satisfy enum value set: "
            "[B, N, S]; Value 'FREE' at 'billingMode' failed to satisfy constraint: Member must "
            "satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]");
}

}  // namespace
}  // namespace ddb::protocol
