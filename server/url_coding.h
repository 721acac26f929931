// URL and header helpers shared by the SigV4 verifier and the S3 API: RFC 3986
// percent-encoding and decoding, query strings, case-insensitive header lookup.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/query_string.h"

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

// Percent-decoding and query strings (util/query_string.h).
inline std::string Decode(std::string_view s) { return util::PercentDecode(s); }
using util::FindParam;
using util::ParseQuery;
using util::QueryParam;

}  // namespace ddb::server
