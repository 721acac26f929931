#include "server/console.h"

#include <string>

#include "protocol/handler.h"
#include "server/console_assets.h"
#include "server/namespaces.h"
#include "server/url_coding.h"
#include "util/ascii.h"

namespace ddb::server {
namespace {

constexpr std::string_view kPrefix = "/console";
constexpr std::string_view kApiPrefix = "/console/api/";

// Nothing from another origin: scripts, styles, images and fetches from this server only,
// no inline script, no framing by other pages.
constexpr std::string_view kSecurityHeaders =
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n";

HttpResponse Text(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

// Whether If-None-Match lists `etag` (or is "*").
bool NotModified(const HttpRequest& request, std::string_view etag) {
  for (const HeaderField& f : request.headers) {
    if (!util::EqualsIgnoreCase(f.name, "if-none-match")) continue;
    if (f.value == "*" || f.value.find(etag) != std::string_view::npos) return true;
  }
  return false;
}

HttpResponse ServeAsset(const HttpRequest& request, std::string_view file) {
  const ConsoleAsset* asset = FindConsoleAsset(file);
  if (!asset) return Text(404, "Not Found\n");
  HttpResponse response;
  response.content_type = asset->content_type;
  response.extra_headers = kSecurityHeaders;
  // Revalidated on every load (cheap: a 304 on loopback), so a new binary's console is
  // picked up at once.
  response.extra_headers += "Cache-Control: no-cache\r\nETag: ";
  response.extra_headers += asset->etag;
  response.extra_headers += "\r\n";
  if (NotModified(request, asset->etag)) {
    response.status = 304;
    return response;
  }
  response.body = std::string(asset->data);
  return response;
}

}  // namespace

const ConsoleAsset* FindConsoleAsset(std::string_view path) {
  for (const ConsoleAsset& asset : ConsoleAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

bool IsConsolePath(std::string_view path) {
  return path == kPrefix || (path.starts_with(kPrefix) && path[kPrefix.size()] == '/');
}

HttpResponse ServeConsole(Namespaces& namespaces, const HttpRequest& request, std::string_view path,
                          std::string_view query) {
  if (request.method != "GET") {
    HttpResponse response = Text(405, "Method Not Allowed\n");
    response.allow = "GET";
    return response;
  }
  if (path == kPrefix) {
    HttpResponse response = Text(308, "");
    response.extra_headers = "Location: /console/\r\n";
    return response;
  }
  if (path.starts_with(kApiPrefix)) {
    // The event source mappings are the server's (triggers/), not an engine's.
    protocol::WireResponse wire =
        path.substr(kApiPrefix.size()) == "triggers"
            ? protocol::WireResponse{200, namespaces.triggers()
                                              ? namespaces.triggers()->RenderConsoleJson()
                                              : R"({"mappings":[]})"}
            : protocol::RenderConsoleApi(namespaces.Sources(), path.substr(kApiPrefix.size()),
                                         query);
    HttpResponse response;
    response.status = wire.status;
    response.content_type = "application/json";
    response.extra_headers = "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
    response.body = std::move(wire.body);
    return response;
  }
  std::string_view file = path.substr(kPrefix.size() + 1);
  if (file.empty()) file = "index.html";
  return ServeAsset(request, file);
}

}  // namespace ddb::server
