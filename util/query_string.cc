#include "util/query_string.h"

#include "util/hex.h"

namespace ddb::util {

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = HexDigitValue(s[i + 1]);
      const int lo = HexDigitValue(s[i + 2]);
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
      params.push_back({PercentDecode(pair.substr(0, eq)),
                        eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1))});
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

}  // namespace ddb::util
