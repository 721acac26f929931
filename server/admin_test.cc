// The admin endpoint: only a peer on this machine, only what it knows, and the outage it
// causes reaching the replicator.
#include "server/admin.h"

#include <gtest/gtest.h>

namespace ddb::server {
namespace {

replication::Replicator MakeReplicator() {
  return replication::Replicator(
      [](std::string_view, std::string_view) -> Result<Engine*> {
        return Error::Validation("no engines here");
      },
      [](const RequestContext& ctx) { return ctx.account_id; }, {});
}

HttpRequest Request(std::string_view method, std::string_view target, bool loopback) {
  HttpRequest r;
  r.method = method;
  r.target = target;
  r.from_loopback = loopback;
  return r;
}

TEST(AdminTest, AnswersOnlyThisMachine) {
  replication::Replicator replicator = MakeReplicator();
  HttpResponse r =
      ServeAdmin(&replicator, Request("POST", "/admin/regions/eu-west-1/offline", false),
                 "/admin/regions/eu-west-1/offline");
  EXPECT_EQ(r.status, 403);
  EXPECT_FALSE(replicator.RegionOffline("eu-west-1"));
}

TEST(AdminTest, TakesARegionOfflineAndBack) {
  replication::Replicator replicator = MakeReplicator();
  const std::string offline = "/admin/regions/eu-west-1/offline";
  HttpResponse r = ServeAdmin(&replicator, Request("POST", offline, true), offline);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{\"RegionName\":\"eu-west-1\",\"Status\":\"OFFLINE\"}\n");
  EXPECT_TRUE(replicator.RegionOffline("eu-west-1"));
  EXPECT_FALSE(replicator.RegionOffline("us-east-1"));
  r = ServeAdmin(&replicator, Request("GET", "/admin/regions", true), "/admin/regions");
  EXPECT_EQ(r.body, "{\"OfflineRegions\":[\"eu-west-1\"]}\n");
  const std::string online = "/admin/regions/eu-west-1/online";
  EXPECT_EQ(ServeAdmin(&replicator, Request("POST", online, true), online).status, 200);
  EXPECT_FALSE(replicator.RegionOffline("eu-west-1"));
}

TEST(AdminTest, RefusesWhatItDoesNotKnow) {
  replication::Replicator replicator = MakeReplicator();
  auto status = [&](std::string_view method, std::string_view path) {
    return ServeAdmin(&replicator, Request(method, path, true), path).status;
  };
  EXPECT_EQ(status("GET", "/admin/regions/eu-west-1/offline"), 405);
  EXPECT_EQ(status("POST", "/admin/regions/eu-west-1/sideways"), 404);
  EXPECT_EQ(status("POST", "/admin/regions/EU_WEST/offline"), 400);
  EXPECT_EQ(status("GET", "/admin/other"), 404);
  EXPECT_EQ(ServeAdmin(nullptr, Request("GET", "/admin/regions", true), "/admin/regions").status,
            400);
}

}  // namespace
}  // namespace ddb::server
