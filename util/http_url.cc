#include "util/http_url.h"

namespace ddb::util {

std::optional<HttpUrl> ParseHttpUrl(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.compare(0, kScheme.size(), kScheme) != 0) return std::nullopt;
  std::string rest = url.substr(kScheme.size());
  HttpUrl u;
  u.path = "/";
  if (const size_t slash = rest.find('/'); slash != std::string::npos) {
    u.path = rest.substr(slash);
    rest.resize(slash);
  }
  u.host_header = rest;
  if (!rest.empty() && rest[0] == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) return std::nullopt;
    u.host = rest.substr(1, close - 1);
    u.port = close + 1 < rest.size() && rest[close + 1] == ':' ? rest.substr(close + 2) : "80";
  } else {
    const size_t colon = rest.find(':');
    u.host = rest.substr(0, colon);
    u.port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
  }
  if (u.host.empty() || u.port.empty()) return std::nullopt;
  return u;
}

}  // namespace ddb::util
