#include "server/admin.h"

#include <string>

#include "util/json_escape.h"

namespace ddb::server {
namespace {

HttpResponse Answer(int status, std::string body, bool json = false) {
  HttpResponse response;
  response.status = status;
  response.content_type = json ? "application/json" : "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

// A Region's name as it may appear in a path: what signing requests use ("eu-west-1").
bool PlausibleRegion(std::string_view region) {
  if (region.empty() || region.size() > 64) return false;
  for (char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

}  // namespace

HttpResponse ServeAdmin(replication::Replicator* replicator, const HttpRequest& request,
                        std::string_view path) {
  if (!request.from_loopback) {
    return Answer(403, "Forbidden: the admin endpoint answers only on this machine\n");
  }
  if (!replicator) {
    return Answer(400,
                  "Regions are one namespace on this server: start it with --isolation account "
                  "or access-key for Regions of their own\n");
  }
  constexpr std::string_view kRegions = "/admin/regions";
  if (path == kRegions) {
    if (request.method != "GET") {
      HttpResponse r = Answer(405, "Method Not Allowed\n");
      r.allow = "GET";
      return r;
    }
    std::string body = "{\"OfflineRegions\":[";
    bool first = true;
    for (const std::string& region : replicator->OfflineRegions()) {
      body += (first ? "" : ",") + util::JsonString(region);
      first = false;
    }
    return Answer(200, body + "]}\n", true);
  }
  if (!path.starts_with(std::string(kRegions) + "/")) return Answer(404, "Not Found\n");
  std::string_view rest = path.substr(kRegions.size() + 1);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return Answer(404, "Not Found\n");
  const std::string_view region = rest.substr(0, slash);
  const std::string_view action = rest.substr(slash + 1);
  if (action != "offline" && action != "online") return Answer(404, "Not Found\n");
  if (request.method != "POST") {
    HttpResponse r = Answer(405, "Method Not Allowed\n");
    r.allow = "POST";
    return r;
  }
  if (!PlausibleRegion(region)) return Answer(400, "Not a Region name\n");
  const bool offline = action == "offline";
  // A bound on what a caller can make the server keep (there are not this many Regions).
  constexpr size_t kMaxOfflineRegions = 256;
  if (offline && replicator->OfflineRegions().size() >= kMaxOfflineRegions &&
      !replicator->RegionOffline(region)) {
    return Answer(400, "Too many Regions offline (at most 256)\n");
  }
  replicator->SetRegionOffline(std::string(region), offline);
  return Answer(200,
                "{\"RegionName\":" + util::JsonString(region) + ",\"Status\":\"" +
                    (offline ? "OFFLINE" : "ONLINE") + "\"}\n",
                true);
}

}  // namespace ddb::server
