// HttpServer with a RequestHandler (no engine) and engine slots: what runs where, exceptions,
// waiting for a slot, and shutdown with requests waiting. Raw HTTP over POSIX sockets to
// 127.0.0.1, so that this test needs no HTTP client library.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/log.h"

namespace ddb::server {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Sends one request on a fresh connection and returns the whole response (the server closes
// the connection: Connection: close), or "" on a connection error.
std::string Exchange(uint16_t port, const std::string& method) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = method +
                                " / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                                "Content-Length: 2\r\n\r\n{}";
    if (::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) response.append(buffer, n);
    }
  }
  ::close(fd);
  return response;
}

std::string StatusLine(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

// A server on an ephemeral port, serving on its own thread until the fixture ends.
class TestServer {
 public:
  TestServer(RequestHandler handler, int threads, int engine_threads) {
    SetLogLevel(LogLevel::kError);
    ServerOptions options;
    options.port = 0;
    options.threads = threads;
    options.engine_threads = engine_threads;
    server_ = std::make_unique<HttpServer>(std::move(handler), options);
    started_ = server_->Start().ok();
    if (started_) runner_ = std::thread([this] { server_->Run(); });
  }
  ~TestServer() { Stop(); }
  bool started() const { return started_; }
  uint16_t port() const { return server_->port(); }
  void Stop() {
    server_->Stop();
    if (runner_.joinable()) runner_.join();
  }

 private:
  std::unique_ptr<HttpServer> server_;
  bool started_ = false;
  std::thread runner_;
};

HttpResponse Ok(std::string body) {
  HttpResponse response;
  response.content_type = "text/plain";
  response.body = std::move(body);
  return response;
}

class HttpServerEngineThreads : public testing::TestWithParam<int> {};

// The same InternalServerError whether the handler runs inline (0) or with engine slots.
TEST_P(HttpServerEngineThreads, HandlerExceptionBecomesInternalServerError) {
  TestServer server(
      [](HttpRequest* request) -> HttpResponse {
        if (request->method == "POST") throw std::runtime_error("boom");
        return Ok("fine");
      },
      1, GetParam());
  ASSERT_TRUE(server.started());
  const std::string response = Exchange(server.port(), "POST");
  EXPECT_EQ(StatusLine(response), "HTTP/1.1 500 Internal Server Error");
  EXPECT_NE(response.find("application/x-amz-json-1.0"), std::string::npos);
  EXPECT_NE(response.find("InternalServerError"), std::string::npos) << response;
  EXPECT_NE(response.find("x-amz-crc32: "), std::string::npos);
  EXPECT_EQ(StatusLine(Exchange(server.port(), "GET")), "HTTP/1.1 200 OK");
}

INSTANTIATE_TEST_SUITE_P(InlineAndSlots, HttpServerEngineThreads, testing::Values(0, 2));

// One I/O thread, two POSTs that block it for 2 s each: a spare serves GET meanwhile.
TEST(HttpServer, BlockedEngineCallsDoNotHoldUpOtherRequests) {
  std::atomic<int> in_post{0};
  TestServer server(
      [&](HttpRequest* request) {
        if (request->method == "POST") {
          ++in_post;
          std::this_thread::sleep_for(milliseconds(2000));
        }
        return Ok("done");
      },
      /*threads=*/1, /*engine_threads=*/2);
  ASSERT_TRUE(server.started());
  std::vector<std::thread> posts;
  std::vector<std::string> post_responses(2);
  for (int i = 0; i < 2; ++i) {
    posts.emplace_back([&, i] { post_responses[i] = Exchange(server.port(), "POST"); });
  }
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (in_post.load() < 2 && Clock::now() < until) std::this_thread::sleep_for(milliseconds(1));
  ASSERT_EQ(in_post.load(), 2);
  const auto start = Clock::now();
  EXPECT_EQ(StatusLine(Exchange(server.port(), "GET")), "HTTP/1.1 200 OK");
  // Inline it would wait for a POST to end (~2 s); the spare answers in milliseconds. 1.5 s
  // leaves room for a loaded machine.
  EXPECT_LT(Clock::now() - start, milliseconds(1500));
  for (std::thread& t : posts) t.join();
  for (const std::string& r : post_responses) EXPECT_EQ(StatusLine(r), "HTTP/1.1 200 OK");
}

// One engine slot: POSTs run one at a time, the others wait their turn; none is dropped.
TEST(HttpServer, RequestsBeyondTheSlotsWaitTheirTurn) {
  std::atomic<int> running{0}, max_running{0};
  TestServer server(
      [&](HttpRequest* request) {
        if (request->method == "POST") {
          const int now = ++running;
          int seen = max_running.load();
          while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
          }
          std::this_thread::sleep_for(milliseconds(50));
          --running;
        }
        return Ok("done");
      },
      /*threads=*/2, /*engine_threads=*/1);
  ASSERT_TRUE(server.started());
  std::vector<std::thread> clients;
  std::vector<std::string> responses(6);
  for (int i = 0; i < 6; ++i) {
    clients.emplace_back([&, i] { responses[i] = Exchange(server.port(), "POST"); });
  }
  for (std::thread& t : clients) t.join();
  for (const std::string& r : responses) EXPECT_EQ(StatusLine(r), "HTTP/1.1 200 OK");
  EXPECT_EQ(max_running.load(), 1);
}

// Stop() while one request runs and others wait for the slot: all are answered, then Run()
// returns with no handler running.
TEST(HttpServer, StopAnswersRequestsWaitingForASlot) {
  std::atomic<int> started{0}, finished{0};
  auto server = std::make_unique<TestServer>(
      [&](HttpRequest* request) {
        if (request->method == "POST") {
          ++started;
          std::this_thread::sleep_for(milliseconds(200));
          ++finished;
        }
        return Ok("done");
      },
      /*threads=*/1, /*engine_threads=*/1);
  ASSERT_TRUE(server->started());
  std::vector<std::thread> clients;
  std::vector<std::string> responses(4);
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&, i] { responses[i] = Exchange(server->port(), "POST"); });
  }
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (started.load() < 1 && Clock::now() < until) std::this_thread::sleep_for(milliseconds(1));
  std::this_thread::sleep_for(milliseconds(150));  // the others reach the server and park
  server->Stop();
  EXPECT_EQ(started.load(), finished.load());  // nothing runs after Run() returned
  for (std::thread& t : clients) t.join();
  int answered = 0;
  for (const std::string& r : responses) answered += StatusLine(r) == "HTTP/1.1 200 OK";
  EXPECT_EQ(answered, finished.load());
  EXPECT_EQ(answered, 4);
}

}  // namespace
}  // namespace ddb::server
