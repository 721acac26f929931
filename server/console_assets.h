// The web console's static files (console/), compiled into the binary by
// cmake/embed_assets.cmake: each one's path, Content-Type, ETag and bytes.
// Thread safety: immutable data.
#pragma once

#include <span>
#include <string_view>

namespace ddb::server {

struct ConsoleAsset {
  std::string_view path;          // relative to console/, e.g. "index.html"
  std::string_view content_type;  // e.g. "text/html; charset=utf-8"
  std::string_view etag;          // a quoted strong ETag: the first 16 hex digits of the SHA-1
  std::string_view data;
};

// Every embedded file (the generated console_assets_data.cc).
std::span<const ConsoleAsset> ConsoleAssets();

// The file at `path` (relative to console/), or nullptr.
const ConsoleAsset* FindConsoleAsset(std::string_view path);

}  // namespace ddb::server
