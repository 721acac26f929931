#include "server/byte_budget.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace ddb::server {
namespace {

TEST(ByteBudgetTest, ReservesUpToTheCapacityAndNoFurther) {
  ByteBudget budget(100);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_FALSE(budget.TryReserve(41));  // would be 101
  EXPECT_EQ(budget.reserved(), 60u);    // a refusal reserves nothing
  EXPECT_TRUE(budget.TryReserve(40));
  EXPECT_FALSE(budget.TryReserve(1));
  budget.Release(60);
  EXPECT_TRUE(budget.TryReserve(60));
  EXPECT_EQ(budget.reserved(), 100u);
}

TEST(ByteBudgetTest, AHugeRequestDoesNotWrapAround) {
  ByteBudget budget(100);
  EXPECT_TRUE(budget.TryReserve(10));
  EXPECT_FALSE(budget.TryReserve(static_cast<size_t>(-1)));
  EXPECT_EQ(budget.reserved(), 10u);
}

// Reserve counts bytes already taken (a computed response), past the capacity if need be;
// Full says so, and TryReserve refuses until enough is released.
TEST(ByteBudgetTest, AnUnconditionalReservationCanOvershootAndIsRefusedAfter) {
  ByteBudget budget(100);
  EXPECT_FALSE(budget.Full());
  budget.Reserve(80);
  EXPECT_FALSE(budget.Full());
  budget.Reserve(50);  // 130
  EXPECT_TRUE(budget.Full());
  EXPECT_FALSE(budget.TryReserve(1));
  EXPECT_EQ(budget.reserved(), 130u);
  budget.Release(80);
  EXPECT_FALSE(budget.Full());
  EXPECT_TRUE(budget.TryReserve(50));
  EXPECT_TRUE(budget.Full());
}

TEST(ByteBudgetTest, ConcurrentReservationsNeverExceedTheCapacity) {
  ByteBudget budget(1000);
  std::vector<std::thread> threads;
  std::atomic<int> granted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        if (budget.TryReserve(7)) {
          granted.fetch_add(1);
          EXPECT_LE(budget.reserved(), 1000u);
          budget.Release(7);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_GT(granted.load(), 0);
}

}  // namespace
}  // namespace ddb::server
