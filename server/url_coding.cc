#include "server/url_coding.h"

#include "util/ascii.h"
#include "util/hex.h"

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

// Percent-decoding; a '%' not followed by two hex digits stays as it is.
std::string Decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = util::HexDigitValue(s[i + 1]);
      const int lo = util::HexDigitValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::vector<QueryParam> ParseQuery(std::string_view query) {
  std::vector<QueryParam> params;
  size_t start = 0;
  while (start <= query.size() && !query.empty()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view pair = query.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      params.push_back({Decode(pair.substr(0, eq)),
                        eq == std::string_view::npos ? "" : Decode(pair.substr(eq + 1))});
    }
    start = end + 1;
  }
  return params;
}

const QueryParam* FindParam(const std::vector<QueryParam>& params, std::string_view name) {
  for (const QueryParam& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<std::string_view> FindHeader(std::span<const HeaderField> headers,
                                           std::string_view name) {
  for (const HeaderField& h : headers) {
    if (util::EqualsIgnoreCase(h.name, name)) return h.value;
  }
  return std::nullopt;
}

}  // namespace ddb::server
