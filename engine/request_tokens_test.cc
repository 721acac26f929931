// ClientRequestTokens that outlive a restart (issue 29: a TransactWriteItems repeated after
// a restart was applied twice): the record's codec, and an engine on disk reopened between a
// call and its retry, with the engine's clock driven by the test.
#include "engine/request_tokens.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "ddb/engine.h"
#include "ddb/number.h"
#include "engine/temp_dir_testing.h"

namespace ddb {
namespace {

TEST(RequestTokens, RecordRoundTrips) {
  ConsumedCapacity a{"accounts"}, b{"other"};
  a.AddTable(2.0, false);
  b.AddTable(0.5, false);
  std::string v = EncodeRequestToken(0x1234567890abcdefULL, 1796162400123ULL, {a, b});
  uint64_t fingerprint = 0, when = 0;
  std::vector<ConsumedCapacity> replay;
  ASSERT_TRUE(DecodeRequestToken(v, &fingerprint, &when, &replay));
  EXPECT_EQ(fingerprint, 0x1234567890abcdefULL);
  EXPECT_EQ(when, 1796162400123ULL);
  ASSERT_EQ(replay.size(), 2u);
  EXPECT_EQ(replay[0].table_name, "accounts");
  EXPECT_EQ(replay[0].table_units, 2.0);
  EXPECT_EQ(replay[0].read_capacity_units, 2.0);
  EXPECT_EQ(replay[1].capacity_units, 0.5);
  for (size_t cut = 0; cut < v.size(); ++cut) {
    EXPECT_FALSE(
        DecodeRequestToken(std::string_view(v).substr(0, cut), &fingerprint, &when, &replay))
        << cut;
  }
  EXPECT_FALSE(DecodeRequestToken(v + "x", &fingerprint, &when, &replay));
}

TEST(RequestTokens, ClaimReplayMismatchAndExpiry) {
  RequestTokens tokens;
  std::vector<ConsumedCapacity> replay;
  EXPECT_EQ(tokens.TryClaim("t", 1, 1000, &replay), RequestTokens::Claim::kNew);
  EXPECT_EQ(tokens.TryClaim("t", 1, 1001, &replay), RequestTokens::Claim::kInProgress);
  EXPECT_EQ(tokens.TryClaim("t", 2, 1001, &replay), RequestTokens::Claim::kMismatch);
  tokens.Released("t");
  EXPECT_EQ(tokens.TryClaim("t", 2, 1002, &replay), RequestTokens::Claim::kNew);
  tokens.Committed("t", 2, 1003, {ConsumedCapacity{"x"}});
  EXPECT_EQ(tokens.TryClaim("t", 2, 1004, &replay), RequestTokens::Claim::kReplay);
  ASSERT_EQ(replay.size(), 1u);
  EXPECT_EQ(replay[0].table_name, "x");
  // Past ten minutes the token is new again.
  EXPECT_EQ(tokens.TryClaim("t", 3, 1003 + RequestTokens::kLifetimeMs + 1, &replay),
            RequestTokens::Claim::kNew);
}

using testing::TempDir;

class RequestTokensRestartTest : public ::testing::Test {
 protected:
  void Open() {
    engine_.reset();
    EngineOptions options;
    options.data_dir = dir_.path();
    options.clock_for_testing = [this] { return now_ms_.load(); };
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
  }

  void SetUp() override {
    Open();
    CreateTableRequest req;
    req.table_name = "tokens";
    req.attribute_definitions = {{"pk", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    auto created = engine_->CreateTable(RequestContext{}, req);
    ASSERT_TRUE(created.ok()) << created.error().message();
  }

  // ADD v 1 to item "ctr" in a transaction with the token.
  Result<TransactWriteItemsResult> Add(const std::string& token) {
    TransactWriteAction a;
    a.kind = TransactWriteAction::Kind::kUpdate;
    a.table_name = "tokens";
    a.item_or_key = Item{{"pk", AttributeValue::S("ctr")}};
    a.update_expression = "ADD v :one";
    a.expression_attribute_values = Item{{":one", AttributeValue::N("1")}};
    TransactWriteItemsRequest req;
    req.actions = {a};
    req.client_request_token = token;
    req.return_consumed_capacity = ReturnConsumedCapacity::kTotal;
    return engine_->TransactWriteItems(req);
  }

  std::string Counter() {
    GetItemRequest req;
    req.table_name = "tokens";
    req.key = Item{{"pk", AttributeValue::S("ctr")}};
    req.consistent_read = true;
    auto r = engine_->GetItem(req);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->item ? r->item->at("v").scalar() : "none";
  }

  TempDir dir_;
  std::atomic<uint64_t> now_ms_{1796162400000ULL};
  std::unique_ptr<Engine> engine_;
};

TEST_F(RequestTokensRestartTest, RetryAfterRestartIsReplayedNotApplied) {
  ASSERT_TRUE(Add("tok-a").ok());
  EXPECT_EQ(Counter(), "1");
  Open();  // a clean close and reopen
  now_ms_ += 9 * 60 * 1000;
  auto replay = Add("tok-a");
  ASSERT_TRUE(replay.ok()) << replay.error().message();
  EXPECT_TRUE(replay->replayed);
  ASSERT_EQ(replay->consumed_capacity.size(), 1u);
  EXPECT_EQ(replay->consumed_capacity[0].table_name, "tokens");
  EXPECT_EQ(replay->consumed_capacity[0].capacity_units, 2.0);  // a transactional read
  EXPECT_EQ(Counter(), "1");
  // Other parameters under the same token are still refused after the restart.
  TransactWriteItemsRequest other;
  other.client_request_token = "tok-a";
  TransactWriteAction put;
  put.kind = TransactWriteAction::Kind::kPut;
  put.table_name = "tokens";
  put.item_or_key = Item{{"pk", AttributeValue::S("x")}};
  other.actions = {put};
  auto mismatch = engine_->TransactWriteItems(other);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().code(), ErrorCode::kIdempotentParameterMismatch);
}

TEST_F(RequestTokensRestartTest, TokensOlderThanTenMinutesAreForgottenOnOpen) {
  ASSERT_TRUE(Add("tok-b").ok());
  now_ms_ += RequestTokens::kLifetimeMs + 1000;
  Open();
  auto again = Add("tok-b");
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_FALSE(again->replayed);
  EXPECT_EQ(Counter(), "2");
}

TEST_F(RequestTokensRestartTest, FailedCallsLeaveNoRecord) {
  TransactWriteAction check;
  check.kind = TransactWriteAction::Kind::kConditionCheck;
  check.table_name = "tokens";
  check.item_or_key = Item{{"pk", AttributeValue::S("ctr")}};
  check.condition_expression = "attribute_exists(pk)";
  TransactWriteItemsRequest req;
  req.actions = {check};
  req.client_request_token = "tok-c";
  ASSERT_FALSE(engine_->TransactWriteItems(req).ok());  // no item yet: cancelled
  Open();
  // Other parameters under the token are a new call, not a mismatch: nothing was kept.
  auto added = Add("tok-c");
  ASSERT_TRUE(added.ok()) << added.error().message();
  EXPECT_FALSE(added->replayed);
  EXPECT_EQ(Counter(), "1");
}

}  // namespace
}  // namespace ddb
