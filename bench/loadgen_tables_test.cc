#include "loadgen_tables.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::bench {
namespace {

TEST(LoadgenTables, PlainShapeIsTheOldTable) {
  const std::string body = CreateTableBody("bench", TableShape{});
  EXPECT_EQ(body.find("SecondaryIndexes"), std::string::npos);
  EXPECT_EQ(body.find("StreamSpecification"), std::string::npos);
  EXPECT_NE(body.find(R"("BillingMode":"PAY_PER_REQUEST")"), std::string::npos);
  std::string attributes;
  EXPECT_EQ(AppendShapeAttributes(&attributes, TableShape{}, 7, 1000), 0);
  EXPECT_EQ(attributes, "");
}

TEST(LoadgenTables, CreateTableNamesEveryIndexAndItsAttributes) {
  TableShape shape;
  shape.gsis = 2;
  shape.lsi = true;
  shape.stream = true;
  const std::string body = CreateTableBody("soak", shape);
  for (const char* part :
       {R"({"IndexName":"gsi1","KeySchema":[{"AttributeName":"g1pk","KeyType":"HASH"},)",
        R"({"IndexName":"gsi2")", R"("LocalSecondaryIndexes":[{"IndexName":"lsi1")",
        R"({"AttributeName":"lsk","AttributeType":"S"})",
        R"("StreamViewType":"NEW_AND_OLD_IMAGES")", R"("Projection":{"ProjectionType":"ALL"})"}) {
    EXPECT_NE(body.find(part), std::string::npos) << part;
  }
}

TEST(LoadgenTables, ActiveOnlyWhenTableAndIndexesAre) {
  EXPECT_TRUE(TableAndIndexesActive("{}"));  // the floor server
  EXPECT_TRUE(TableAndIndexesActive(R"({"Table":{"TableStatus":"ACTIVE"}})"));
  EXPECT_FALSE(TableAndIndexesActive(R"({"Table":{"TableStatus":"CREATING"}})"));
  EXPECT_FALSE(TableAndIndexesActive(
      R"({"Table":{"TableStatus":"ACTIVE","GlobalSecondaryIndexes":[)"
      R"({"IndexName":"gsi1","IndexStatus":"ACTIVE"},{"IndexName":"gsi2","IndexStatus":"CREATING"}]}})"));
  EXPECT_TRUE(TableAndIndexesActive(
      R"({"Table":{"TableStatus":"ACTIVE","GlobalSecondaryIndexes":[)"
      R"({"IndexName":"gsi1","IndexStatus":"ACTIVE"},{"IndexName":"gsi2","IndexStatus":"ACTIVE"}]}})"));
}

TEST(LoadgenTables, ItemsCarryIndexKeysAndTtl) {
  TableShape shape;
  shape.gsis = 2;
  shape.lsi = true;
  shape.ttl_attribute = "expires";
  std::string out;
  const int64_t size = AppendShapeAttributes(&out, shape, 42, 1000000);
  for (const char* name :
       {R"(,"g1pk":{"S":"a)", R"(,"g1sk":{"S":"t000000042"})", R"(,"g2pk":{"S":"b)",
        R"(,"g2sk":{"S":"u000000042"})", R"(,"lsk":{"S":"l)", R"(,"expires":{"N":")"}) {
    EXPECT_NE(out.find(name), std::string::npos) << name << " in " << out;
  }
  EXPECT_GT(size, 40);
  // The same item number gets the same attributes.
  std::string again;
  AppendShapeAttributes(&again, shape, 42, 1000000);
  EXPECT_EQ(out, again);
}

TEST(LoadgenTables, ExpiringFractionIsRoughlyKept) {
  TableShape shape;
  shape.ttl_attribute = "ttl";
  shape.expiring_fraction = 0.25;
  shape.expire_after = 60;
  const int64_t now = 1000000;
  int expiring = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    std::string out;
    AppendShapeAttributes(&out, shape, i, now);
    const size_t at = out.find(R"("N":")") + 5;
    const int64_t expires = std::stoll(out.substr(at));
    if (expires <= now + 61) {
      EXPECT_GT(expires, now);
      ++expiring;
    }
  }
  EXPECT_NEAR(expiring, 1000, 120);
}

TEST(LoadgenTables, SomeUpdatesMoveIndexEntries) {
  TableShape shape;
  shape.gsis = 1;
  shape.index_move_fraction = 0.25;
  int moved = 0;
  for (uint64_t r = 0; r < 4000; ++r) {
    std::string out;
    AppendUpdateMembers(&out, shape, Mix64(r));
    EXPECT_EQ(out.back(), '}');
    if (out.find("SET g1pk = :g1") != std::string::npos) ++moved;
  }
  EXPECT_NEAR(moved, 1000, 120);
  std::string plain;
  AppendUpdateMembers(&plain, TableShape{}, 0);
  EXPECT_EQ(plain.find("SET"), std::string::npos);
}

}  // namespace
}  // namespace ddb::bench
