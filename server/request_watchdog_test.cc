#include "server/request_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ddb::server {
namespace {

constexpr int64_t kSecond = 1000 * 1000 * 1000;

TEST(RequestTableName, FindsTheFirstTableNameMember) {
  EXPECT_EQ(RequestTableName(R"({"TableName":"Music","Key":{}})"), "Music");
  EXPECT_EQ(RequestTableName("{ \"Key\" : {}, \"TableName\" :\n \"a.b-c_1\" }"), "a.b-c_1");
  // A value "TableName" is not the member.
  EXPECT_EQ(RequestTableName(R"({"S":"TableName","TableName":"T"})"), "T");
  EXPECT_EQ(RequestTableName(R"({"TransactItems":[{"Put":{"TableName":"A"}},)"
                             R"({"Put":{"TableName":"B"}}]})"),
            "A");
}

TEST(RequestTableName, IsEmptyWhenThereIsNoPlainName) {
  EXPECT_EQ(RequestTableName(""), "");
  EXPECT_EQ(RequestTableName(R"({"RequestItems":{"T":[]}})"), "");
  EXPECT_EQ(RequestTableName(R"({"TableName":7})"), "");
  EXPECT_EQ(RequestTableName(R"({"TableName":"unterminated)"), "");
  EXPECT_EQ(RequestTableName(R"({"TableName":"esc\"aped"})"), "");
}

// A watched thread (loop thread i) in one call with `context` until Release().
class CallOnThread {
 public:
  CallOnThread(SpareThreads* calls, int i, const void* context) {
    thread_ = std::thread([this, calls, i, context] {
      calls->Attach(i);
      calls->Enter(context);
      {
        std::unique_lock<std::mutex> lock(mu_);
        entered_ = true;
        cv_.notify_all();
        cv_.wait(lock, [this] { return released_; });
      }
      calls->Leave();
      left_ = true;
    });
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return entered_; });
  }
  ~CallOnThread() { Release(); }

  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool left() const { return left_.load(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool released_ = false;
  std::atomic<bool> left_{false};
  std::thread thread_;
};

SpareThreads::Options TwoLoopThreads() {
  SpareThreads::Options o;
  o.loop_threads = 2;
  o.spares = 0;  // no monitor: the marks alone
  return o;
}

struct Fixture {
  SpareThreads calls{TwoLoopThreads(), [] { return false; }};
  std::vector<std::string> warnings;
  RequestWatchdog watchdog{
      &calls, RequestWatchdog::Options{.threshold = std::chrono::seconds(1)},
      [](const void* context) { return std::string(static_cast<const char*>(context)); },
      [this](const std::string& message) { warnings.push_back(message); }};
};

TEST(RequestWatchdog, ReportsACallOnceWhenItPassesTheThreshold) {
  Fixture f;
  EXPECT_EQ(f.watchdog.Scan(RequestWatchdog::SteadyNowNs()), 0);  // no call
  CallOnThread call(&f.calls, 0, "GetItem on table \"T\"");
  const int64_t started = f.calls.call_started_ns(0);
  ASSERT_NE(started, 0);
  EXPECT_EQ(f.watchdog.Scan(started + kSecond / 2), 0);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.watchdog.Scan(started + kSecond + kSecond / 4), 1);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("GetItem on table \"T\" still running after 1.2 s"),
            std::string::npos)
      << f.warnings[0];
  EXPECT_EQ(f.watchdog.overdue_total(), 1u);
  EXPECT_EQ(f.watchdog.overdue_now(), 1);
  // Still running: counted as overdue now, not reported again.
  EXPECT_EQ(f.watchdog.Scan(started + 5 * kSecond), 1);
  EXPECT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.watchdog.overdue_total(), 1u);
  call.Release();
  EXPECT_EQ(f.watchdog.Scan(started + 6 * kSecond), 0);
  EXPECT_EQ(f.watchdog.overdue_now(), 0);
  EXPECT_EQ(f.watchdog.overdue_total(), 1u);
}

TEST(RequestWatchdog, ALaterCallOnTheSameThreadIsANewCall) {
  Fixture f;
  int64_t first = 0;
  {
    CallOnThread call(&f.calls, 1, "PutItem");
    first = f.calls.call_started_ns(1);
    EXPECT_EQ(f.watchdog.Scan(first + 2 * kSecond), 1);
  }
  CallOnThread call(&f.calls, 1, "DeleteItem");
  const int64_t second = f.calls.call_started_ns(1);
  ASSERT_NE(second, first);
  EXPECT_EQ(f.watchdog.Scan(second + 2 * kSecond), 1);
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_NE(f.warnings[1].find("DeleteItem still running"), std::string::npos);
  EXPECT_EQ(f.watchdog.overdue_total(), 2u);
}

TEST(RequestWatchdog, CountsEveryOverdueCallAndNamesOneWithoutContextGenerically) {
  Fixture f;
  CallOnThread a(&f.calls, 0, "Scan on table \"A\"");
  CallOnThread b(&f.calls, 1, nullptr);
  const int64_t later = std::max(f.calls.call_started_ns(0), f.calls.call_started_ns(1));
  EXPECT_EQ(f.watchdog.Scan(later + 3 * kSecond), 2);
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_NE(f.warnings[0].find("Scan on table \"A\""), std::string::npos);
  EXPECT_NE(f.warnings[1].find("an engine call still running"), std::string::npos);
  const std::string running = f.watchdog.DescribeRunning(later + 3 * kSecond);
  EXPECT_NE(running.find("Scan on table \"A\" for 3.0 s"), std::string::npos) << running;
  EXPECT_NE(running.find("; an engine call for 3.0 s"), std::string::npos) << running;
}

// Inspect reads a call's context while the call cannot leave: Leave waits for it.
TEST(RequestWatchdog, LeaveWaitsWhileTheContextIsRead) {
  SpareThreads calls(TwoLoopThreads(), [] { return false; });
  const char* context = "Query";
  std::atomic<bool> reading{false};
  std::atomic<bool> left_while_reading{false};
  CallOnThread call(&calls, 0, context);
  const int64_t started = calls.call_started_ns(0);
  std::thread releaser;
  EXPECT_TRUE(calls.Inspect(0, started, [&](const void* seen) {
    EXPECT_EQ(seen, context);
    reading = true;
    releaser = std::thread([&] { call.Release(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left_while_reading = call.left();
    reading = false;
  }));
  releaser.join();
  EXPECT_FALSE(left_while_reading.load());
  EXPECT_TRUE(call.left());
  // Over: nothing to read any more.
  EXPECT_FALSE(calls.Inspect(0, started, [](const void*) { ADD_FAILURE(); }));
}

TEST(RequestWatchdog, TheThreadScansByItself) {
  SpareThreads calls(TwoLoopThreads(), [] { return false; });
  std::mutex mu;
  std::vector<std::string> warnings;
  RequestWatchdog watchdog(
      &calls,
      RequestWatchdog::Options{.threshold = std::chrono::milliseconds(20),
                               .period = std::chrono::milliseconds(5)},
      [](const void*) { return std::string("BatchGetItem"); },
      [&](const std::string& message) {
        std::lock_guard<std::mutex> lock(mu);
        warnings.push_back(message);
      });
  watchdog.Start();
  CallOnThread call(&calls, 0, "x");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (watchdog.overdue_total() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  call.Release();
  watchdog.Stop();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("BatchGetItem still running"), std::string::npos);
}

}  // namespace
}  // namespace ddb::server
