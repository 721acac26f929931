#include "protocol/attribute_value_json.h"

#include <gtest/gtest.h>

#include "ddb/stored_item.h"
#include "engine/random_items_testing.h"

namespace ddb::protocol {
namespace {

std::string Decoded(const Item& item) {
  JsonWriter w;
  w.BeginArray();
  WriteAttributeMap(w, item);
  w.EndArray();
  return w.Take();
}

std::string FromStoredForm(const Item& item) {
  std::string encoded;
  EncodeItem(item, &encoded);
  JsonWriter w;
  w.BeginArray();
  EXPECT_TRUE(WriteEncodedItem(w, encoded));
  w.EndArray();
  return w.Take();
}

TEST(AttributeValueJson, StoredFormWritesTheSameBytesAsTheDecodedItem) {
  testing::RandomItems random(11);
  for (int i = 0; i < 3000; ++i) {
    Item item = random.Next();
    ASSERT_EQ(FromStoredForm(item), Decoded(item)) << i;
  }
  Item nested{{"m", AttributeValue::M({{"l", AttributeValue::L({AttributeValue::M({})})}})},
              {"s", AttributeValue::S("x")}};
  EXPECT_EQ(FromStoredForm(nested), R"([{"m":{"M":{"l":{"L":[{"M":{}}]}}},"s":{"S":"x"}}])");
}

TEST(AttributeValueJson, StoredFormRejectsBadBytes) {
  JsonWriter w;
  EXPECT_FALSE(WriteEncodedItem(w, ""));
  EXPECT_FALSE(WriteEncodedItem(w, std::string("\x01\x01", 2)));
}

}  // namespace
}  // namespace ddb::protocol
