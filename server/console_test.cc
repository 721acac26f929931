// The console's routes through Route (server/console.h), on an in-memory engine: the embedded
// files, their headers and 304s, the JSON endpoints, and console off.
#include "server/console.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ddb/engine.h"
#include "server/console_assets.h"
#include "server/namespaces.h"

namespace ddb::server {
namespace {

class ConsoleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.in_memory = true;
    Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(engine.value());
    namespaces_ = std::make_unique<Namespaces>(*engine_);
  }

  HttpResponse Get(std::string_view target, bool console = true,
                   std::span<const HeaderField> headers = {}) {
    HttpRequest request;
    request.method = "GET";
    request.target = target;
    request.host = "127.0.0.1:8000";
    request.headers = headers;
    return Route(*namespaces_, &request, nullptr, "*", console);
  }

  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Namespaces> namespaces_;
};

TEST_F(ConsoleTest, EveryFileIsEmbeddedWithItsType) {
  for (std::string_view file : {"index.html", "app.js", "style.css", "partitions.js"}) {
    const ConsoleAsset* asset = FindConsoleAsset(file);
    ASSERT_NE(asset, nullptr) << file;
    EXPECT_FALSE(asset->data.empty());
    EXPECT_EQ(asset->etag.front(), '"');
  }
  EXPECT_EQ(FindConsoleAsset("index.html")->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(FindConsoleAsset("app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(FindConsoleAsset("nope.js"), nullptr);
}

TEST_F(ConsoleTest, IndexWithSecurityHeadersAndRevalidation) {
  HttpResponse redirect = Get("/console");
  EXPECT_EQ(redirect.status, 308);
  EXPECT_NE(redirect.extra_headers.find("Location: /console/\r\n"), std::string::npos);

  HttpResponse index = Get("/console/?table=t");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(index.body, FindConsoleAsset("index.html")->data);
  EXPECT_NE(index.extra_headers.find("Content-Security-Policy: default-src 'none'"),
            std::string::npos);
  EXPECT_NE(index.extra_headers.find("Cache-Control: no-cache\r\n"), std::string::npos);

  const std::string etag(FindConsoleAsset("index.html")->etag);
  const HeaderField if_none_match[] = {{"If-None-Match", etag}};
  HttpResponse again = Get("/console/", true, if_none_match);
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());

  EXPECT_EQ(Get("/console/missing.css").status, 404);
  EXPECT_EQ(Get("/consoleX").status, 404);  // not a console path
}

TEST_F(ConsoleTest, JsonEndpoints) {
  HttpResponse tables = Get("/console/api/tables");
  EXPECT_EQ(tables.status, 200);
  EXPECT_EQ(tables.content_type, "application/json");
  EXPECT_NE(tables.body.find("\"tables\":[]"), std::string::npos) << tables.body;
  EXPECT_EQ(Get("/console/api/partitions").status, 400);
  EXPECT_EQ(Get("/console/api/partitions?table=nope").status, 404);
  EXPECT_EQ(Get("/console/api/other").status, 404);
}

TEST_F(ConsoleTest, OffMeansNotFound) {
  EXPECT_EQ(Get("/console/", false).status, 404);
  EXPECT_EQ(Get("/console/api/tables", false).status, 404);
}

}  // namespace
}  // namespace ddb::server
