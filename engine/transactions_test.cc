// TransactWriteItems / TransactGetItems through the embedding API (engine.h), in memory:
// cancellation reasons in request order, all-or-nothing, duplicate items, limits,
// ClientRequestToken idempotency, and multithreaded transactions that must neither
// deadlock nor lose or create value.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "ddb/number.h"

namespace ddb {
namespace {

using Kind = TransactWriteAction::Kind;

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) {
  return AttributeValue::N(NormalizeNumber(std::to_string(n)).value());
}

const char kCancelPrefix[] =
    "Transaction cancelled, please refer cancellation reasons for specific reasons ";

class TransactionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.in_memory = true;
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
    CreateTable("accounts");
    CreateTable("other");
  }

  void CreateTable(const std::string& name) {
    CreateTableRequest req;
    req.table_name = name;
    req.attribute_definitions = {{"pk", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    auto r = engine_->CreateTable(RequestContext{}, req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  static Item Key(const std::string& pk) { return Item{{"pk", S(pk)}}; }

  void Put(const std::string& table, Item item) {
    PutItemRequest req;
    req.table_name = table;
    req.item = std::move(item);
    auto r = engine_->PutItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  std::optional<Item> Get(const std::string& table, const std::string& pk) {
    GetItemRequest req;
    req.table_name = table;
    req.key = Key(pk);
    req.consistent_read = true;
    auto r = engine_->GetItem(req);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? r->item : std::nullopt;
  }

  // The number attribute "v" of an item (which must exist).
  int64_t V(const std::string& table, const std::string& pk) {
    auto item = Get(table, pk);
    EXPECT_TRUE(item.has_value()) << pk;
    if (!item || !item->contains("v")) return INT64_MIN;
    return std::stoll(item->at("v").scalar());
  }

  static void SetValues(ConditionalWrite* w, Item values) {
    if (!values.empty()) w->expression_attribute_values = std::move(values);
  }

  static TransactWriteAction PutAction(const std::string& table, Item item,
                                       std::optional<std::string> cond = std::nullopt,
                                       Item values = {}) {
    TransactWriteAction a;
    a.kind = Kind::kPut;
    a.table_name = table;
    a.item_or_key = std::move(item);
    a.condition_expression = std::move(cond);
    SetValues(&a, std::move(values));
    return a;
  }

  static TransactWriteAction UpdateAction(const std::string& table, const std::string& pk,
                                          std::string update,
                                          std::optional<std::string> cond = std::nullopt,
                                          Item values = {}) {
    TransactWriteAction a;
    a.kind = Kind::kUpdate;
    a.table_name = table;
    a.item_or_key = Key(pk);
    a.update_expression = std::move(update);
    a.condition_expression = std::move(cond);
    SetValues(&a, std::move(values));
    return a;
  }

  static TransactWriteAction DeleteAction(const std::string& table, const std::string& pk,
                                          std::optional<std::string> cond = std::nullopt,
                                          Item values = {}) {
    TransactWriteAction a;
    a.kind = Kind::kDelete;
    a.table_name = table;
    a.item_or_key = Key(pk);
    a.condition_expression = std::move(cond);
    SetValues(&a, std::move(values));
    return a;
  }

  static TransactWriteAction CheckAction(const std::string& table, const std::string& pk,
                                         std::string cond, Item values = {}) {
    TransactWriteAction a;
    a.kind = Kind::kConditionCheck;
    a.table_name = table;
    a.item_or_key = Key(pk);
    a.condition_expression = std::move(cond);
    SetValues(&a, std::move(values));
    return a;
  }

  Result<TransactWriteItemsResult> Write(std::vector<TransactWriteAction> actions,
                                         std::optional<std::string> token = std::nullopt) {
    TransactWriteItemsRequest req;
    req.actions = std::move(actions);
    req.client_request_token = std::move(token);
    return engine_->TransactWriteItems(req);
  }

  // Whether a transaction was cancelled because another one in flight held an item.
  static bool IsConflict(const Result<TransactWriteItemsResult>& r) {
    if (r.ok() || r.error().code() != ErrorCode::kTransactionCanceled || !r.error().detail()) {
      return false;
    }
    for (const auto& reason : r.error().detail()->cancellation_reasons) {
      if (reason.code == CancellationCode::kTransactionConflict) return true;
    }
    return false;
  }

  // The reason codes of a cancellation (which the result must be).
  static std::vector<std::string> Codes(const Result<TransactWriteItemsResult>& r) {
    EXPECT_FALSE(r.ok());
    if (r.ok()) return {};
    EXPECT_EQ(r.error().code(), ErrorCode::kTransactionCanceled) << r.error().message();
    std::vector<std::string> codes;
    if (r.error().detail()) {
      for (const auto& reason : r.error().detail()->cancellation_reasons) {
        codes.push_back(std::string(CancellationCodeName(reason.code)));
      }
    }
    return codes;
  }

  std::unique_ptr<Engine> engine_;
};

// --- Success -------------------------------------------------------------------------

TEST_F(TransactionsTest, AppliesEveryKindOfActionOverTwoTables) {
  Put("accounts", {{"pk", S("upd")}, {"v", N(10)}});
  Put("accounts", {{"pk", S("del")}, {"v", N(1)}});
  Put("other", {{"pk", S("chk")}, {"v", N(5)}});
  auto r = Write({
      PutAction("other", {{"pk", S("new")}, {"v", N(3)}}, "attribute_not_exists(pk)"),
      UpdateAction("accounts", "upd", "SET v = v + :d", "v >= :min",
                   {{":d", N(5)}, {":min", N(10)}}),
      DeleteAction("accounts", "del", "attribute_exists(pk)"),
      CheckAction("other", "chk", "v = :five", {{":five", N(5)}}),
  });
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(V("other", "new"), 3);
  EXPECT_EQ(V("accounts", "upd"), 15);
  EXPECT_FALSE(Get("accounts", "del").has_value());
  EXPECT_EQ(V("other", "chk"), 5);
}

TEST_F(TransactionsTest, SameKeyInDifferentTablesIsNotADuplicate) {
  auto r = Write({PutAction("accounts", {{"pk", S("k")}, {"v", N(1)}}),
                  PutAction("other", {{"pk", S("k")}, {"v", N(2)}})});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(V("accounts", "k"), 1);
  EXPECT_EQ(V("other", "k"), 2);
}

// --- Cancellation --------------------------------------------------------------------

TEST_F(TransactionsTest, CancellationReasonsFollowRequestOrder) {
  Put("accounts", {{"pk", S("a")}, {"v", N(1)}, {"name", S("text")}});
  Put("accounts", {{"pk", S("b")}, {"v", N(2)}});
  TransactWriteAction check = CheckAction("accounts", "b", "v = :three", {{":three", N(3)}});
  check.return_old_on_condition_failure = true;
  auto r = Write({
      PutAction("other", {{"pk", S("fresh")}}),                                      // None
      UpdateAction("accounts", "a", "ADD #n :one", std::nullopt, {{":one", N(1)}}),  // Validation
      check,                                                                         // CCF+item
      DeleteAction("other", "missing", "attribute_exists(pk)"),                      // CCF
      UpdateAction("other", "x", "SET v = :one", std::nullopt, {{":one", N(1)}}),    // None
  });
  // "#n" needs its name.
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.error().code(), ErrorCode::kValidation) << r.error().message();

  std::vector<TransactWriteAction> actions = {
      PutAction("other", {{"pk", S("fresh")}}),
      UpdateAction("accounts", "a", "ADD #n :one", std::nullopt, {{":one", N(1)}}),
      check,
      DeleteAction("other", "missing", "attribute_exists(pk)"),
      UpdateAction("other", "x", "SET v = :one", std::nullopt, {{":one", N(1)}}),
  };
  actions[1].expression_attribute_names = std::map<std::string, std::string>{{"#n", "name"}};
  r = Write(actions);
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"None", "ValidationError", "ConditionalCheckFailed",
                                                "ConditionalCheckFailed", "None"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            std::string(kCancelPrefix) +
                "[None, ValidationError, ConditionalCheckFailed, ConditionalCheckFailed, None]");
  const auto& reasons = r.error().detail()->cancellation_reasons;
  EXPECT_EQ(reasons[0].message, "");
  EXPECT_FALSE(reasons[0].item.has_value());
  EXPECT_EQ(reasons[1].message, "An operand in the update expression has an incorrect data type");
  EXPECT_EQ(reasons[2].message, "The conditional request failed");
  ASSERT_TRUE(reasons[2].item.has_value());
  EXPECT_EQ(*reasons[2].item, (Item{{"pk", S("b")}, {"v", N(2)}}));
  EXPECT_EQ(reasons[3].message, "The conditional request failed");
  EXPECT_FALSE(reasons[3].item.has_value());  // no ALL_OLD asked, and no item anyway
  EXPECT_FALSE(reasons[4].item.has_value());

  // All or nothing: none of the passing actions was applied.
  EXPECT_FALSE(Get("other", "fresh").has_value());
  EXPECT_FALSE(Get("other", "x").has_value());
  EXPECT_EQ(*Get("accounts", "a"), (Item{{"pk", S("a")}, {"v", N(1)}, {"name", S("text")}}));
}

TEST_F(TransactionsTest, FailedConditionAnywhereAppliesNothing) {
  for (int failing = 0; failing < 4; ++failing) {
    SCOPED_TRACE(failing);
    Put("accounts", {{"pk", S("a")}, {"v", N(100)}});
    Put("accounts", {{"pk", S("b")}, {"v", N(100)}});
    Put("accounts", {{"pk", S("c")}, {"v", N(100)}});
    Put("accounts", {{"pk", S("d")}, {"v", N(100)}});
    std::vector<TransactWriteAction> actions;
    std::vector<std::string> want;
    const char* keys[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; ++i) {
      // The failing action asks for more than there is.
      int64_t d = i == failing ? 1000 : 10;
      actions.push_back(
          UpdateAction("accounts", keys[i], "SET v = v - :d", "v >= :d", {{":d", N(d)}}));
      want.push_back(i == failing ? "ConditionalCheckFailed" : "None");
    }
    auto r = Write(actions);
    EXPECT_EQ(Codes(r), want);
    for (const char* k : keys) EXPECT_EQ(V("accounts", k), 100) << k;
  }
}

TEST_F(TransactionsTest, MissingOperandIsAValidationErrorReason) {
  auto r = Write({PutAction("accounts", {{"pk", S("p")}}),
                  UpdateAction("accounts", "q", "SET v = absent_attr + :one", std::nullopt,
                               {{":one", N(1)}})});
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"None", "ValidationError"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail()->cancellation_reasons[1].message,
            "The provided expression refers to an attribute that does not exist in the item");
  EXPECT_FALSE(Get("accounts", "p").has_value());
  EXPECT_FALSE(Get("accounts", "q").has_value());
}

// --- Request validation --------------------------------------------------------------

TEST_F(TransactionsTest, SameItemTwiceIsRejected) {
  Put("accounts", {{"pk", S("dup")}, {"v", N(1)}});
  auto r = Write({PutAction("accounts", {{"pk", S("bystander")}}),
                  UpdateAction("accounts", "dup", "SET v = :two", std::nullopt, {{":two", N(2)}}),
                  CheckAction("accounts", "dup", "attribute_exists(pk)")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(r.error().message(),
            "Transaction request cannot include multiple operations on one item");
  EXPECT_FALSE(Get("accounts", "bystander").has_value());
  EXPECT_EQ(V("accounts", "dup"), 1);

  TransactGetItemsRequest get;
  get.actions.resize(2);
  get.actions[0].table_name = get.actions[1].table_name = "accounts";
  get.actions[0].key = get.actions[1].key = Key("dup");
  auto g = engine_->TransactGetItems(get);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code(), ErrorCode::kValidation);
}

TEST_F(TransactionsTest, ActionCountLimits) {
  auto r = Write({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);

  std::vector<TransactWriteAction> actions;
  for (int i = 0; i < 101; ++i) {
    actions.push_back(PutAction("accounts", {{"pk", S("k" + std::to_string(i))}}));
  }
  r = Write(actions);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  EXPECT_NE(r.error().message().find("less than or equal to 100"), std::string::npos);
  EXPECT_FALSE(Get("accounts", "k0").has_value());

  actions.pop_back();
  r = Write(actions);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(Get("accounts", "k99").has_value());
}

TEST_F(TransactionsTest, MissingTableIsResourceNotFound) {
  auto r = Write({PutAction("accounts", {{"pk", S("a")}}), PutAction("nope", {{"pk", S("a")}})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kResourceNotFound);
  EXPECT_FALSE(Get("accounts", "a").has_value());

  TransactGetItemsRequest get;
  get.actions.resize(1);
  get.actions[0].table_name = "nope";
  get.actions[0].key = Key("a");
  auto g = engine_->TransactGetItems(get);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code(), ErrorCode::kResourceNotFound);
}

// --- Idempotency ---------------------------------------------------------------------

TEST_F(TransactionsTest, TokenMakesARetryANoOp) {
  auto counter = [&] {
    return std::vector<TransactWriteAction>{
        UpdateAction("accounts", "ctr", "ADD v :one", std::nullopt, {{":one", N(1)}})};
  };
  for (int i = 0; i < 3; ++i) {
    auto r = Write(counter(), "token-1");
    ASSERT_TRUE(r.ok()) << r.error().message();
  }
  EXPECT_EQ(V("accounts", "ctr"), 1);

  // Same token, different request.
  auto other = counter();
  (*other[0].expression_attribute_values)[":one"] = N(2);
  auto r = Write(other, "token-1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kIdempotentParameterMismatch);
  r = Write({UpdateAction("other", "ctr", "ADD v :one", std::nullopt, {{":one", N(1)}})},
            "token-1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kIdempotentParameterMismatch);
  EXPECT_EQ(V("accounts", "ctr"), 1);
  EXPECT_FALSE(Get("other", "ctr").has_value());

  // A new token, or none, applies again.
  ASSERT_TRUE(Write(counter(), "token-2").ok());
  ASSERT_TRUE(Write(counter()).ok());
  ASSERT_TRUE(Write(counter()).ok());
  EXPECT_EQ(V("accounts", "ctr"), 4);
}

// Many threads send the very same request with the same token at once (a client's
// retries racing its first attempt): it must be applied once. The service answers a
// retry that arrives while the first attempt runs with TransactionInProgressException;
// any error is accepted here, a second application is not.
TEST_F(TransactionsTest, ConcurrentRetriesOfOneTokenApplyOnce) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 100;
  int doubled = 0;
  int64_t worst = 1;
  for (int round = 0; round < kRounds; ++round) {
    std::string pk = "idem-" + std::to_string(round);
    std::atomic<int> ready{0};
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        auto r = Write({UpdateAction("accounts", pk, "ADD v :one", std::nullopt, {{":one", N(1)}})},
                       "tok-" + pk);
        if (r.ok()) ok.fetch_add(1);
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_GE(ok.load(), 1) << pk;
    int64_t applied = V("accounts", pk);
    if (applied != 1) ++doubled;
    worst = std::max(worst, applied);
  }
  EXPECT_EQ(doubled, 0) << "rounds (of " << kRounds << ") where one token was applied more "
                        << "than once (at worst " << worst << " times)";
}

// --- TransactGetItems ----------------------------------------------------------------

TEST_F(TransactionsTest, GetItemsInOrderWithProjection) {
  Put("accounts", {{"pk", S("a")}, {"v", N(1)}, {"w", S("x")}});
  Put("other", {{"pk", S("b")}, {"v", N(2)}});
  TransactGetItemsRequest req;
  req.actions.resize(3);
  req.actions[0].table_name = "other";
  req.actions[0].key = Key("b");
  req.actions[1].table_name = "accounts";
  req.actions[1].key = Key("missing");
  req.actions[2].table_name = "accounts";
  req.actions[2].key = Key("a");
  req.actions[2].projection_expression = "#w";
  req.actions[2].expression_attribute_names = std::map<std::string, std::string>{{"#w", "w"}};
  auto r = engine_->TransactGetItems(req);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->items.size(), 3u);
  EXPECT_EQ(r->items[0], (Item{{"pk", S("b")}, {"v", N(2)}}));
  EXPECT_FALSE(r->items[1].has_value());
  EXPECT_EQ(r->items[2], (Item{{"w", S("x")}}));
}

// --- Concurrency ---------------------------------------------------------------------

// Threads run transactions over 2-3 random items of 6 (listed in random order, so two
// transactions often lock the same items in opposite request order), each moving value
// from the first item to the others; single-item ADDs and TransactGetItems run alongside.
// Everything must finish (no deadlock) and the total must never change.
TEST_F(TransactionsTest, ConcurrentTransactionsFinishAndConserveTotals) {
  constexpr int kItems = 6;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  constexpr int64_t kInitial = 1000;
  for (int i = 0; i < kItems; ++i)
    Put("accounts", {{"pk", S("i" + std::to_string(i))}, {"v", N(kInitial)}});
  Put("other", {{"pk", S("hits")}, {"v", N(0)}});

  std::atomic<bool> stop_readers{false};
  std::atomic<int> committed{0}, refused{0}, snapshots{0}, bad_snapshots{0}, errors{0};
  std::atomic<int> single_adds{0}, conflicts{0};

  auto body = [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(1234 + t);
        for (int n = 0; n < kPerThread; ++n) {
          std::vector<int> idx(kItems);
          for (int i = 0; i < kItems; ++i) idx[i] = i;
          std::shuffle(idx.begin(), idx.end(), rng);
          int count = 2 + static_cast<int>(rng() % 2);
          int64_t amount = 1 + static_cast<int64_t>(rng() % 400);
          std::vector<TransactWriteAction> actions;
          actions.push_back(UpdateAction("accounts", "i" + std::to_string(idx[0]), "SET v = v - :d",
                                         "v >= :d", {{":d", N(amount)}}));
          int64_t left = amount;
          for (int k = 1; k < count; ++k) {
            int64_t part = k == count - 1 ? left : left / 2;
            left -= part;
            actions.push_back(UpdateAction("accounts", "i" + std::to_string(idx[k]),
                                           "SET v = v + :d", std::nullopt, {{":d", N(part)}}));
          }
          // Put the debit somewhere other than first, so request order != lock order.
          std::rotate(actions.begin(), actions.begin() + (rng() % count), actions.end());
          // A collision with another transaction in flight cancels with TransactionConflict
          // (as in the service); the application retries, as this thread does.
          auto r = Write(actions);
          for (int retry = 0; retry < 10000 && IsConflict(r); ++retry) {
            conflicts.fetch_add(1);
            r = Write(actions);
          }
          if (r.ok()) {
            committed.fetch_add(1);
          } else if (r.error().code() == ErrorCode::kTransactionCanceled ||
                     r.error().code() == ErrorCode::kTransactionConflict) {
            refused.fetch_add(1);
          } else {
            errors.fetch_add(1);
            ADD_FAILURE() << r.error().message();
          }
          if (n % 10 == 0) {
            UpdateItemRequest add;
            add.table_name = "other";
            add.key = Key("hits");
            add.update_expression = "ADD v :one";
            SetValues(&add, {{":one", N(1)}});
            // A TransactionConflictException never happens here: no transaction writes "hits".
            if (engine_->UpdateItem(add).ok()) single_adds.fetch_add(1);
          }
        }
      });
    }
    std::thread reader([&] {
      TransactGetItemsRequest req;
      for (int i = 0; i < kItems; ++i) {
        TransactGetAction g;
        g.table_name = "accounts";
        g.key = Key("i" + std::to_string(i));
        req.actions.push_back(g);
      }
      while (!stop_readers.load()) {
        auto r = engine_->TransactGetItems(req);
        if (!r.ok()) continue;  // a conflict may refuse a read
        int64_t sum = 0;
        bool negative = false;
        for (const auto& item : r->items) {
          int64_t v = std::stoll(item->at("v").scalar());
          sum += v;
          negative |= v < 0;
        }
        snapshots.fetch_add(1);
        if (sum != kItems * kInitial || negative) bad_snapshots.fetch_add(1);
      }
    });
    for (auto& t : threads) t.join();
    stop_readers.store(true);
    reader.join();
  };

  auto done = std::async(std::launch::async, body);
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "transactions did not finish within 60 s: deadlock?";
    std::_Exit(1);  // the stuck threads cannot be joined
  }
  done.get();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(committed.load() + refused.load(), kThreads * kPerThread);
  EXPECT_GT(committed.load(), kThreads * kPerThread / 2);
  EXPECT_GT(snapshots.load(), 0);
  EXPECT_EQ(bad_snapshots.load(), 0) << "of " << snapshots.load() << " snapshots";
  int64_t total = 0;
  for (int i = 0; i < kItems; ++i) {
    int64_t v = V("accounts", "i" + std::to_string(i));
    EXPECT_GE(v, 0);
    total += v;
  }
  EXPECT_EQ(total, kItems * kInitial);
  EXPECT_EQ(V("other", "hits"), single_adds.load());
}

}  // namespace
}  // namespace ddb
