#include "engine/item_codec.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ddb
