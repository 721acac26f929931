#include "server/url_coding.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::server {
namespace {

TEST(UrlCoding, PercentCodingAndQueries) {
  std::string out;
  AppendEncoded("a b/c~", /*keep_slash=*/true, &out);
  EXPECT_EQ(out, "a%20b/c~");
  EXPECT_EQ(Decode("a%20b%2Fc%zz+"), "a b/c%zz+");
  const std::vector<QueryParam> q = ParseQuery("list-type=2&prefix=a%2F&delete");
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(FindParam(q, "prefix")->value, "a/");
  EXPECT_EQ(FindParam(q, "delete")->value, "");
  EXPECT_EQ(FindParam(q, "nope"), nullptr);
}

}  // namespace
}  // namespace ddb::server
