#include "server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb::server {
namespace {

// A gate that jobs wait on until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Polls `done` for up to 10 s (generous: the machine may be loaded).
template <typename F>
bool Eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(WorkerPool, RunsEveryJobOnce) {
  std::atomic<int> runs{0};
  WorkerPool pool(4, 16);
  EXPECT_EQ(pool.threads(), 4);
  EXPECT_EQ(pool.queue_limit(), 16u);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(pool.Submit([&runs] { ++runs; }));
  pool.Shutdown();
  EXPECT_EQ(runs.load(), 1000);
}

TEST(WorkerPool, RunsJobsConcurrentlyOnItsThreads) {
  WorkerPool pool(3, 8);
  std::atomic<int> started{0};
  Gate gate;
  for (int i = 0; i < 3; ++i) {
    pool.Submit([&] {
      ++started;
      gate.Wait();
    });
  }
  // All three run at once: each waits on the gate, so a pool running them one by one would
  // never get past the first.
  EXPECT_TRUE(Eventually([&] { return started.load() == 3; }));
  EXPECT_EQ(pool.running(), 3u);
  gate.Open();
  pool.Shutdown();
}

TEST(WorkerPool, FullQueueParksJobsWithoutBlockingAndRunsThemInOrder) {
  WorkerPool pool(1, 2);
  Gate gate;
  std::mutex order_mu;
  std::vector<int> order;
  pool.Submit([&] { gate.Wait(); });
  ASSERT_TRUE(Eventually([&] { return pool.running() == 1; }));
  for (int i = 0; i < 5; ++i) {
    // Returns at once even though the only thread is blocked and the queue holds 2.
    ASSERT_TRUE(pool.Submit([&, i] {
      std::lock_guard<std::mutex> lock(order_mu);
      order.push_back(i);
    }));
  }
  EXPECT_EQ(pool.queued(), 2u);
  EXPECT_EQ(pool.parked(), 3u);
  gate.Open();
  pool.Shutdown();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(pool.queued(), 0u);
  EXPECT_EQ(pool.parked(), 0u);
}

TEST(WorkerPool, SaturatedByManySubmittersLosesNothingAndKeepsTheBound) {
  constexpr int kSubmitters = 8;
  constexpr int kJobsEach = 500;
  constexpr size_t kLimit = 4;
  WorkerPool pool(2, kLimit);
  std::atomic<int> runs{0};
  std::atomic<size_t> max_queued{0};
  std::vector<std::thread> submitters;
  for (int s = 0; s < kSubmitters; ++s) {
    submitters.emplace_back([&] {
      for (int i = 0; i < kJobsEach; ++i) {
        pool.Submit([&] {
          size_t q = pool.queued();
          size_t seen = max_queued.load();
          while (q > seen && !max_queued.compare_exchange_weak(seen, q)) {
          }
          std::this_thread::yield();
          ++runs;
        });
      }
    });
  }
  for (std::thread& t : submitters) t.join();
  EXPECT_LE(pool.queued(), kLimit);
  pool.Shutdown();
  EXPECT_EQ(runs.load(), kSubmitters * kJobsEach);
  EXPECT_LE(max_queued.load(), kLimit);
}

TEST(WorkerPool, ShutdownRunsQueuedAndParkedJobsThenJoins) {
  WorkerPool pool(1, 2);
  Gate gate;
  std::atomic<int> runs{0};
  pool.Submit([&] {
    gate.Wait();
    ++runs;
  });
  ASSERT_TRUE(Eventually([&] { return pool.running() == 1; }));
  for (int i = 0; i < 5; ++i) pool.Submit([&] { ++runs; });
  std::atomic<bool> returned{false};
  std::thread stopper([&] {
    pool.Shutdown();
    returned = true;
  });
  // Shutdown waits for the running job, so it has not returned yet; new jobs are refused.
  ASSERT_TRUE(Eventually([&] { return !pool.Submit([] {}); }));
  EXPECT_FALSE(returned.load());
  gate.Open();
  stopper.join();
  EXPECT_EQ(runs.load(), 6);
  pool.Shutdown();  // idempotent
}

TEST(WorkerPool, ShutdownCanDiscardPendingJobsUnrun) {
  WorkerPool pool(1, 2);
  Gate gate;
  std::atomic<int> runs{0};
  auto owned = std::make_shared<int>(0);  // stands for a session a job keeps alive
  pool.Submit([&] {
    gate.Wait();
    ++runs;
  });
  ASSERT_TRUE(Eventually([&] { return pool.running() == 1; }));
  for (int i = 0; i < 5; ++i) pool.Submit([&runs, owned] { ++runs; });
  EXPECT_EQ(owned.use_count(), 6);
  std::thread stopper([&] { pool.Shutdown(/*discard_pending=*/true); });
  // The pending jobs are destroyed (releasing what they own) before the running one ends.
  EXPECT_TRUE(Eventually([&] { return owned.use_count() == 1; }));
  EXPECT_EQ(pool.queued() + pool.parked(), 0u);
  gate.Open();
  stopper.join();
  EXPECT_EQ(runs.load(), 1);
}

TEST(WorkerPool, SubmitAfterShutdownIsRefusedAndReleasesTheJob) {
  WorkerPool pool(2, 4);
  pool.Shutdown();
  auto owned = std::make_shared<int>(0);
  bool ran = false;
  EXPECT_FALSE(pool.Submit([&ran, owned] { ran = true; }));
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_FALSE(ran);
}

TEST(WorkerPool, DestructorRunsWhatIsQueued) {
  std::atomic<int> runs{0};
  {
    WorkerPool pool(2, 1);
    for (int i = 0; i < 100; ++i) pool.Submit([&runs] { ++runs; });
  }
  EXPECT_EQ(runs.load(), 100);
}

}  // namespace
}  // namespace ddb::server
