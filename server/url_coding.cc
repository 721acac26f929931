#include "server/url_coding.h"

#include "util/ascii.h"
#include "util/hex.h"
#include "util/query_string.h"

namespace ddb::server {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

}  // namespace

void AppendEncoded(std::string_view s, bool keep_slash, std::string* out) {
  for (unsigned char c : s) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out->push_back(static_cast<char>(c));
    } else {
      out->push_back('%');
      out->push_back(util::kUpperHexDigits[c >> 4]);
      out->push_back(util::kUpperHexDigits[c & 15]);
    }
  }
}

std::optional<std::string_view> FindHeader(std::span<const HeaderField> headers,
                                           std::string_view name) {
  for (const HeaderField& h : headers) {
    if (util::EqualsIgnoreCase(h.name, name)) return h.value;
  }
  return std::nullopt;
}

}  // namespace ddb::server
