#include "engine/storage/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "ddb/number.h"

namespace ddb {
namespace {

std::string SortKeyBytes(const AttributeValue& v) {
  std::string s;
  AppendSortKey(&s, v);
  return s;
}

AttributeValue Num(const std::string& text) {
  auto n = NormalizeNumber(text);
  EXPECT_TRUE(n.ok()) << text;
  return AttributeValue::N(n.value());
}

// DynamoDB's sort-key order: N by value, S by UTF-8 bytes, B by unsigned bytes.
int DynamoCompare(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == AttributeType::kN) return CompareNumbers(a.scalar(), b.scalar());
  return a.scalar().compare(b.scalar());
}

std::string RandomBytes(std::mt19937_64& rng, bool text) {
  std::string s(rng() % 12, '\0');
  for (auto& c : s) {
    // Small alphabets make shared prefixes common; binary includes 0x00 and 0xff.
    c = text ? static_cast<char>('a' + rng() % 3)
             : static_cast<char>(std::array<int, 4>{0, 1, 0x7f, 0xff}[rng() % 4]);
  }
  return s;
}

std::string RandomNumber(std::mt19937_64& rng) {
  std::string digits = std::to_string(rng() % 1000000);
  std::string text =
      (rng() % 2 ? "-" : "") + digits + "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
  return text;
}

TEST(KeyCodec, PropertyEncodedOrderEqualsDynamoOrder) {
  std::mt19937_64 rng(42);
  for (AttributeType type : {AttributeType::kS, AttributeType::kB, AttributeType::kN}) {
    std::vector<AttributeValue> values;
    for (int i = 0; i < 2000; ++i) {
      if (type == AttributeType::kN) {
        values.push_back(Num(RandomNumber(rng)));
      } else if (type == AttributeType::kS) {
        values.push_back(AttributeValue::S(RandomBytes(rng, true)));
      } else {
        values.push_back(AttributeValue::B(RandomBytes(rng, false)));
      }
    }
    for (int i = 0; i < 20000; ++i) {
      const auto& a = values[rng() % values.size()];
      const auto& b = values[rng() % values.size()];
      int want = DynamoCompare(a, b);
      int got = SortKeyBytes(a).compare(SortKeyBytes(b));
      ASSERT_EQ(want < 0, got < 0) << a.scalar() << " vs " << b.scalar();
      ASSERT_EQ(want == 0, got == 0) << a.scalar() << " vs " << b.scalar();
    }
  }
}

TEST(KeyCodec, NumbersSortNumerically) {
  const std::vector<std::string> ascending = {"-1e10", "-2", "-1.5", "-0.001", "0",
                                              "0.001", "1",  "1.5",  "10",     "1E+2"};
  for (size_t i = 1; i < ascending.size(); ++i) {
    EXPECT_LT(SortKeyBytes(Num(ascending[i - 1])), SortKeyBytes(Num(ascending[i]))) << ascending[i];
  }
}

TEST(KeyCodec, EqualNumbersEncodeEqually) {
  EXPECT_EQ(SortKeyBytes(Num("1000")), SortKeyBytes(Num("1e3")));
  EXPECT_EQ(EncodeItemKey(7, kKeyFormatXxh3, Num("1000"), nullptr),
            EncodeItemKey(7, kKeyFormatXxh3, Num("1E3"), nullptr));
}

TEST(KeyCodec, SortKeysRoundTrip) {
  for (const auto& v : {AttributeValue::S("abc"), AttributeValue::B(std::string("\0\xff", 2)),
                        Num("-12.5"), Num("0"), Num("123456789012345678901234567890")}) {
    AttributeValue back;
    ASSERT_TRUE(DecodeSortKey(SortKeyBytes(v), v.type(), &back));
    EXPECT_EQ(back, v);
  }
}

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string ServiceBytes(const AttributeValue& v) {
  std::string s;
  AppendServiceKeyBytes(&s, v);
  return s;
}

// The service's internal number form (an Oracle-NUMBER-like layout), as dynalite's
// numToBuffer reproduces it; the orders below are what pins it to the service.
TEST(KeyCodec, ServiceNumberBytes) {
  const std::pair<const char*, const char*> cases[] = {
      {"0", "80"},
      {"1", "c102"},
      {"-1", "3e6466"},
      {"10", "c10b"},
      {"-10", "3e5b66"},
      {"100", "c202"},
      {"0.1", "c00b"},
      {"0.012345", "c002182e"},
      {"-0.09", "3f5c66"},
      {"999.9", "c20a645b"},
      {"-999.9", "3d5c020b66"},
      {"1E+125", "ff0b"},
      {"1E-130", "8002"},
      {"-1E-130", "7f6466"},
      {"12345678901234567890123456789012345678", "d30d23394f5b0d23394f5b0d23394f5b0d23394f"},
      {"-12345678901234567890123456789012345678", "2c59432d170b59432d170b59432d170b59432d1766"},
      {"9.9999999999999999999999999999999999999E+125", "ff64646464646464646464646464646464646464"},
  };
  for (const auto& [text, hex] : cases) EXPECT_EQ(Hex(ServiceBytes(Num(text))), hex) << text;
  EXPECT_EQ(ServiceBytes(AttributeValue::S("äb")), "äb");
  EXPECT_EQ(ServiceBytes(AttributeValue::B(std::string("\0\xff", 2))), std::string("\0\xff", 2));
}

// Key format 2 orders partition keys as the service's Scan returns them. The expected orders
// and segments are dynalite's test/scan.js ("should return items in string hash order",
// "... number hash order", "... from correct string/number hash segments"), a suite that
// runs against the live service too.
TEST(KeyCodec, ServiceOrderMatchesTheServicesScanOrder) {
  auto order = [](std::vector<AttributeValue> keys) {
    std::vector<std::pair<std::string, std::string>> by_key;
    for (const auto& k : keys) {
      by_key.emplace_back(EncodeItemKey(1, kKeyFormatServiceOrder, k, nullptr), k.scalar());
    }
    std::sort(by_key.begin(), by_key.end());
    std::vector<std::string> out;
    for (const auto& [key, text] : by_key) out.push_back(text);
    return out;
  };
  const std::vector<std::string> strings = {"2", "8", "9",    "1",       "6", "hello", "0",
                                            "5", "4", "äáöü", "aardman", "7", "3",     "zapf"};
  std::vector<AttributeValue> s;
  for (auto it = strings.rbegin(); it != strings.rend(); ++it) s.push_back(AttributeValue::S(*it));
  EXPECT_EQ(order(s), strings);
  const std::vector<std::string> numbers = {"7", "999.9", "8", "3", "2", "-999.9",   "9",
                                            "4", "-0.09", "6", "1", "0", "0.012345", "5"};
  std::vector<AttributeValue> n;
  for (const auto& t : numbers) n.push_back(Num(t));
  std::sort(n.begin(), n.end(), [](const AttributeValue& a, const AttributeValue& b) {
    return a.scalar() < b.scalar();
  });
  EXPECT_EQ(order(n), numbers);
  // The top 12 bits of the token: the segment of 4096.
  auto segment = [](const AttributeValue& k) { return PartitionToken(2, k) >> 52; };
  EXPECT_EQ(segment(AttributeValue::S("3635")), 0u);
  EXPECT_EQ(segment(AttributeValue::S("228")), 0u);
  EXPECT_EQ(segment(AttributeValue::S("1668")), 1u);
  EXPECT_EQ(segment(AttributeValue::S("3435")), 4u);
  EXPECT_EQ(segment(Num("251")), 1u);
  EXPECT_EQ(segment(Num("2388")), 4095u);
  // Format 1 tables keep their XXH3 tokens.
  EXPECT_EQ(PartitionToken(kKeyFormatXxh3, AttributeValue::S("k")), Xxh3Token("k"));
}

TEST(KeyCodec, ItemKeyLayout) {
  AttributeValue pk = AttributeValue::S("user#1");
  AttributeValue sk = AttributeValue::S("a");
  std::string key = EncodeItemKey(3, kKeyFormatXxh3, pk, &sk);
  EXPECT_EQ(key.substr(0, 4), TablePrefix(3));
  EXPECT_EQ(key.size(), 4u + 8u + 2u + 6u + 1u);
  EXPECT_LT(TablePrefix(3), key);
  EXPECT_LT(key, TablePrefixEnd(3));
  // Items of one partition key are contiguous and ordered by sort key.
  AttributeValue sk2 = AttributeValue::S("ab");
  std::string key2 = EncodeItemKey(3, kKeyFormatXxh3, pk, &sk2);
  EXPECT_EQ(key.substr(0, 20), key2.substr(0, 20));
  EXPECT_LT(key, key2);
}

}  // namespace
}  // namespace ddb
