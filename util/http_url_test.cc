#include "util/http_url.h"

#include <gtest/gtest.h>

namespace ddb::util {
namespace {

TEST(HttpUrlTest, SplitsHostPortAndPath) {
  auto u = ParseHttpUrl("http://127.0.0.1:3001/2015-03-31/functions/f/invocations?x=1");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "3001");
  EXPECT_EQ(u->host_header, "127.0.0.1:3001");
  EXPECT_EQ(u->path, "/2015-03-31/functions/f/invocations?x=1");
  u = ParseHttpUrl("http://[::1]:8080");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->path, "/");
  u = ParseHttpUrl("http://localhost/");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, "80");
}

TEST(HttpUrlTest, RefusesWhatItCannotSpeak) {
  EXPECT_FALSE(ParseHttpUrl("https://example.com"));
  EXPECT_FALSE(ParseHttpUrl("http://"));
  EXPECT_FALSE(ParseHttpUrl("http://host:"));
  EXPECT_FALSE(ParseHttpUrl("http://[::1"));
  EXPECT_FALSE(ParseHttpUrl("127.0.0.1:8000"));
}

}  // namespace
}  // namespace ddb::util
