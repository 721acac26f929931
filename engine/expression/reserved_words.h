// DynamoDB's reserved words: names that may not appear unquoted in an expression (they
// must be written as #placeholders instead).
// Thread safety: pure function over constant data.
#pragma once

#include <string_view>

namespace ddb {

// Whether "word" (compared case-insensitively) is one of DynamoDB's 573 reserved words.
bool IsReservedWord(std::string_view word);

}  // namespace ddb
