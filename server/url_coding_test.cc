#include "server/url_coding.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ddb::server {
namespace {

TEST(UrlCoding, EqualsIgnoreCaseStaysInsideItsStrings) {
  EXPECT_TRUE(EqualsIgnoreCase("X-Amz-Target", "x-amz-target"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("x-amz-target", "x-amz-targex"));
  EXPECT_FALSE(EqualsIgnoreCase("abc", "ab"));
  // Exactly-sized heap copies, so that a read past either end is caught under ASan.
  auto exact = [](std::string_view s) {
    std::unique_ptr<char[]> p(new char[s.size()]);
    std::copy(s.begin(), s.end(), p.get());
    return p;
  };
  auto a = exact("Host");
  auto b = exact("hosT");
  EXPECT_TRUE(EqualsIgnoreCase(std::string_view(a.get(), 4), std::string_view(b.get(), 4)));
}

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
