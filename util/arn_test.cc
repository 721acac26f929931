#include "util/arn.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::util {
namespace {

TEST(Arn, BuildsTheServiceShapes) {
  const std::string table = TableArn("us-east-1", "123456789012", "Music");
  EXPECT_EQ(table, "arn:aws:dynamodb:us-east-1:123456789012:table/Music");
  EXPECT_EQ(DynamoDbArn("eu-west-1", "1", "table/T/index/I"),
            "arn:aws:dynamodb:eu-west-1:1:table/T/index/I");
  EXPECT_EQ(IndexArn(table, "ByArtist"), table + "/index/ByArtist");
  EXPECT_EQ(StreamArn(table, "2026-11-30T13:47:12.053"), table + "/stream/2026-11-30T13:47:12.053");
  EXPECT_EQ(BackupArn(table, "01764510000000-0a1b2c3d"), table + "/backup/01764510000000-0a1b2c3d");
  EXPECT_EQ(ExportArn(table, "e"), table + "/export/e");
  EXPECT_EQ(ImportArn(TableArn("*", "*", "T"), "i"), "arn:aws:dynamodb:*:*:table/T/import/i");
  EXPECT_EQ(AccountRootArn("123456789012"), "arn:aws:iam::123456789012:root");
  EXPECT_EQ(Arn("iam", "", "1", "user/alice"), "arn:aws:iam::1:user/alice");
  EXPECT_EQ(Arn("logs", "us-east-1", "1", "log-group:/aws-dynamodb/imports:*"),
            "arn:aws:logs:us-east-1:1:log-group:/aws-dynamodb/imports:*");
}

TEST(Arn, KmsKeysLiveInTheTablesRegionAndAccount) {
  EXPECT_EQ(KmsKeyArn(TableArn("eu-west-1", "1", "T"), "key/k"), "arn:aws:kms:eu-west-1:1:key/k");
  EXPECT_EQ(KmsKeyArn("T", "alias/a"), "arn:aws:kms:us-east-1:000000000000:alias/a");
}

TEST(Arn, ParsesAnyArnAtItsFirstFiveColons) {
  std::optional<ArnParts> a = ParseArn("arn:aws:iam::123:role/r:x");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->partition, "aws");
  EXPECT_EQ(a->service, "iam");
  EXPECT_EQ(a->region, "");
  EXPECT_EQ(a->account, "123");
  EXPECT_EQ(a->resource, "role/r:x");
  EXPECT_FALSE(ParseArn("arn:aws:iam::123"));
  EXPECT_FALSE(ParseArn("urn:aws:iam::123:root"));
  EXPECT_TRUE(ParseArn("arn:::::"));
}

TEST(Arn, ParsesDynamoDbArns) {
  std::optional<DynamoDbArnParts> a =
      ParseDynamoDbArn("arn:aws:dynamodb:us-east-1:123:table/T/stream/2026-11-30T13:47:12.053");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->region, "us-east-1");
  EXPECT_EQ(a->account, "123");
  EXPECT_EQ(a->resource, "table/T/stream/2026-11-30T13:47:12.053");
  EXPECT_EQ(a->resource_type, "table");
  EXPECT_EQ(a->table, "T");
  EXPECT_EQ(a->rest, "/stream/2026-11-30T13:47:12.053");
  EXPECT_EQ(a->Child("stream"), "2026-11-30T13:47:12.053");
  EXPECT_EQ(a->Child("index"), std::nullopt);
  EXPECT_EQ(a->Child("strea"), std::nullopt);

  a = ParseDynamoDbArn("arn:aws:dynamodb:r:a:table/T");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->table, "T");
  EXPECT_EQ(a->rest, "");
  a = ParseDynamoDbArn("arn:aws:dynamodb:r:a:table/T/");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rest, "/");
  EXPECT_EQ(a->Child("index"), std::nullopt);
  a = ParseDynamoDbArn("arn:aws:dynamodb:r:a:table/T/index/");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->Child("index"), "");
  a = ParseDynamoDbArn("arn:aws:dynamodb:::table");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->region, "");
  EXPECT_EQ(a->resource_type, "table");
  EXPECT_EQ(a->table, "");

  EXPECT_FALSE(ParseDynamoDbArn("arn:aws:dynamodb:r:table/T"));  // no account
  EXPECT_FALSE(ParseDynamoDbArn("arn:aws-cn:dynamodb:r:a:table/T"));
  EXPECT_FALSE(ParseDynamoDbArn("arn:aws:s3:r:a:table/T"));
  EXPECT_FALSE(ParseDynamoDbArn("Music"));
}

TEST(Arn, BuildersAndParserAgree) {
  const std::string arn = IndexArn(TableArn("r", "a", "T"), "I");
  std::optional<DynamoDbArnParts> a = ParseDynamoDbArn(arn);
  ASSERT_TRUE(a);
  EXPECT_EQ(TableArn(a->region, a->account, a->table), TableArn("r", "a", "T"));
  EXPECT_EQ(a->Child("index"), "I");
}

}  // namespace
}  // namespace ddb::util
