#include "util/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::util {
namespace {

TEST(Base64, EncodesRfc4648Vectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\xfe\x00", 3)), "//4A");
  std::string out = "x";
  AppendBase64(&out, "hello");
  EXPECT_EQ(out, "xaGVsbG8=");
}

TEST(Base64, EncodesLongInputsInPieces) {
  std::string bytes(size_t{3} << 20, 'a');
  bytes += "bc";  // past one piece, not a whole group
  const std::string text = Base64(bytes);
  EXPECT_EQ(text.size(), (bytes.size() + 2) / 3 * 4);
  std::string back;
  ASSERT_TRUE(DecodeBase64(text, &back, Base64Check::kCanonical));
  EXPECT_EQ(back, bytes);
}

TEST(Base64, RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= bytes.size(); n += 37) {
    std::string back = "stale";
    ASSERT_TRUE(DecodeBase64(Base64(bytes.substr(0, n)), &back, Base64Check::kCanonical));
    EXPECT_EQ(back, bytes.substr(0, n));
  }
}

TEST(Base64, RefusesMalformedText) {
  std::string out;
  for (const char* bad : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zm=v", "Zm9v\n", " Zm9v",
                          "Zm9-", "Zm9_", "Zm9v====", "aGVsbG8"}) {
    EXPECT_FALSE(DecodeBase64(bad, &out)) << bad;
    EXPECT_FALSE(DecodeBase64(bad, &out, Base64Check::kCanonical)) << bad;
  }
  EXPECT_TRUE(DecodeBase64("", &out));
  EXPECT_EQ(out, "");
}

TEST(Base64, CanonicalRefusesStrayBitsThatPaddedIgnores) {
  std::string out;
  // "Zh==": 'h' carries bits past the one byte; "Zm9=": '9' past the two.
  ASSERT_TRUE(DecodeBase64("Zh==", &out));
  EXPECT_EQ(out, "f");
  ASSERT_TRUE(DecodeBase64("Zm9=", &out));
  EXPECT_EQ(out, "fo");
  EXPECT_FALSE(DecodeBase64("Zh==", &out, Base64Check::kCanonical));
  EXPECT_FALSE(DecodeBase64("Zm9=", &out, Base64Check::kCanonical));
  EXPECT_TRUE(DecodeBase64("Zg==", &out, Base64Check::kCanonical));
  EXPECT_TRUE(DecodeBase64("Zm8=", &out, Base64Check::kCanonical));
}

}  // namespace
}  // namespace ddb::util
