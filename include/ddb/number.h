// DynamoDB numbers: decimal text with up to 38 significant digits and a magnitude between
// 1E-130 and 9.9999999999999999999999999999999999999E+125 (or zero). The engine keeps a
// number as its normalised text, so equal numbers have identical text and hash alike.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "ddb/error.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// Validates DynamoDB number syntax and range and returns the normalised text: no leading
// or trailing zeros, no "+", "-0" -> "0", "01.50" -> "1.5", "1e3" -> "1000".
// Errors (kValidation, DynamoDB's messages):
//   "The parameter cannot be converted to a numeric value: <text>"
//   "Attempting to store more than 38 significant digits in a Number"
//   "Number overflow. Attempting to store a number with magnitude larger than supported range"
//   "Number underflow. Attempting to store a number with magnitude smaller than supported range"
Result<std::string> NormalizeNumber(std::string_view text);

// Compares two normalised numbers by value: negative, zero or positive.
int CompareNumbers(std::string_view a, std::string_view b);

// Appends an order-preserving encoding of a normalised number: bytewise order of the
// encodings equals numeric order. DO NOT change: it is part of the on-disk key format.
void AppendNumberKey(std::string* dst, std::string_view normalised);
// Decodes what AppendNumberKey wrote at the front of *input, advances *input past it and
// sets *normalised. Returns false on malformed bytes.
bool ConsumeNumberKey(std::string_view* input, std::string* normalised);

// Exact arithmetic on normalised numbers (for ADD and SET a = a + :v).
// Errors: kValidation with the overflow/underflow/38-digit messages above.
Result<std::string> AddNumbers(std::string_view a, std::string_view b);
Result<std::string> SubtractNumbers(std::string_view a, std::string_view b);

}  // namespace ddb

#pragma GCC visibility pop
