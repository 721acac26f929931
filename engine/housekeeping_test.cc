// Housekeeping: each task on its own interval with its own counters, failures logged once per
// streak, a prompt Stop; and the engine's tasks as GetMetrics reports them.
#include "engine/housekeeping.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"

namespace ddb {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Waits (up to 10 s) until `done` holds.
template <typename F>
bool Eventually(F done) {
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

struct Log {
  std::mutex mu;
  std::vector<std::string> lines;
  Logger logger() {
    return [this](LogSeverity, std::string_view message) {
      std::lock_guard lock(mu);
      lines.emplace_back(message);
    };
  }
  std::vector<std::string> Lines() {
    std::lock_guard lock(mu);
    return lines;
  }
};

TEST(Housekeeping, EachTaskRunsOnItsOwnInterval) {
  std::atomic<int> fast{0}, slow{0};
  Log log;
  Housekeeping h({{"fast", milliseconds(5), [&] { return ++fast, Status::Ok(); }},
                  {"slow", std::chrono::hours(1), [&] { return ++slow, Status::Ok(); }}},
                 log.logger());
  EXPECT_EQ(h.Figures()[0].rounds, 0u);  // nothing before Start
  h.Start();
  ASSERT_TRUE(Eventually([&] { return fast >= 3; }));
  h.Stop();
  EXPECT_EQ(slow, 0);
  const std::vector<HousekeepingFigures> figures = h.Figures();
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].task, "fast");
  EXPECT_EQ(figures[0].rounds, static_cast<uint64_t>(fast.load()));
  EXPECT_EQ(figures[0].failures, 0u);
  EXPECT_EQ(figures[1].task, "slow");
  EXPECT_EQ(figures[1].rounds, 0u);
  EXPECT_TRUE(log.Lines().empty());
}

TEST(Housekeeping, AStreakOfFailuresIsCountedAndLoggedOnce) {
  std::atomic<int> round{0};
  Log log;
  // Rounds 1-3 fail, the rest succeed.
  Housekeeping h(
      {{"flaky", milliseconds(1),
        [&] { return ++round <= 3 ? Status(Error::Internal("disk on fire")) : Status::Ok(); }}},
      log.logger());
  h.Start();
  ASSERT_TRUE(Eventually([&] { return round >= 5; }));
  h.Stop();
  EXPECT_EQ(h.Figures()[0].failures, 3u);
  const std::vector<std::string> lines = log.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("housekeeping task flaky failed"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("disk on fire"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("flaky works again after 3 failed rounds"), std::string::npos)
      << lines[1];
}

TEST(Housekeeping, StopIsPromptWhileWaiting) {
  Housekeeping h({{"hourly", std::chrono::hours(1), [] { return Status::Ok(); }}}, nullptr);
  h.Start();
  const auto start = Clock::now();
  h.Stop();
  h.Stop();  // idempotent
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

TEST(Housekeeping, StopSkipsTheTasksNotYetBegun) {
  std::atomic<bool> in_first{false};
  std::atomic<int> second{0};
  std::atomic<bool> release{false};
  Housekeeping h({{"first", milliseconds(1),
                   [&] {
                     in_first = true;
                     while (!release) std::this_thread::sleep_for(milliseconds(1));
                     return Status::Ok();
                   }},
                  {"second", milliseconds(1), [&] { return ++second, Status::Ok(); }}},
                 nullptr);
  h.Start();
  ASSERT_TRUE(Eventually([&] { return in_first.load(); }));
  std::thread stopper([&] { h.Stop(); });
  std::this_thread::sleep_for(milliseconds(20));  // Stop is waiting for the round
  release = true;
  stopper.join();
  EXPECT_EQ(second, 0);
}

TEST(Housekeeping, TheEnginesTasksAreInItsMetrics) {
  EngineOptions options;
  options.in_memory = true;
  options.ttl_sweep_interval_ms = 10;
  auto opened = Engine::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  std::unique_ptr<Engine> engine = std::move(opened).value();
  ASSERT_TRUE(Eventually([&] {
    for (const HousekeepingFigures& f : engine->GetMetrics().housekeeping) {
      if (f.rounds < 2) return false;
    }
    return true;
  }));
  std::vector<std::string> names;
  for (const HousekeepingFigures& f : engine->GetMetrics().housekeeping) {
    names.push_back(f.task);
    EXPECT_EQ(f.failures, 0u) << f.task;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"expire_ttl_items", "trim_stream_records",
                                             "trim_kinesis_records", "expire_system_backups",
                                             "trim_history",
                                             "expire_request_tokens"}));
}

}  // namespace
}  // namespace ddb
