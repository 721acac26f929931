// The admin endpoint, /admin/, which answers only a peer on this machine (loopback), whatever
// address the server listens on: the outages of global tables' Regions (docs/global-tables.md).
//   GET  /admin/regions                   -> 200 {"OfflineRegions": ["eu-west-1", ...]}
//   POST /admin/regions/<region>/offline  -> 200 {"RegionName": "...", "Status": "OFFLINE"}
//   POST /admin/regions/<region>/online   -> 200 {"RegionName": "...", "Status": "ONLINE"}
// 403 from another machine; 400 without Regions of their own (--isolation shared: no
// replicator); 404 for other paths, 405 for other methods. `ddb region` calls it.
// Thread safety: as the replicator.
#pragma once

#include <string_view>

#include "replication/replicator.h"
#include "server/http_server.h"

namespace ddb::server {

HttpResponse ServeAdmin(replication::Replicator* replicator, const HttpRequest& request,
                        std::string_view path);

}  // namespace ddb::server
