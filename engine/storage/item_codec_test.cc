#include <gtest/gtest.h>

#include "ddb/stored_item.h"
#include "engine/random_items_testing.h"

namespace ddb {
namespace {

Item EveryType() {
  AttributeMap nested{{"x", AttributeValue::N("1")},
                      {"deep", AttributeValue::L({AttributeValue::Null(), AttributeValue::M({})})}};
  return Item{
      {"s", AttributeValue::S("h\xc3\xa9llo")},
      {"empty", AttributeValue::S("")},
      {"n", AttributeValue::N("-12.5")},
      {"b", AttributeValue::B(std::string("\0\x01\xff", 3))},
      {"t", AttributeValue::Bool(true)},
      {"f", AttributeValue::Bool(false)},
      {"null", AttributeValue::Null()},
      {"ss", AttributeValue::SS({"a", "b"})},
      {"ns", AttributeValue::NS({"-1", "2.5"})},
      {"bs", AttributeValue::BS({std::string("\0", 1), "z"})},
      {"l", AttributeValue::L({AttributeValue::S("a"), AttributeValue::N("1")})},
      {"m", AttributeValue::M(nested)},
  };
}

TEST(ItemCodec, RoundTripsEveryType) {
  Item item = EveryType();
  std::string encoded;
  EncodeItem(item, &encoded);
  Item back;
  ASSERT_TRUE(DecodeItem(encoded, &back));
  EXPECT_EQ(back, item);
}

TEST(ItemCodec, RejectsTruncatedAndUnknownVersions) {
  std::string encoded;
  EncodeItem(EveryType(), &encoded);
  Item back;
  for (size_t n = 0; n < encoded.size(); ++n) {
    EXPECT_FALSE(DecodeItem(std::string_view(encoded).substr(0, n), &back)) << n;
  }
  encoded[0] = 9;
  EXPECT_FALSE(DecodeItem(encoded, &back));
}

TEST(ItemCodec, RoundTripsRandomItems) {
  testing::RandomItems random(3);
  for (int i = 0; i < 3000; ++i) {
    Item item = random.Next();
    std::string encoded;
    EncodeItem(item, &encoded);
    Item back;
    ASSERT_TRUE(DecodeItem(encoded, &back)) << i;
    ASSERT_EQ(back, item) << i;
    // Every strict prefix is refused.
    if (i % 50 == 0) {
      for (size_t n = 0; n < encoded.size(); ++n) {
        EXPECT_FALSE(DecodeItem(std::string_view(encoded).substr(0, n), &back)) << i << " " << n;
      }
    }
  }
}

TEST(ItemCodec, EncodedItemSizeMatchesItemSize) {
  testing::RandomItems random(7);
  for (int i = 0; i < 3000; ++i) {
    Item item = random.Next();
    std::string encoded;
    EncodeItem(item, &encoded);
    std::optional<size_t> size = EncodedItemSize(encoded);
    ASSERT_TRUE(size.has_value()) << i;
    EXPECT_EQ(*size, ItemSize(item)) << i;
  }
  std::string encoded;
  EncodeItem(EveryType(), &encoded);
  EXPECT_EQ(EncodedItemSize(encoded), ItemSize(EveryType()));
  for (size_t n = 0; n < encoded.size(); ++n) {
    EXPECT_FALSE(EncodedItemSize(std::string_view(encoded).substr(0, n)).has_value()) << n;
  }
}

}  // namespace
}  // namespace ddb
