#include "server/shutdown_deadline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ddb::server {
namespace {

TEST(ShutdownDeadlineDeathTest, EndsTheProcessWhenItPasses) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ShutdownDeadline deadline(3, "a test bound");
        deadline.Arm(std::chrono::milliseconds(10));
        std::this_thread::sleep_for(std::chrono::seconds(30));  // "stuck"
      },
      testing::ExitedWithCode(3), "shutdown did not end within 0.0 s .*a test bound");
}

TEST(ShutdownDeadline, DoesNothingWhenTheShutdownEndsFirst) {
  {
    ShutdownDeadline deadline(3, "a test bound");
    deadline.Arm(std::chrono::milliseconds(200));
    deadline.Arm(std::chrono::milliseconds(1));  // the first Arm counts
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  SUCCEED();  // still here
}

TEST(ShutdownDeadline, NeverArmedJoinsNothing) { ShutdownDeadline deadline(3, "unused"); }

}  // namespace
}  // namespace ddb::server
