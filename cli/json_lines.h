// DynamoDB JSON lines, the export format of `ddb dump` and `ddb load`: one
// {"Item":{"pk":{"S":"a"},...}} a line. Thread safety: pure functions (a parser per thread).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "ddb/error.h"

namespace ddb::cli {

// The item of one line, minified ({"pk":{"S":"a"}}). Blank lines are not items (callers skip
// them). Errors: kSerialization (not JSON), kValidation (no "Item" object, or other members).
Result<std::string> ItemOfLine(simdjson::dom::parser& parser, std::string_view line);

// One line for an item (a DynamoDB JSON map): {"Item":{...}} and a newline.
std::string LineOfItem(simdjson::dom::element item);

// Whether a line holds only blanks.
bool IsBlankLine(std::string_view line);

}  // namespace ddb::cli
