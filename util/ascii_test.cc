#include "util/ascii.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace ddb::util {
namespace {

TEST(Ascii, ChangesOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower('A'), 'a');
  EXPECT_EQ(AsciiLower('z'), 'z');
  EXPECT_EQ(AsciiLower('@'), '@');
  EXPECT_EQ(AsciiLower('['), '[');
  EXPECT_EQ(AsciiUpper('a'), 'A');
  EXPECT_EQ(AsciiUpper('`'), '`');
  EXPECT_EQ(AsciiUpper('{'), '{');
  EXPECT_EQ(AsciiLower('\xc4'), '\xc4');  // not a letter here, whatever a locale says
  EXPECT_EQ(AsciiLowerCopy("X-Amz-Target: \xc4"), "x-amz-target: \xc4");
  EXPECT_EQ(AsciiUpperCopy("crc32c"), "CRC32C");
}

TEST(Ascii, EqualsIgnoreCaseStaysInsideItsStrings) {
  EXPECT_TRUE(EqualsIgnoreCase("X-Amz-Target", "x-amz-target"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("x-amz-target", "x-amz-targex"));
  EXPECT_FALSE(EqualsIgnoreCase("abc", "ab"));
  EXPECT_FALSE(EqualsIgnoreCase("@", "`"));  // 0x40 and 0x60 differ by the case bit only
  // Exactly-sized heap copies, so that a read past either end is caught under ASan.
  auto exact = [](std::string_view s) {
    std::unique_ptr<char[]> p(new char[s.size()]);
    std::copy(s.begin(), s.end(), p.get());
    return p;
  };
  auto a = exact("Host");
  auto b = exact("hosT");
  EXPECT_TRUE(EqualsIgnoreCase(std::string_view(a.get(), 4), std::string_view(b.get(), 4)));
  static_assert(EqualsIgnoreCase("Select", "SELECT"));
}

TEST(Ascii, StartsWithIgnoreCase) {
  EXPECT_TRUE(StartsWithIgnoreCase("X-Amz-Checksum-CRC32", "x-amz-checksum-"));
  EXPECT_TRUE(StartsWithIgnoreCase("abc", ""));
  EXPECT_FALSE(StartsWithIgnoreCase("x-amz", "x-amz-"));
}

}  // namespace
}  // namespace ddb::util
