#include "server/spare_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb::server {
namespace {

using std::chrono::milliseconds;

// Polls `done` for up to 10 s (generous: the machine may be loaded).
template <typename F>
bool Eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

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

// A loop thread (Attach(i)) that stays in one call until the gate opens.
std::thread StuckLoopThread(SpareThreads* spares, int i, Gate* gate) {
  return std::thread([spares, i, gate] {
    spares->Attach(i);
    spares->Enter();
    gate->Wait();
    spares->Leave();
  });
}

SpareThreads::Options Opts(int loop_threads, int spares) {
  SpareThreads::Options o;
  o.loop_threads = loop_threads;
  o.spares = spares;
  return o;
}

TEST(SpareThreads, NoSpareServesWhileNoCallIsInProgress) {
  std::atomic<int> slices{0};
  SpareThreads spares(Opts(2, 2), [&] {
    ++slices;
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  });
  spares.Start();
  std::thread loop([&] {
    spares.Attach(0);
    std::this_thread::sleep_for(milliseconds(50));  // no Enter: nothing to compensate
  });
  loop.join();
  EXPECT_EQ(spares.wanted(), 0);
  EXPECT_EQ(slices.load(), 0);
}

TEST(SpareThreads, ASpareServesWhileALoopThreadIsStuckAndStopsAfter) {
  std::atomic<int> slices{0};
  SpareThreads spares(Opts(1, 2), [&] {
    ++slices;
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  });
  spares.Start();
  Gate gate;
  std::thread loop = StuckLoopThread(&spares, 0, &gate);
  EXPECT_TRUE(Eventually([&] { return slices.load() > 0; }));
  EXPECT_EQ(spares.wanted(), 1);  // one stuck call: one spare, not both
  gate.Open();
  loop.join();
  ASSERT_TRUE(Eventually([&] { return spares.wanted() == 0; }));
  std::this_thread::sleep_for(milliseconds(200));  // the spare finishes its slice
  const int after = slices.load();
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(slices.load(), after);  // asleep again, off the loop
}

// A call known to block (a write waiting for its fsync) is compensated at once when no other
// loop thread is free, and treated as any call while one is.
TEST(SpareThreads, ABlockingCallGetsASpareAtOnceOnlyWhenNoLoopThreadIsFree) {
  SpareThreads::Options o = Opts(2, 1);
  o.stuck_after = std::chrono::seconds(60);  // an ordinary call is never compensated here
  SpareThreads spares(o, [] {
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  });
  spares.Start();
  Gate first_gate, second_gate;
  std::atomic<bool> first_in{false};
  std::thread first([&] {
    spares.Attach(0);
    spares.EnterBlocking();  // loop thread 1 is free: an ordinary call
    first_in = true;
    first_gate.Wait();
    spares.Leave();
  });
  ASSERT_TRUE(Eventually([&] { return first_in.load(); }));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(spares.wanted(), 0);
  std::thread second([&] {
    spares.Attach(1);
    spares.EnterBlocking();  // every other loop thread is in a call: a spare now
    second_gate.Wait();
    spares.Leave();
  });
  EXPECT_TRUE(Eventually([&] { return spares.wanted() == 1; }));
  second_gate.Open();
  first_gate.Open();
  first.join();
  second.join();
}

TEST(SpareThreads, OneSparePerStuckCallUpToTheSpares) {
  SpareThreads spares(Opts(3, 2), [] {
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  });
  spares.Start();
  Gate gate;
  std::vector<std::thread> loops;
  for (int i = 0; i < 3; ++i) loops.push_back(StuckLoopThread(&spares, i, &gate));
  EXPECT_TRUE(Eventually([&] { return spares.wanted() == 2; }));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(spares.wanted(), 2);
  gate.Open();
  for (std::thread& t : loops) t.join();
}

// A spare that itself gets stuck in a call (it ran an engine call) is compensated in turn.
TEST(SpareThreads, AStuckSpareIsCompensatedByAnother) {
  Gate gate;
  std::atomic<bool> first{true};
  std::atomic<int> slices{0};
  SpareThreads* self = nullptr;
  SpareThreads spares(Opts(1, 2), [&] {
    if (first.exchange(false)) {  // the first slice makes a long call on its spare
      self->Enter();
      gate.Wait();
      self->Leave();
      return true;
    }
    ++slices;
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  });
  self = &spares;
  spares.Start();
  std::thread loop = StuckLoopThread(&spares, 0, &gate);
  EXPECT_TRUE(Eventually([&] { return spares.wanted() == 2 && slices.load() > 0; }));
  gate.Open();
  loop.join();
  EXPECT_TRUE(Eventually([&] { return spares.wanted() == 0; }));
}

TEST(SpareThreads, StopJoinsWithoutSpinningOnAStoppedLoop) {
  std::atomic<int> slices{0};
  SpareThreads spares(Opts(1, 1), [&] {
    ++slices;
    return false;  // the loop is stopped
  });
  spares.Start();
  Gate gate;
  std::thread loop = StuckLoopThread(&spares, 0, &gate);
  ASSERT_TRUE(Eventually([&] { return slices.load() > 0; }));
  std::this_thread::sleep_for(milliseconds(100));
  // One try per period (1 ms) at most, not a busy loop; generous for a loaded machine.
  EXPECT_LT(slices.load(), 1000);
  spares.Stop();
  gate.Open();
  loop.join();
  spares.Stop();  // idempotent
}

}  // namespace
}  // namespace ddb::server
