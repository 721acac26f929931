// AttributeValue <-> DynamoDB JSON ({"S": ...}, {"N": "1.5"}, {"B": base64}, {"M": {...}},
// ...). Parsing validates as the service does: exactly one type, numbers by
// NormalizeNumber, non-empty sets without duplicates, nesting at most 32 levels.
// Internal to protocol/. Thread safety: pure functions.
#pragma once

#include "ddb/attribute_value.h"
#include "ddb/error.h"
#include "protocol/json_reader.h"
#include "protocol/json_writer.h"

namespace ddb::protocol {

// Errors: kValidation (service messages), kSerialization (wrong JSON types, bad base64).
Result<AttributeValue> ParseAttributeValue(const JsonElement& json, int depth = 1);
// A map of attribute name -> AttributeValue (Item, Key, ExpressionAttributeValues).
Result<Item> ParseAttributeMap(const JsonElement& json, int depth = 0);

// Attribute names (top-level, nested map keys, names in expressions and legacy parameters)
// are 1 to 65535 bytes. Errors: kValidation with the service's message.
inline constexpr size_t kMaxAttributeNameSize = 65535;
Status CheckAttributeNameSize(std::string_view name);

void WriteAttributeValue(JsonWriter& w, const AttributeValue& v);
void WriteAttributeMap(JsonWriter& w, const AttributeMap& m);
// Writes an item in the engine's stored form (ReadResult::encoded_items) exactly as
// WriteAttributeMap writes it decoded. Returns false on malformed bytes.
bool WriteEncodedItem(JsonWriter& w, std::string_view encoded);
// About how many bytes WriteAttributeMap writes for m (for reserving the output).
size_t JsonSizeHint(const AttributeMap& m);

}  // namespace ddb::protocol
