// DynamoDB JSON lines, the DYNAMODB_JSON format of ImportTable and of exports: one item per
// line, `{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}`
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html).
// A small hand-written parser: the engine keeps no JSON library (simdjson is protocol/'s).
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "ddb/attribute_value.h"

namespace ddb {

// What parsing one record gave.
enum class ParseOutcome : uint8_t {
  kItem,        // *item holds the record's item
  kNothing,     // an empty or white-space line (or, in Ion, only a version marker)
  kIncomplete,  // the text ends inside a value: the record continues on the next line
  kError,       // *error says why
};

// Parses one line. Numbers are normalised and checked, B values base64-decoded, sets sorted
// (duplicates, empty sets and empty attribute names are errors).
ParseOutcome ParseDynamoDbJsonLine(std::string_view line, Item* item, std::string* error);

// Appends `{"Item":{...}}` (no newline), attributes in name order, sets in stored order.
void AppendDynamoDbJsonItem(std::string* out, const Item& item);
// Appends one attribute map in DynamoDB JSON: {"a":{"S":"x"},...}.
void AppendDynamoDbJsonMap(std::string* out, const Item& item);

}  // namespace ddb
