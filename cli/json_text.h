// Small JSON helpers of the command line: quoting strings into request bodies, and the
// DynamoDB error envelope of a response. Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::cli {

// s as a JSON string literal, quotes included ("a\"b" -> "\"a\\\"b\"").
std::string Quote(std::string_view s);

// The error of a DynamoDB error body: "ResourceNotFoundException: Requested resource not
// found" (the __type after '#'; the message, or Message). A body that is not one gives
// "HTTP <status>: <body>".
std::string ErrorText(int status, std::string_view body);

// The short error type of an error body ("ProvisionedThroughputExceededException"), or "".
std::string ErrorType(std::string_view body);

}  // namespace ddb::cli
