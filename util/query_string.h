// Percent-decoding and query strings, as the server's SigV4 verifier, its S3 API and the
// Lambda API's routes read them.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ddb::util {

// Percent-decoding; a '%' not followed by two hex digits stays as it is, '+' too (SigV4
// clients encode a space as %20).
std::string PercentDecode(std::string_view s);

struct QueryParam {
  std::string name;   // decoded
  std::string value;  // decoded; "" for a name without '='
};

// The parameters of a query string (without its '?'), in order.
std::vector<QueryParam> ParseQuery(std::string_view query);

// The first parameter of that name, or nullptr.
const QueryParam* FindParam(const std::vector<QueryParam>& params, std::string_view name);

}  // namespace ddb::util
