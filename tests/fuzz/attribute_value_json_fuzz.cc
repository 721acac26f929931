// protocol's AttributeValue JSON reader on any JSON text. Where the text reads as a value,
// writing it and reading it back gives the same value; where it reads as an item (an
// attribute map), its stored form decodes to it, and the JSON written from the stored form
// (WriteEncodedItem, the Query/Scan fast path) is the JSON written from the item.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "ddb/stored_item.h"
#include "protocol/attribute_value_json.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ddb::AttributeValue;
using ddb::Item;
using ddb::Result;
namespace protocol = ddb::protocol;

simdjson::dom::parser& Parser() {
  static simdjson::dom::parser parser;
  return parser;
}

void CheckValueRoundTrip(const AttributeValue& value) {
  protocol::JsonWriter w;
  protocol::WriteAttributeValue(w, value);
  std::string text = w.Take();
  simdjson::dom::element again;
  DDB_FUZZ_CHECK(Parser().parse(text).get(again) == simdjson::SUCCESS);
  Result<AttributeValue> reread = protocol::ParseAttributeValue(again);
  DDB_FUZZ_CHECK(reread.ok());
  DDB_FUZZ_CHECK(*reread == value);
}

void CheckItemForms(const Item& item) {
  std::string encoded;
  ddb::EncodeItem(item, &encoded);
  Item decoded;
  DDB_FUZZ_CHECK(ddb::DecodeItem(encoded, &decoded));
  DDB_FUZZ_CHECK(decoded == item);
  DDB_FUZZ_CHECK(ddb::EncodedItemSize(encoded) == ddb::ItemSize(item));
  protocol::JsonWriter from_item, from_encoded;
  protocol::WriteAttributeMap(from_item, item);
  DDB_FUZZ_CHECK(protocol::WriteEncodedItem(from_encoded, encoded));
  DDB_FUZZ_CHECK(from_item.Take() == from_encoded.Take());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  simdjson::dom::element json;
  if (Parser().parse(reinterpret_cast<const char*>(data), size).get(json) != simdjson::SUCCESS) {
    return 0;
  }
  if (Result<AttributeValue> value = protocol::ParseAttributeValue(json); value.ok()) {
    CheckValueRoundTrip(*value);
  }
  // Parse again: the value's check above reused the parser, which owns `json`.
  if (Parser().parse(reinterpret_cast<const char*>(data), size).get(json) != simdjson::SUCCESS) {
    return 0;
  }
  if (Result<Item> item = protocol::ParseAttributeMap(json); item.ok()) CheckItemForms(*item);
  return 0;
}
