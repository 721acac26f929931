#include "server/config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ddb::server {
namespace {

Result<ServerOptions> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "ddb-server");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data());
}

TEST(ServerConfig, EngineThreadsDefaultCoversBlockingCalls) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine_threads, DefaultEngineThreadCount());
  EXPECT_GE(DefaultEngineThreadCount(), 8);
  EXPECT_GE(DefaultEngineThreadCount(), 4 * DefaultThreadCount());
}

TEST(ServerConfig, DurabilityFlag) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().durability, Durability::kProcess);
  parsed = Parse({"--durability", "fsync"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().durability, Durability::kFsync);
  parsed = Parse({"--durability=fsync", "--durability=process"});  // the last one wins
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().durability, Durability::kProcess);
  for (const char* bad : {"sync", "", "FSYNC"}) {
    Result<ServerOptions> refused = Parse({std::string("--durability=") + bad});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message().find("--durability"), std::string::npos);
  }
}

TEST(ServerConfig, ShutdownAndWatchdogFlags) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().shutdown_grace, std::chrono::seconds(10));
  EXPECT_EQ(parsed.value().request_watchdog, std::chrono::seconds(30));
  EXPECT_EQ(parsed.value().testing_stall_table, "");
  parsed = Parse({"--shutdown-grace", "2", "--request-watchdog-seconds=0", "--testing-stall-table",
                  "Stalled"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().shutdown_grace, std::chrono::seconds(2));
  EXPECT_EQ(parsed.value().request_watchdog, std::chrono::seconds(0));  // off
  EXPECT_EQ(parsed.value().testing_stall_table, "Stalled");
  for (const char* bad : {"--shutdown-grace=-1", "--request-watchdog-seconds=1s",
                          "--testing-stall-table=", "--shutdown-grace"}) {
    Result<ServerOptions> refused = Parse({bad});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message().find(std::string(bad).substr(0, 12)), std::string::npos)
        << refused.error().message();
  }
  // A test hook: not advertised.
  EXPECT_EQ(Usage("ddb-server").find("testing"), std::string::npos);
}

TEST(ServerConfig, EngineThreadsFlag) {
  Result<ServerOptions> parsed = Parse({"--engine-threads", "3", "--threads=2"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine_threads, 3);
  EXPECT_EQ(parsed.value().threads, 2);
  parsed = Parse({"--engine-threads=0"});  // inline: no slots, no spare threads
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine_threads, 0);
  for (const char* bad : {"-1", "1025", "x", ""}) {
    Result<ServerOptions> refused = Parse({std::string("--engine-threads=") + bad});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message().find("--engine-threads"), std::string::npos);
  }
}

TEST(ServerConfig, UsageNamesEngineThreads) {
  EXPECT_NE(Usage("ddb-server").find("--engine-threads N"), std::string::npos);
}

TEST(ServerConfig, ConsoleDefaultsToOnOnlyOnLoopback) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(ConsoleEnabled(parsed.value()));
  parsed = Parse({"--host", "0.0.0.0"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(ConsoleEnabled(parsed.value()));
  parsed = Parse({"--host", "0.0.0.0", "--console", "on"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(ConsoleEnabled(parsed.value()));
  parsed = Parse({"--console=off"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(ConsoleEnabled(parsed.value()));
  EXPECT_FALSE(Parse({"--console", "maybe"}).ok());
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("127.example.com"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
}

}  // namespace
}  // namespace ddb::server
