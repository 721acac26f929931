#include "server/engine_slots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb::server {
namespace {

TEST(EngineSlots, AdmitsUpToItsSlotsThenRefuses) {
  EngineSlots slots(2);
  EXPECT_EQ(slots.slots(), 2);
  EXPECT_TRUE(slots.TryAcquire());
  EXPECT_TRUE(slots.TryAcquire());
  EXPECT_FALSE(slots.TryAcquire());
  EXPECT_EQ(slots.in_use(), 2);
  EXPECT_FALSE(slots.Release());  // nothing parked: the slot is free again
  EXPECT_EQ(slots.in_use(), 1);
  EXPECT_TRUE(slots.TryAcquire());
}

TEST(EngineSlots, AcquireOrParkTakesAFreeSlotAndDropsTheContinuationUnrun) {
  EngineSlots slots(1);
  auto owned = std::make_shared<int>(0);  // stands for the session a continuation holds
  bool ran = false;
  EXPECT_TRUE(slots.AcquireOrPark([&ran, owned] { ran = true; }));
  EXPECT_FALSE(ran);
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_EQ(slots.in_use(), 1);
  EXPECT_EQ(slots.parked(), 0u);
}

TEST(EngineSlots, ReleasePassesTheSlotToParkedContinuationsInOrder) {
  EngineSlots slots(1);
  std::vector<int> order;
  ASSERT_TRUE(slots.TryAcquire());
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(slots.AcquireOrPark([&order, i] { order.push_back(i); }));
  }
  EXPECT_EQ(slots.parked(), 3u);
  // Parked continuations come first: a newcomer does not overtake them.
  EXPECT_FALSE(slots.TryAcquire());
  while (EngineSlots::Continuation next = slots.Release()) {
    EXPECT_EQ(slots.in_use(), 1);  // handed over, never freed in between
    next();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(slots.in_use(), 0);
  EXPECT_EQ(slots.parked(), 0u);
}

TEST(EngineSlots, DiscardParkedDestroysContinuationsUnrun) {
  EngineSlots slots(1);
  auto owned = std::make_shared<int>(0);
  bool ran = false;
  ASSERT_TRUE(slots.TryAcquire());
  for (int i = 0; i < 4; ++i) slots.AcquireOrPark([&ran, owned] { ran = true; });
  EXPECT_EQ(owned.use_count(), 5);
  EXPECT_EQ(slots.DiscardParked(), 4u);
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(slots.Release());
}

// A tiny executor standing in for the io_context: threads running posted tasks.
class Executor {
 public:
  explicit Executor(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~Executor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// The server's protocol under saturation: 8 threads, 2 slots, 2000 calls that each hold a slot
// for a while. Every call runs exactly once, never more than 2 at a time, and calls do park.
TEST(EngineSlots, SaturatedCallsAllRunOnceWithinTheBound) {
  constexpr int kSlots = 2;
  constexpr int kCalls = 2000;
  EngineSlots slots(kSlots);
  std::atomic<int> running{0}, max_running{0}, done{0};
  std::atomic<size_t> max_parked{0};
  std::vector<std::atomic<int>> runs(kCalls);
  std::function<void(int)> call;  // runs call i with a slot held, then passes the slot on
  {
    Executor executor(8);  // joined before `call` goes
    call = [&](int i) {
      const int now = ++running;
      int seen = max_running.load();
      while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      ++runs[i];
      --running;
      if (EngineSlots::Continuation next = slots.Release()) next();
      ++done;
    };
    for (int i = 0; i < kCalls; ++i) {
      executor.Post([&, i] {
        if (slots.TryAcquire()) return call(i);
        if (slots.AcquireOrPark([&, i] { executor.Post([&, i] { call(i); }); })) return call(i);
        const size_t parked = slots.parked();
        size_t seen = max_parked.load();
        while (parked > seen && !max_parked.compare_exchange_weak(seen, parked)) {
        }
      });
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (done.load() < kCalls && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  EXPECT_EQ(done.load(), kCalls);
  for (int i = 0; i < kCalls; ++i) ASSERT_EQ(runs[i].load(), 1) << "call " << i;
  EXPECT_LE(max_running.load(), kSlots);
  EXPECT_GT(max_parked.load(), 0u);
  EXPECT_EQ(slots.in_use(), 0);
  EXPECT_EQ(slots.parked(), 0u);
}

}  // namespace
}  // namespace ddb::server
