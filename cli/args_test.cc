#include "cli/args.h"

#include <gtest/gtest.h>

namespace ddb::cli {
namespace {

TEST(CliArgs, QueryWithOptionsAnywhere) {
  Result<Invocation> r = ParseArgs({"--json", "query", "T", "user#1", "--sk-between", "a", "b",
                                    "--index", "byDate", "--endpoint", "http://h:1"});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r.value().json);
  EXPECT_EQ(r.value().command, "query");
  EXPECT_EQ(r.value().args, (std::vector<std::string>{"T", "user#1"}));
  ASSERT_TRUE(r.value().sk_between.has_value());
  EXPECT_EQ(r.value().sk_between->first, "a");
  EXPECT_EQ(r.value().sk_between->second, "b");
  EXPECT_EQ(r.value().index, "byDate");
  EXPECT_EQ(r.value().endpoint, "http://h:1");
}

TEST(CliArgs, DataDirExcludesEndpoint) {
  Result<Invocation> r = ParseArgs({"--data-dir", "d", "--endpoint", "http://h:1", "tables"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("exclude"), std::string::npos);
  r = ParseArgs({"--data-dir", "d", "tables"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().data_dir, "d");
  EXPECT_TRUE(r.value().endpoint.empty());
}

TEST(CliArgs, UsageErrors) {
  EXPECT_FALSE(ParseArgs({}).ok());
  EXPECT_FALSE(ParseArgs({"frobnicate"}).ok());
  EXPECT_FALSE(ParseArgs({"describe"}).ok());
  EXPECT_FALSE(ParseArgs({"describe", "a", "b"}).ok());
  EXPECT_FALSE(ParseArgs({"get", "T"}).ok());  // no key
  EXPECT_FALSE(ParseArgs({"scan", "T", "--limit", "0"}).ok());
  EXPECT_FALSE(ParseArgs({"scan", "T", "--limit", "x"}).ok());
  EXPECT_FALSE(ParseArgs({"scan", "T", "--bogus"}).ok());
  EXPECT_FALSE(ParseArgs({"scan", "T", "--sk-prefix", "a"}).ok());
  EXPECT_FALSE(ParseArgs({"query", "T", "p", "--sk-prefix", "a", "--sk-between", "a", "b"}).ok());
  EXPECT_FALSE(ParseArgs({"query", "T", "p", "--sk-between", "a"}).ok());
  EXPECT_FALSE(ParseArgs({"scan", "T", "--filter"}).ok());
}

TEST(CliArgs, HelpAndKeys) {
  EXPECT_TRUE(ParseArgs({"--help"}).value().help);
  EXPECT_TRUE(ParseArgs({"help"}).value().help);
  EXPECT_TRUE(ParseArgs({"--version"}).value().version);
  Result<Invocation> r = ParseArgs({"get", "T", "--key", "{\"pk\":{\"S\":\"a\"}}"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().key, "{\"pk\":{\"S\":\"a\"}}");
  r = ParseArgs({"get", "T", "a", "1", "--limit", "5"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().limit, 5);
  EXPECT_NE(Usage().find("Exit codes"), std::string::npos);
  EXPECT_EQ(ParseArgs({"tables", "--timeout", "0.5"}).value().timeout_ms, 500);
  EXPECT_FALSE(ParseArgs({"tables", "--timeout", "0"}).ok());
  EXPECT_FALSE(ParseArgs({"tables", "--timeout", "x"}).ok());
}

}  // namespace
}  // namespace ddb::cli
