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
  EXPECT_EQ(parsed.value().engine.durability, Durability::kProcess);
  parsed = Parse({"--durability", "fsync"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.durability, Durability::kFsync);
  parsed = Parse({"--durability=fsync", "--durability=process"});  // the last one wins
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.durability, Durability::kProcess);
  for (const char* bad : {"sync", "", "FSYNC"}) {
    Result<ServerOptions> refused = Parse({std::string("--durability=") + bad});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message().find("--durability"), std::string::npos);
  }
}

TEST(ServerConfig, CacheSizeFlag) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.block_cache_bytes, size_t{256} << 20);
  parsed = Parse({"--cache-size", "1073741824"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.block_cache_bytes, size_t{1} << 30);
  for (const char* bad : {"1000", "", "1G", "-5"}) {
    Result<ServerOptions> refused = Parse({std::string("--cache-size=") + bad});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message().find("--cache-size"), std::string::npos);
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

TEST(ServerConfig, EngineOptionsKeepTheEnginesDefaults) {
  Result<ServerOptions> parsed = Parse({});
  ASSERT_TRUE(parsed.ok());
  const EngineOptions& engine = parsed.value().engine;
  const EngineOptions defaults;
  EXPECT_EQ(engine.data_dir, defaults.data_dir);
  EXPECT_EQ(engine.in_memory, defaults.in_memory);
  EXPECT_EQ(engine.s3_dir, "");
  EXPECT_EQ(engine.durability, defaults.durability);
  EXPECT_EQ(engine.gsi_propagation_delay_ms, defaults.gsi_propagation_delay_ms);
  EXPECT_EQ(engine.simulate_capacity, defaults.simulate_capacity);
  EXPECT_EQ(engine.partition_split_bytes, defaults.partition_split_bytes);
  EXPECT_EQ(engine.index_status_hold_ms, defaults.index_status_hold_ms);
  EXPECT_EQ(engine.table_status_hold_ms, defaults.table_status_hold_ms);
  EXPECT_EQ(engine.compact_on_open, defaults.compact_on_open);
  EXPECT_EQ(engine.pitr_lag_ms, defaults.pitr_lag_ms);
  EXPECT_EQ(engine.pitr_history_max_bytes, defaults.pitr_history_max_bytes);
  // --help names them.
  const std::string usage = Usage("ddb-server");
  EXPECT_NE(usage.find("(default " + defaults.data_dir + ")"), std::string::npos);
  EXPECT_NE(usage.find("(default " + std::to_string(defaults.pitr_lag_ms) + ";"),
            std::string::npos);
}

TEST(ServerConfig, EngineFlagsAndDynamoDbLocalHolds) {
  Result<ServerOptions> parsed =
      Parse({"--data-dir=d", "--in-memory", "--s3-dir", "s", "--gsi-propagation-delay-ms", "5",
             "--simulate-capacity", "--partition-split-bytes=2048", "--pitr-lag-ms", "7",
             "--pitr-history-max-bytes", "4096", "--table-status-hold-ms", "9"});
  ASSERT_TRUE(parsed.ok());
  const EngineOptions& engine = parsed.value().engine;
  EXPECT_EQ(engine.data_dir, "d");
  EXPECT_TRUE(engine.in_memory);
  EXPECT_EQ(engine.s3_dir, "s");
  EXPECT_EQ(engine.gsi_propagation_delay_ms, 5);
  EXPECT_TRUE(engine.simulate_capacity);
  EXPECT_EQ(engine.partition_split_bytes, 2048);
  EXPECT_EQ(engine.pitr_lag_ms, 7);
  EXPECT_EQ(engine.pitr_history_max_bytes, 4096);
  EXPECT_EQ(engine.index_status_hold_ms, 0);
  EXPECT_EQ(engine.table_status_hold_ms, 9);
  // -delayTransientStatuses holds what ddb's own flags left unsaid, even an explicit 0.
  parsed = Parse({"-delayTransientStatuses"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.index_status_hold_ms, 15000);
  EXPECT_EQ(parsed.value().engine.table_status_hold_ms, 2000);
  parsed =
      Parse({"--index-status-hold-ms=0", "-delayTransientStatuses", "--table-status-hold-ms", "3"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().engine.index_status_hold_ms, 0);
  EXPECT_EQ(parsed.value().engine.table_status_hold_ms, 3);
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
