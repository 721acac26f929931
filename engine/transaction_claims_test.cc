// TransactionClaims: a write claim excludes every other claim of the key, read claims share,
// a refused claim keeps nothing, and single-item writes see only write claims.
#include "engine/transaction_claims.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ddb {
namespace {

using Mode = TransactionClaims::Mode;

TEST(TransactionClaims, WriteExcludesAndReadsShare) {
  TransactionClaims claims;
  EXPECT_FALSE(claims.HeldForWriting("a"));
  EXPECT_TRUE(claims.TryClaim({"a", "b"}, Mode::kWrite).empty());
  EXPECT_TRUE(claims.HeldForWriting("a"));
  EXPECT_FALSE(claims.HeldForWriting("c"));
  // Another transaction on b and c: b is named, and c is not kept.
  EXPECT_EQ(claims.TryClaim({"c", "b"}, Mode::kWrite), std::vector<size_t>{1});
  EXPECT_FALSE(claims.HeldForWriting("c"));
  EXPECT_EQ(claims.TryClaim({"b"}, Mode::kRead), std::vector<size_t>{0});
  claims.Release({"a", "b"}, Mode::kWrite);
  EXPECT_FALSE(claims.HeldForWriting("a"));

  EXPECT_TRUE(claims.TryClaim({"a"}, Mode::kRead).empty());
  EXPECT_TRUE(claims.TryClaim({"a", "b"}, Mode::kRead).empty());
  EXPECT_FALSE(claims.HeldForWriting("a"));  // reads do not refuse single-item writes
  EXPECT_EQ(claims.TryClaim({"b", "a"}, Mode::kWrite), (std::vector<size_t>{0, 1}));
  claims.Release({"a"}, Mode::kRead);
  EXPECT_EQ(claims.TryClaim({"a"}, Mode::kWrite), std::vector<size_t>{0});
  claims.Release({"a", "b"}, Mode::kRead);
  EXPECT_TRUE(claims.TryClaim({"a", "b"}, Mode::kWrite).empty());
  claims.Release({"a", "b"}, Mode::kWrite);
  EXPECT_FALSE(claims.HeldForWriting("b"));
}

// Threads claim overlapping pairs: a key is never held for writing by two at once.
TEST(TransactionClaims, ConcurrentClaimsNeverShareAWrite) {
  TransactionClaims claims;
  std::atomic<int> owners[4] = {};
  std::atomic<int> overlaps{0}, granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < 5000; ++n) {
        int a = (t + n) % 4, b = (t + n + 1) % 4;
        std::vector<std::string> keys = {std::to_string(a), std::to_string(b)};
        if (!claims.TryClaim(keys, Mode::kWrite).empty()) continue;
        granted.fetch_add(1);
        if (owners[a].fetch_add(1) != 0) overlaps.fetch_add(1);
        if (owners[b].fetch_add(1) != 0) overlaps.fetch_add(1);
        owners[a].fetch_sub(1);
        owners[b].fetch_sub(1);
        claims.Release(keys, Mode::kWrite);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_GT(granted.load(), 0);
  for (int k = 0; k < 4; ++k) EXPECT_FALSE(claims.HeldForWriting(std::to_string(k)));
}

}  // namespace
}  // namespace ddb
