// The web console at /console (docs/CONSOLE.md): its embedded files, and its JSON endpoints
// under /console/api/ (rendered by protocol/console_api.cc from Engine::GetMetrics and the
// table descriptions, the same figures as /metrics). The page itself calls the DynamoDB API
// (POST /) for the item browser and the stream tail.
// Thread safety: ServeConsole may be called concurrently.
#pragma once

#include <string_view>

#include "server/http_server.h"

namespace ddb::server {

class Namespaces;

// Whether `path` (the request target without its query) belongs to the console.
bool IsConsolePath(std::string_view path);

// Answers a console request. REQUIRES: IsConsolePath(path).
//   GET /console                 -> 308 to /console/
//   GET /console/                -> index.html
//   GET /console/<file>          -> the embedded file, with ETag (304 on If-None-Match),
//                                   Cache-Control: no-cache and the console's
//                                   Content-Security-Policy (nothing from other origins)
//   GET /console/api/<resource>  -> JSON (protocol::RenderConsoleApi), Cache-Control: no-store
//   other methods (HEAD too) -> 405 with Allow: GET; unknown files -> 404.
HttpResponse ServeConsole(Namespaces& namespaces, const HttpRequest& request, std::string_view path,
                          std::string_view query);

}  // namespace ddb::server
