// "http://host[:port][/path]" URLs, as the command line's --endpoint and the server's Lambda
// endpoints give them, split for a client to connect and send. https is not spoken.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

namespace ddb::util {

struct HttpUrl {
  std::string host;         // without an IPv6 address's brackets
  std::string port;         // "80" when absent
  std::string host_header;  // as written: "127.0.0.1:3001", "[::1]:8080"
  std::string path;         // "/..." ("/" when absent), with its query
};

// nullopt: not http://, or no host or port.
std::optional<HttpUrl> ParseHttpUrl(const std::string& url);

}  // namespace ddb::util
