// URL and header helpers shared by the SigV4 verifier and the S3 API: RFC 3986
// percent-encoding and decoding, query strings, case-insensitive header lookup.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ddb::server {

struct HeaderField {
  std::string_view name;  // as sent; compared case-insensitively
  std::string_view value;
};

// The first header of that name (case-insensitively), or nullopt.
std::optional<std::string_view> FindHeader(std::span<const HeaderField> headers,
                                           std::string_view name);

// Appends `s` percent-encoded: everything but the unreserved set (and '/' with keep_slash).
void AppendEncoded(std::string_view s, bool keep_slash, std::string* out);

// Percent-decoding; a '%' not followed by two hex digits stays as it is, '+' too.
std::string Decode(std::string_view s);

struct QueryParam {
  std::string name;   // decoded
  std::string value;  // decoded; "" for a name without '='
};

// The parameters of a query string (without its '?'), in order.
std::vector<QueryParam> ParseQuery(std::string_view query);

// The first parameter of that name, or nullptr.
const QueryParam* FindParam(const std::vector<QueryParam>& params, std::string_view name);

}  // namespace ddb::server
