#include "engine/storage/coding.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace ddb {
namespace {

int Sign(int v) { return (v > 0) - (v < 0); }

// The store's order is std::string_view::compare's (memcmp, then the shorter first): every
// store was written in it, and RocksDB opens one only under a comparator of the same name.
void ExpectSameOrder(const std::string& a, const std::string& b) {
  EXPECT_EQ(CompareBytes(a, b), Sign(std::string_view(a).compare(b)))
      << "a=" << testing::PrintToString(a) << " b=" << testing::PrintToString(b);
  EXPECT_EQ(CompareBytes(b, a), Sign(std::string_view(b).compare(a)));
}

TEST(CodingTest, CompareBytesOrdersAsMemcmpThenLength) {
  const std::string edge[] = {"",
                              std::string(1, '\0'),
                              std::string(8, '\0'),
                              std::string(9, '\0'),
                              "a",
                              "ab",
                              "abcdefgh",
                              "abcdefghi",
                              "abcdefgi",
                              std::string("\x7f\x80\xff", 3),
                              std::string("\x80", 1),
                              std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9),
                              std::string(16, 'x'),
                              std::string(15, 'x') + "\x01",
                              std::string(23, 'x') + "\xfe"};
  for (const std::string& a : edge) {
    for (const std::string& b : edge) ExpectSameOrder(a, b);
  }
}

// Keys of every length to 40 that share prefixes of every length, with bytes from the
// extremes (sign bit, 0, 0xff): each word and tail position decides some pairs.
TEST(CodingTest, CompareBytesMatchesRandomPairs) {
  std::mt19937 rng(20261207);
  const char bytes[] = {'\0', '\x01', '\x7f', '\x80', '\xfe', '\xff', 'a'};
  auto random_bytes = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(bytes[rng() % sizeof(bytes)]);
    return s;
  };
  for (int i = 0; i < 200000; ++i) {
    const std::string prefix = random_bytes(rng() % 33);
    std::string a = prefix + random_bytes(rng() % 9);
    std::string b = prefix + random_bytes(rng() % 9);
    ExpectSameOrder(a, b);
    if (testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace ddb
