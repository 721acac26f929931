// A unit-test fixture with ddb in-process: each test gets a fresh in-memory engine with the
// table it needs (opening and closing one costs about 0.15 ms), and talks to it with the typed API
// that the wire API is built on.
#include <ddb/engine.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

ddb::AttributeValue S(std::string s) { return ddb::AttributeValue::S(std::move(s)); }
ddb::AttributeValue N(std::string n) { return ddb::AttributeValue::N(std::move(n)); }

class OrdersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ddb::EngineOptions options;
    options.in_memory = true;
    auto engine = ddb::Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.error().message();
    engine_ = std::move(engine).value();

    ddb::CreateTableRequest create;
    create.table_name = "orders";
    create.attribute_definitions = {{"customer", ddb::ScalarType::kS},
                                    {"order", ddb::ScalarType::kS}};
    create.key_schema = {{"customer", ddb::KeyType::kHash}, {"order", ddb::KeyType::kRange}};
    create.billing_mode = ddb::BillingMode::kPayPerRequest;
    auto table = engine_->CreateTable(ddb::RequestContext{}, create);
    ASSERT_TRUE(table.ok()) << table.error().message();
  }

  void Put(const std::string& customer, const std::string& order, const std::string& total) {
    ddb::PutItemRequest put;
    put.table_name = "orders";
    put.item = {{"customer", S(customer)}, {"order", S(order)}, {"total", N(total)}};
    auto r = engine_->PutItem(put);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  std::unique_ptr<ddb::Engine> engine_;  // closed (and its memory freed) after each test
};

TEST_F(OrdersTest, QueryReturnsOneCustomersOrdersInSortKeyOrder) {
  Put("alice", "2026-11-02", "30");
  Put("bob", "2026-11-01", "12.5");
  Put("alice", "2026-11-01", "7");

  ddb::QueryRequest query;
  query.table_name = "orders";
  query.key_condition_expression = "customer = :c";
  query.expression_attribute_values = {{":c", S("alice")}};
  auto page = engine_->Query(query);
  ASSERT_TRUE(page.ok()) << page.error().message();

  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->items[0].at("order"), S("2026-11-01"));
  EXPECT_EQ(page->items[1].at("order"), S("2026-11-02"));
  EXPECT_EQ(page->items[1].at("total"), N("30"));
}

TEST_F(OrdersTest, AConditionalPutOfAnExistingOrderFailsAsInDynamoDB) {
  Put("alice", "2026-11-01", "7");
  ddb::PutItemRequest put;
  put.table_name = "orders";
  put.item = {{"customer", S("alice")}, {"order", S("2026-11-01")}};
  put.condition_expression = "attribute_not_exists(customer)";
  auto r = engine_->PutItem(put);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ddb::ErrorCode::kConditionalCheckFailed);
  EXPECT_EQ(r.error().message(), "The conditional request failed");
}

TEST_F(OrdersTest, EveryTestStartsWithAnEmptyTable) {
  ddb::ScanRequest scan;
  scan.table_name = "orders";
  auto page = engine_->Scan(scan);
  ASSERT_TRUE(page.ok()) << page.error().message();
  EXPECT_EQ(page->count, 0);
}

}  // namespace
