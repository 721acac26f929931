#include "ddb/logger.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "ddb/engine.h"

namespace ddb {
namespace {

struct Captured {
  std::mutex mu;
  std::vector<std::pair<LogSeverity, std::string>> lines;
  Logger logger() {
    return [this](LogSeverity severity, std::string_view message) {
      std::lock_guard lock(mu);
      lines.emplace_back(severity, std::string(message));
    };
  }
};

TEST(LoggerTest, AStorageErrorGoesToTheEmbeddersLoggerAndNotToStderr) {
  // A data directory under a regular file cannot be created.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("ddb-logger-test-" + std::to_string(getpid()));
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  Captured captured;
  EngineOptions options;
  options.data_dir = (file / "data").string();
  options.logger = captured.logger();
  testing::internal::CaptureStderr();
  Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
  const std::string stderr_text = testing::internal::GetCapturedStderr();
  std::filesystem::remove(file);

  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().code(), ErrorCode::kInternal);
  EXPECT_EQ(stderr_text, "");
  ASSERT_EQ(captured.lines.size(), 1u);
  EXPECT_EQ(captured.lines[0].first, LogSeverity::kError);
  EXPECT_NE(captured.lines[0].second.find("storage: cannot create"), std::string::npos)
      << captured.lines[0].second;
  EXPECT_NE(captured.lines[0].second.find(file.string()), std::string::npos);
}

TEST(LoggerTest, TheDefaultLoggerWritesOneLineToStderr) {
  testing::internal::CaptureStderr();
  StderrLogger()(LogSeverity::kWarning, "something was skipped");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ddb: something was skipped\n");
  EXPECT_EQ(LogSeverityName(LogSeverity::kWarning), "warning");
}

TEST(LoggerTest, AHealthyEngineLogsNothing) {
  Captured captured;
  EngineOptions options;
  options.in_memory = true;
  options.logger = captured.logger();
  {
    Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok());
  }
  EXPECT_TRUE(captured.lines.empty());
}

}  // namespace
}  // namespace ddb
