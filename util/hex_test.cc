#include "util/hex.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::util {
namespace {

TEST(Hex, EncodesBytesInLowerCase) {
  EXPECT_EQ(Hex(""), "");
  EXPECT_EQ(Hex(std::string("\x00\x01\xab\xff", 4)), "0001abff");
  std::string out = "0x";
  AppendHex(&out, "\x7f");
  EXPECT_EQ(out, "0x7f");
}

TEST(Hex, Hex64KeepsLeadingZeros) {
  EXPECT_EQ(Hex64(0), "0000000000000000");
  EXPECT_EQ(Hex64(0xab), "00000000000000ab");
  EXPECT_EQ(Hex64(0xfedcba9876543210ULL), "fedcba9876543210");
}

TEST(Hex, ReadsDigitsOfEitherCase) {
  EXPECT_EQ(HexDigitValue('0'), 0);
  EXPECT_EQ(HexDigitValue('9'), 9);
  EXPECT_EQ(HexDigitValue('a'), 10);
  EXPECT_EQ(HexDigitValue('F'), 15);
  EXPECT_EQ(HexDigitValue('g'), -1);
  EXPECT_EQ(HexDigitValue('\0'), -1);
  EXPECT_TRUE(IsLowerHex("0123456789abcdef"));
  EXPECT_TRUE(IsLowerHex(""));
  EXPECT_FALSE(IsLowerHex("0A"));
  EXPECT_FALSE(IsLowerHex(std::string("0\0", 2)));
}

TEST(Hex, DecodesWhatHexWrites) {
  std::string out = "stale";
  ASSERT_TRUE(DecodeHex("0001abff", &out));
  EXPECT_EQ(out, std::string("\x00\x01\xab\xff", 4));
  ASSERT_TRUE(DecodeHex("", &out));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(DecodeHex("abc", &out));
  EXPECT_FALSE(DecodeHex("AB", &out));
  EXPECT_FALSE(DecodeHex("0x", &out));
  EXPECT_FALSE(DecodeHex("-1", &out));
}

}  // namespace
}  // namespace ddb::util
