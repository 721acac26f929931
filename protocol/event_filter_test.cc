// FilterCriteria patterns (RecordFilter): what each operator of the EventBridge syntax lets
// through, matched against a stream record as a function would get it, and the patterns
// refused as "Invalid filter pattern definition.".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/lambda.h"

namespace ddb::protocol {
namespace {

StreamRecord Insert(const std::string& city, int64_t size) {
  StreamRecord r;
  r.event_id = "e1";
  r.event_name = "INSERT";
  r.aws_region = "us-east-1";
  r.approximate_creation_date_time = 1728728223;
  r.keys = {{"pk", AttributeValue::S("k")}};
  r.new_image = Item{{"pk", AttributeValue::S("k")},
                     {"city", AttributeValue::S(city)},
                     {"n", AttributeValue::N("5")}};
  r.sequence_number = "100";
  r.size_bytes = size;
  r.stream_view_type = StreamViewType::kNewImage;
  return r;
}

bool Passes(const std::string& pattern, const StreamRecord& r) {
  Result<RecordFilter> f = RecordFilter::Parse({pattern});
  EXPECT_TRUE(f.ok()) << pattern;
  return f.ok() && f.value().Matches(r, "arn:aws:dynamodb:us-east-1:1:table/t/stream/x");
}

TEST(EventFilterTest, EachOperatorLetsThroughWhatItNames) {
  const StreamRecord r = Insert("Seattle", 42);
  EXPECT_TRUE(Passes(R"({"eventName": ["INSERT"]})", r));
  EXPECT_FALSE(Passes(R"({"eventName": ["REMOVE", "MODIFY"]})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": ["Seattle"]}}}})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"prefix": "Sea"}]}}}})", r));
  EXPECT_FALSE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"prefix": "sea"}]}}}})", r));
  EXPECT_TRUE(Passes(
      R"({"dynamodb": {"NewImage": {"city": {"S": [{"prefix": {"equals-ignore-case": "sea"}}]}}}})",
      r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"suffix": "tle"}]}}}})", r));
  EXPECT_TRUE(Passes(
      R"({"dynamodb": {"NewImage": {"city": {"S": [{"equals-ignore-case": "SEATTLE"}]}}}})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"wildcard": "S*t*e"}]}}}})", r));
  EXPECT_FALSE(Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"wildcard": "S*x"}]}}}})", r));
  EXPECT_FALSE(
      Passes(R"({"dynamodb": {"NewImage": {"city": {"S": [{"anything-but": ["Seattle"]}]}}}})", r));
  EXPECT_TRUE(Passes(
      R"({"dynamodb": {"NewImage": {"city": {"S": [{"anything-but": {"prefix": "Port"}}]}}}})", r));
  // numeric applies to JSON numbers (SizeBytes), not to a DynamoDB N, which is a string.
  EXPECT_TRUE(Passes(R"({"dynamodb": {"SizeBytes": [{"numeric": [">", 10, "<=", 42]}]}})", r));
  EXPECT_FALSE(Passes(R"({"dynamodb": {"SizeBytes": [{"numeric": ["<", 42]}]}})", r));
  EXPECT_FALSE(Passes(R"({"dynamodb": {"NewImage": {"n": {"N": [{"numeric": ["=", 5]}]}}}})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"n": {"N": ["5"]}}}})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"city": [{"exists": true}]}}})", r));
  EXPECT_TRUE(Passes(R"({"dynamodb": {"NewImage": {"zip": [{"exists": false}]}}})", r));
  EXPECT_FALSE(Passes(R"({"dynamodb": {"OldImage": {"city": [{"exists": true}]}}})", r));
  EXPECT_TRUE(Passes(
      R"({"$or": [{"eventName": ["REMOVE"]}, {"dynamodb": {"NewImage": {"city": {"S": ["Seattle"]}}}}]})",
      r));
  EXPECT_FALSE(Passes(R"({"$or": [{"eventName": ["REMOVE"]}, {"eventName": ["MODIFY"]}]})", r));
}

TEST(EventFilterTest, AnyPatternOfSeveralAndNoPatternAtAll) {
  const StreamRecord r = Insert("Oslo", 1);
  auto f = RecordFilter::Parse({R"({"eventName": ["REMOVE"]})", R"({"eventName": ["INSERT"]})"});
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f.value().Matches(r, "arn"));
  auto all = RecordFilter::Parse({"{}"});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all.value().Matches(r, "arn"));
  auto none = RecordFilter::Parse({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().Matches(r, "arn"));
}

TEST(EventFilterTest, MalformedPatternsAreRefused) {
  for (const char* bad :
       {"", "[]", R"({"a": {}})", R"({"a": "x"})", R"({"a": []})", R"({"a": [{"nope": 1}]})",
        R"({"a": [{"numeric": [">"]}]})", R"({"a": [{"numeric": ["~", 1]}]})",
        R"({"a": [{"prefix": 1}]})", R"({"a": [{"exists": "yes"}]})", R"({"$or": [{"a": ["x"]}]})",
        R"({"a": [{"anything-but": []}]})", R"({"a": [{"prefix": "x", "suffix": "y"}]})"}) {
    auto f = RecordFilter::Parse({bad});
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.error().message(), "Invalid filter pattern definition.") << bad;
  }
}

}  // namespace
}  // namespace ddb::protocol
