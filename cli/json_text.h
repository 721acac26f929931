// The DynamoDB error envelope of a response, read by the command line (strings are quoted
// into request bodies by util/json_escape.h). Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::cli {

// The error of a DynamoDB error body: "ResourceNotFoundException: Requested resource not
// found" (the __type after '#'; the message, or Message). A body that is not one gives
// "HTTP <status>: <body>".
std::string ErrorText(int status, std::string_view body);

// The short error type of an error body ("ProvisionedThroughputExceededException"), or "".
std::string ErrorType(std::string_view body);

}  // namespace ddb::cli
