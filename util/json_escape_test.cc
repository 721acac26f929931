#include "util/json_escape.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

namespace ddb::util {
namespace {

TEST(JsonEscape, EscapesOnlyWhatJsonRequires) {
  EXPECT_EQ(JsonString("plain text"), "\"plain text\"");
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(JsonString(std::string("\x01x\x1f", 3)), "\"\\u0001x\\u001f\"");
  EXPECT_EQ(JsonString(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(JsonString("h\xc3\xa9llo \xe2\x82\xac"), "\"h\xc3\xa9llo \xe2\x82\xac\"");
  std::string out = "[";
  AppendJsonString(&out, "a");
  EXPECT_EQ(out, "[\"a\"");
}

// Byte by byte, as RFC 8259 says: the reference for the word-at-a-time escaping.
std::string Reference(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

TEST(JsonEscape, MatchesAByteWiseReference) {
  std::mt19937 rng(5);
  // Mostly plain bytes (long runs for the 16- and 8-byte paths) with specials at every offset.
  const std::string specials = std::string("\"\\\n\x01\x1f\0\x7f\x80\xff ", 11);
  for (int i = 0; i < 20000; ++i) {
    std::string s(static_cast<size_t>(rng() % 70), 'a');
    for (char& c : s) {
      const uint32_t r = rng() % 100;
      if (r < 4)
        c = specials[rng() % specials.size()];
      else if (r < 8)
        c = static_cast<char>(rng() % 256);
    }
    ASSERT_EQ(JsonString(s), Reference(s)) << i;
  }
}

}  // namespace
}  // namespace ddb::util
