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

}  // namespace
}  // namespace ddb::server
