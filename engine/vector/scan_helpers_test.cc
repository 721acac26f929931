#include "engine/vector/scan_helpers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ddb {
namespace {

TEST(ScanHelpers, RunsEveryPartOnce) {
  ScanHelpers helpers(3);
  std::vector<std::atomic<int>> runs(1000);
  helpers.Run(runs.size(), [&](size_t part) { ++runs[part]; });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
}

TEST(ScanHelpers, WithoutThreadsTheCallerRunsAll) {
  ScanHelpers helpers(0);
  const auto caller = std::this_thread::get_id();
  int parts = 0;
  helpers.Run(5, [&](size_t) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    ++parts;
  });
  EXPECT_EQ(parts, 5);
}

TEST(ScanHelpers, ConcurrentCallersEachGetTheirOwnParts) {
  ScanHelpers helpers(1);
  std::vector<std::thread> callers;
  std::atomic<bool> wrong{false};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 200; ++round) {
        std::vector<int> seen(8, 0);
        helpers.Run(seen.size(), [&](size_t part) { seen[part] += c + 1; });
        for (int s : seen) wrong = wrong || s != c + 1;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_FALSE(wrong);
}

}  // namespace
}  // namespace ddb
