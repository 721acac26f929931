// Base64 (RFC 4648, standard alphabet, padded) for B and BS values on the wire.
// Hand-written rather than taken from OpenSSL: the protocol layer links only simdjson, and
// DynamoDB's strictness rules (length a multiple of 4, padding only at the end) are
// easier to state here than to recover from EVP_DecodeBlock's lenient output.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace ddb::protocol {

void Base64Encode(std::string_view bytes, std::string* out);
// Returns false when "text" is not valid padded base64.
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace ddb::protocol
