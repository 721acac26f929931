#include "protocol/legacy_parameters.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/json_testing.h"

namespace ddb::protocol {
namespace {

class LegacyTest : public JsonTest {
 protected:
  // The translated text, or "ERROR: <message>".
  template <typename Fn>
  std::string Run(std::string json, Fn fn) {
    JsonObject request = Parse(std::move(json));
    placeholders_ = LegacyPlaceholders();
    Result<std::optional<std::string>> r = fn(request, &placeholders_);
    if (!r.ok()) return "ERROR: " + r.error().message();
    return r.value() ? *r.value() : "<none>";
  }

  std::string Expected(std::string json) { return Run(std::move(json), TranslateExpected); }
  std::string Updates(std::string json) { return Run(std::move(json), TranslateAttributeUpdates); }
  std::string Keys(std::string json) { return Run(std::move(json), TranslateKeyConditions); }
  std::string Scan(std::string json) {
    return Run(std::move(json), [](const JsonObject& r, LegacyPlaceholders* p) {
      return TranslateFilter(r, "ScanFilter", p);
    });
  }

  LegacyPlaceholders placeholders_;
};

const std::string kInvalid = "ERROR: One or more parameter values were invalid: ";

TEST_F(LegacyTest, ExpectedValueAndExists) {
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Value": {"N": "1"}}}})"), "#l0 = :l0");
  EXPECT_EQ(placeholders_.names().at("#l0"), "a");
  EXPECT_EQ(placeholders_.values().at(":l0"), AttributeValue::N("1"));
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Exists": true, "Value": {"S": "x"}}}})"), "#l0 = :l0");
  EXPECT_EQ(Expected(R"({"Expected": {"a.b": {"Exists": false}}})"), "attribute_not_exists(#l0)");
  EXPECT_EQ(placeholders_.names().at("#l0"), "a.b");
  EXPECT_EQ(Expected(R"({"Expected": {}})"), "<none>");
  EXPECT_EQ(Expected(R"({})"), "<none>");
}

TEST_F(LegacyTest, ExpectedShapeErrors) {
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Exists": true}}})"),
            kInvalid + "Value must be provided when Exists is true for Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {}}})"),
            kInvalid + "Value must be provided when Exists is null for Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Exists": false, "Value": {"S": "x"}}}})"),
            kInvalid + "Value cannot be used when Exists is false for Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Exists": false, "ComparisonOperator": "NULL"}}})"),
            kInvalid + "Exists and ComparisonOperator cannot be used together for Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Value": {"S": "x"},
                      "AttributeValueList": [{"S": "x"}], "ComparisonOperator": "EQ"}}})"),
            kInvalid + "Value and AttributeValueList cannot be used together for Attribute: a");
  EXPECT_EQ(
      Expected(R"({"Expected": {"a": {"AttributeValueList": [{"S": "x"}]}}})"),
      kInvalid + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"ComparisonOperator": "EQ"}}})"),
            kInvalid +
                "Value or AttributeValueList must be used with ComparisonOperator: EQ for "
                "Attribute: a");
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"ComparisonOperator": "DOG"}}})"),
            "ERROR: 1 validation error detected: Value 'DOG' at "
            "'expected.a.member.comparisonOperator' failed to satisfy constraint: Member must "
            "satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, "
            "LE, BEGINS_WITH, GE, CONTAINS]");
}

TEST_F(LegacyTest, ExpectedComparisonOperators) {
  auto one = [&](std::string op, std::string values) {
    return Expected(R"({"Expected": {"a": {"ComparisonOperator": ")" + op +
                    R"(", "AttributeValueList": [)" + values + "]}}}");
  };
  EXPECT_EQ(one("EQ", R"({"N": "1"})"), "#l0 = :l0");
  EXPECT_EQ(one("NE", R"({"N": "1"})"), "#l0 <> :l0");
  EXPECT_EQ(one("LE", R"({"N": "1"})"), "#l0 <= :l0");
  EXPECT_EQ(one("LT", R"({"N": "1"})"), "#l0 < :l0");
  EXPECT_EQ(one("GE", R"({"N": "1"})"), "#l0 >= :l0");
  EXPECT_EQ(one("GT", R"({"N": "1"})"), "#l0 > :l0");
  EXPECT_EQ(one("NULL", ""), "attribute_not_exists(#l0)");
  EXPECT_EQ(one("NOT_NULL", ""), "attribute_exists(#l0)");
  EXPECT_EQ(one("CONTAINS", R"({"S": "x"})"), "contains(#l0, :l0)");
  EXPECT_EQ(one("NOT_CONTAINS", R"({"S": "x"})"),
            "attribute_exists(#l0) AND NOT contains(#l0, :l0)");
  EXPECT_EQ(one("BEGINS_WITH", R"({"S": "x"})"), "begins_with(#l0, :l0)");
  EXPECT_EQ(one("IN", R"({"N": "1"}, {"N": "2"})"), "#l0 IN (:l0, :l1)");
  EXPECT_EQ(one("BETWEEN", R"({"N": "1"}, {"N": "2"})"), "#l0 BETWEEN :l0 AND :l1");
  EXPECT_EQ(one("EQ", R"({"L": [{"N": "1"}]})"), "#l0 = :l0");
  // Value may stand in for a one-element AttributeValueList.
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"ComparisonOperator": "GT", "Value": {"N": "1"}}}})"),
            "#l0 > :l0");
}

TEST_F(LegacyTest, OperandRules) {
  auto one = [&](std::string op, std::string values) {
    return Expected(R"({"Expected": {"a": {"ComparisonOperator": ")" + op +
                    R"(", "AttributeValueList": [)" + values + "]}}}");
  };
  EXPECT_EQ(one("EQ", R"({"N": "1"}, {"N": "2"})"),
            kInvalid + "Invalid number of argument(s) for the EQ ComparisonOperator");
  EXPECT_EQ(one("NULL", R"({"N": "1"})"),
            kInvalid + "Invalid number of argument(s) for the NULL ComparisonOperator");
  EXPECT_EQ(one("IN", ""),
            kInvalid + "Invalid number of argument(s) for the IN ComparisonOperator");
  EXPECT_EQ(one("BETWEEN", R"({"N": "1"})"),
            kInvalid + "Invalid number of argument(s) for the BETWEEN ComparisonOperator");
  EXPECT_EQ(one("IN", R"({"N": "1"}, {"S": "x"})"),
            kInvalid + "AttributeValues inside AttributeValueList must be of same type");
  EXPECT_EQ(one("BEGINS_WITH", R"({"N": "1"})"),
            kInvalid + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type");
  EXPECT_EQ(one("LT", R"({"SS": ["a"]})"),
            kInvalid + "ComparisonOperator LT is not valid for SS AttributeValue type");
  EXPECT_EQ(one("CONTAINS", R"({"L": [{"N": "1"}]})"),
            kInvalid + "ComparisonOperator CONTAINS is not valid for L AttributeValue type");
  EXPECT_EQ(one("BETWEEN", R"({"N": "10"}, {"N": "9"})"),
            "ERROR: The BETWEEN condition was provided a range where the lower bound is greater "
            "than the upper bound");
  EXPECT_EQ(one("BETWEEN", R"({"S": "b"}, {"S": "a"})"),
            "ERROR: The BETWEEN condition was provided a range where the lower bound is greater "
            "than the upper bound");
  EXPECT_EQ(one("BETWEEN", R"({"N": "-1"}, {"N": "-1"})"), "#l0 BETWEEN :l0 AND :l1");
}

TEST_F(LegacyTest, ConditionalOperator) {
  EXPECT_EQ(Expected(R"({"Expected": {"a": {"Value": {"N": "1"}}, "b": {"Exists": false}}})"),
            "(#l0 = :l0) AND (attribute_not_exists(#l1))");
  EXPECT_EQ(Expected(R"({"ConditionalOperator": "OR",
                         "Expected": {"a": {"Value": {"N": "1"}}, "b": {"Exists": false}}})"),
            "(#l0 = :l0) OR (attribute_not_exists(#l1))");
  EXPECT_EQ(Expected(R"({"ConditionalOperator": "OR"})"),
            "ERROR: ConditionalOperator cannot be used without Filter or Expected");
  EXPECT_EQ(Expected(R"({"ConditionalOperator": "OR", "Expected": {}})"),
            "ERROR: ConditionalOperator cannot be used without Filter or Expected");
  EXPECT_EQ(Expected(R"({"ConditionalOperator": "AND", "Expected": {"a": {"Exists": false}}})"),
            "ERROR: ConditionalOperator can only be used when Filter or Expected has two or more "
            "elements");
  EXPECT_EQ(Expected(R"({"ConditionalOperator": "XOR",
                         "Expected": {"a": {"Exists": false}, "b": {"Exists": false}}})"),
            "ERROR: 1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to "
            "satisfy constraint: Member must satisfy enum value set: [OR, AND]");
}

TEST_F(LegacyTest, Filters) {
  EXPECT_EQ(Scan(R"({"ScanFilter": {"a": {"ComparisonOperator": "NE",
                     "AttributeValueList": [{"S": "x"}]}}})"),
            "#l0 <> :l0");
  EXPECT_EQ(Scan(R"({"ScanFilter": {"a": {"AttributeValueList": [{"S": "x"}]}}})"),
            "ERROR: 1 validation error detected: Value null at "
            "'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must "
            "not be null");
  EXPECT_EQ(Scan(R"({"ConditionalOperator": "OR", "ScanFilter": {
                     "a": {"ComparisonOperator": "NULL"},
                     "b": {"ComparisonOperator": "NOT_NULL"}}})"),
            "(attribute_not_exists(#l0)) OR (attribute_exists(#l1))");
}

TEST_F(LegacyTest, KeyConditions) {
  EXPECT_EQ(Keys(R"({"KeyConditions": {"pk": {"ComparisonOperator": "EQ",
                     "AttributeValueList": [{"S": "x"}]}}})"),
            "#l0 = :l0");
  EXPECT_EQ(Keys(R"({"KeyConditions": {
                     "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]},
                     "sk": {"ComparisonOperator": "BETWEEN",
                            "AttributeValueList": [{"N": "1"}, {"N": "5"}]}}})"),
            "#l0 = :l0 AND #l1 BETWEEN :l1 AND :l2");
  EXPECT_EQ(Keys(R"({"KeyConditions": {"pk": {"ComparisonOperator": "NULL"}}})"),
            "ERROR: Attempted conditional constraint is not an indexable operation");
  EXPECT_EQ(Keys(R"({"KeyConditions": {"pk": {"ComparisonOperator": "IN",
                     "AttributeValueList": [{"S": "x"}]}}})"),
            "ERROR: Attempted conditional constraint is not an indexable operation");
  EXPECT_EQ(Keys(R"({"KeyConditions": {}})"), "ERROR: Conditions can be of length 1 or 2 only");
  EXPECT_EQ(Keys(R"({"KeyConditions": {"pk": {"ComparisonOperator": "EQ"}}})"),
            kInvalid + "Invalid number of argument(s) for the EQ ComparisonOperator");
  EXPECT_EQ(Keys(R"({"KeyConditions": {"pk": {"ComparisonOperator": "eq",
                     "AttributeValueList": [{"S": "x"}]}}})"),
            "ERROR: 1 validation error detected: Value 'eq' at "
            "'keyConditions.pk.member.comparisonOperator' failed to satisfy constraint: Member "
            "must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, "
            "NE, LE, BEGINS_WITH, GE, CONTAINS]");
}

TEST_F(LegacyTest, AttributeUpdates) {
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {
                        "a": {"Action": "PUT", "Value": {"S": "x"}},
                        "b": {"Value": {"N": "1"}},
                        "c": {"Action": "DELETE"},
                        "d": {"Action": "ADD", "Value": {"N": "2"}},
                        "e": {"Action": "DELETE", "Value": {"SS": ["q"]}},
                        "f": {"Action": "ADD", "Value": {"L": [{"N": "1"}]}}}})"),
            "SET #l0 = :l0, #l1 = :l1, #l5 = list_append(if_not_exists(#l5, :l4), :l5) "
            "REMOVE #l2 ADD #l3 :l2 DELETE #l4 :l3");
  EXPECT_EQ(placeholders_.values().at(":l4"), AttributeValue::L({}));
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {}})"), "<none>");
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {"a": {"Action": "PUT"}}})"),
            kInvalid + "Only DELETE action is allowed when no attribute value is specified");
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {"a": {"Action": "DELETE", "Value": {"S": "x"}}}})"),
            kInvalid + "DELETE action with value is not supported for the type S");
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {"a": {"Action": "ADD", "Value": {"S": "x"}}}})"),
            kInvalid + "ADD action is not supported for the type S");
  EXPECT_EQ(Updates(R"({"AttributeUpdates": {"a": {"Action": "SET", "Value": {"S": "x"}}}})"),
            "ERROR: 1 validation error detected: Value 'SET' at "
            "'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy "
            "enum value set: [ADD, PUT, DELETE]");
}

TEST_F(LegacyTest, PlaceholdersSkipTakenKeys) {
  std::map<std::string, std::string> names = {{"#l0", "x"}};
  Item values = {{":l0", AttributeValue::S("v")}, {":l1", AttributeValue::S("w")}};
  LegacyPlaceholders p(&names, &values);
  EXPECT_EQ(p.Name("a"), "#l1");
  EXPECT_EQ(p.Name("a"), "#l1");
  EXPECT_EQ(p.Value(AttributeValue::N("1")), ":l2");
}

TEST_F(LegacyTest, WriteMixIsRefused) {
  JsonObject request = Parse(R"({"ConditionExpression": "a = :v", "Expected": {},
                                 "ConditionalOperator": "AND"})");
  PutItemRequest put;
  Status s = ApplyLegacyWriteParameters(request, &put, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {Expected, ConditionalOperator} Expression parameters: "
            "{ConditionExpression}");

  request = Parse(R"({"UpdateExpression": "SET a = :v", "AttributeUpdates": {}})");
  UpdateItemRequest update;
  s = ApplyLegacyWriteParameters(request, &update, &update.update_expression);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {AttributeUpdates} Expression parameters: "
            "{UpdateExpression}");
}

TEST_F(LegacyTest, WriteFillsRequest) {
  JsonObject request = Parse(R"({"Expected": {"a": {"Exists": false}},
                                 "AttributeUpdates": {"b": {"Value": {"N": "1"}}}})");
  UpdateItemRequest update;
  ASSERT_TRUE(ApplyLegacyWriteParameters(request, &update, &update.update_expression).ok());
  EXPECT_EQ(update.update_expression, "SET #l0 = :l0");
  EXPECT_EQ(update.condition_expression, "attribute_not_exists(#l1)");
  ASSERT_TRUE(update.expression_attribute_names.has_value());
  EXPECT_TRUE(update.expression_attribute_values.has_value());
  EXPECT_EQ(update.expression_attribute_names->size(), 2u);

  request =
      Parse(R"({"Expected": {"a": {"Exists": false}}, "ExpressionAttributeNames": {"#a": "a"}})");
  PutItemRequest put;
  Status s = ApplyLegacyWriteParameters(request, &put, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "ExpressionAttributeNames can only be specified when using expressions");
}

TEST_F(LegacyTest, QueryAllowsKeyConditionsWithFilterExpression) {
  JsonObject request = Parse(R"({"KeyConditions": {"pk": {"ComparisonOperator": "EQ",
                                 "AttributeValueList": [{"S": "x"}]}},
                                 "FilterExpression": "#l0 = :l0"})");
  QueryRequest query;
  query.expression_attribute_names = std::map<std::string, std::string>{{"#l0", "f"}};
  query.expression_attribute_values = {{":l0", AttributeValue::S("y")}};
  ASSERT_TRUE(ApplyLegacyQueryParameters(request, &query).ok());
  EXPECT_EQ(query.key_condition_expression, "#l1 = :l1");
  EXPECT_EQ(query.expression_attribute_names->at("#l1"), "pk");
  EXPECT_EQ(query.expression_attribute_names->at("#l0"), "f");

  request = Parse(R"({"KeyConditions": {}, "KeyConditionExpression": "pk = :v",
                      "QueryFilter": {}})");
  Status s = ApplyLegacyQueryParameters(request, &query);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {QueryFilter, KeyConditions} Expression parameters: "
            "{KeyConditionExpression}");
}

TEST_F(LegacyTest, QueryFilterKeyErrorIsReworded) {
  JsonObject request = Parse(R"({"QueryFilter": {}})");
  Error e = LegacyQueryError(
      request, Error::Validation("Filter Expression can only contain non-primary key attributes: "
                                 "Primary key attribute: sk"));
  EXPECT_EQ(e.message(),
            "QueryFilter can only contain non-primary key attributes: Primary key attribute: sk");
}

}  // namespace
}  // namespace ddb::protocol
