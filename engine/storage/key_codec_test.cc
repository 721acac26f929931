#include "engine/storage/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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
  EXPECT_EQ(EncodeItemKey(7, Num("1000"), nullptr), EncodeItemKey(7, Num("1E3"), nullptr));
}

TEST(KeyCodec, SortKeysRoundTrip) {
  for (const auto& v : {AttributeValue::S("abc"), AttributeValue::B(std::string("\0\xff", 2)),
                        Num("-12.5"), Num("0"), Num("123456789012345678901234567890")}) {
    AttributeValue back;
    ASSERT_TRUE(DecodeSortKey(SortKeyBytes(v), v.type(), &back));
    EXPECT_EQ(back, v);
  }
}

TEST(KeyCodec, ItemKeyLayout) {
  AttributeValue pk = AttributeValue::S("user#1");
  AttributeValue sk = AttributeValue::S("a");
  std::string key = EncodeItemKey(3, pk, &sk);
  EXPECT_EQ(key.substr(0, 4), TablePrefix(3));
  EXPECT_EQ(key.size(), 4u + 8u + 2u + 6u + 1u);
  EXPECT_LT(TablePrefix(3), key);
  EXPECT_LT(key, TablePrefixEnd(3));
  // Items of one partition key are contiguous and ordered by sort key.
  AttributeValue sk2 = AttributeValue::S("ab");
  std::string key2 = EncodeItemKey(3, pk, &sk2);
  EXPECT_EQ(key.substr(0, 20), key2.substr(0, 20));
  EXPECT_LT(key, key2);
}

}  // namespace
}  // namespace ddb
