// floor_server: the "floor" of the benchmarks: what HTTP alone costs on this machine, measured
// by the same client. It answers every request with 200 and the body `{}`.
//
//   floor_server [--host 127.0.0.1] [--port 8000] [--threads N] [--http ddb|beast]
//
// --http ddb (default): ddb-server's own HTTP layer (server::HttpServer: session, timers,
//   hand-written head with x-amzn-RequestId and x-amz-crc32) with a handler that returns `{}`
//   instead of calling the protocol layer. ddb/floor then isolates the cost of everything
//   behind HTTP (JSON, engine, RocksDB).
// --http beast: a textbook Beast session (tcp_stream timeouts, http::async_read, a
//   http::response and its serializer), for comparison with the usual way to use Beast.
//
// --port 0 picks a free port; prints "LISTENING <port>" on stdout when ready, as ddb-server
// does. SIGINT/SIGTERM stop it.

// clang-format off
#include <utility>  // before any Asio header: Boost 1.74 awaitable.hpp needs std::exchange
// clang-format on

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/http_server.h"
#include "server/log.h"

namespace ddb::bench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr size_t kBodyLimit = 16 * 1024 * 1024;   // as ddb-server
constexpr std::chrono::seconds kReadTimeout{30};  // as ddb-server

// One connection; its handlers run on its strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket&& socket) : stream_(std::move(socket)) {}

  void Start() {
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&Session::DoRead, shared_from_this()));
  }

 private:
  void DoRead() {
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    stream_.expires_after(kReadTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t /*bytes*/) {
    if (ec) return Close();
    const http::request<http::string_body>& request = parser_->get();
    response_ = {};
    response_.version(request.version());
    response_.result(http::status::ok);
    response_.set(http::field::content_type, "application/x-amz-json-1.0");
    response_.body() = "{}";
    response_.keep_alive(request.keep_alive());
    response_.prepare_payload();
    http::async_write(
        stream_, response_,
        beast::bind_front_handler(&Session::OnWrite, shared_from_this(), response_.need_eof()));
  }

  void OnWrite(bool close, beast::error_code ec, size_t /*bytes*/) {
    if (ec || close) return Close();
    DoRead();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
};

class Listener {
 public:
  Listener(asio::io_context& ioc, tcp::acceptor& acceptor) : ioc_(ioc), acceptor_(acceptor) {}

  void DoAccept() {
    acceptor_.async_accept(asio::make_strand(ioc_), [this](beast::error_code ec, tcp::socket s) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        beast::error_code ignored;
        s.set_option(tcp::no_delay(true), ignored);
        std::make_shared<Session>(std::move(s))->Start();
      }
      DoAccept();
    });
  }

 private:
  asio::io_context& ioc_;
  tcp::acceptor& acceptor_;
};

// The default floor: ddb-server's HTTP layer with a constant answer.
int RunDdbHttp(const std::string& host, int port, int threads) {
  server::ServerOptions options;
  options.host = host;
  options.port = static_cast<uint16_t>(port);
  options.threads = threads;
  // The floor measures HTTP alone: the constant handler runs inline on the I/O threads, with
  // no engine pool handoff (which ddb-server pays per DynamoDB request).
  options.engine_threads = 0;
  server::SetLogLevel(server::LogLevel::kWarn);
  server::HttpServer http(
      [](server::HttpRequest*) {
        server::HttpResponse response;
        response.content_type = "application/x-amz-json-1.0";
        response.crc32 = true;
        response.body = "{}";
        return response;
      },
      options);
  if (Status status = http.Start(); !status.ok()) {
    std::fprintf(stderr, "floor_server: %s\n", status.error().message().c_str());
    return 1;
  }
  std::printf("LISTENING %u\n", static_cast<unsigned>(http.port()));
  std::fflush(stdout);
  http.Run();
  return 0;
}

[[noreturn]] void Usage(const char* problem, int exit_code = 2) {
  std::fprintf(exit_code == 0 ? stdout : stderr,
               "floor_server: %s\nusage: floor_server [--host 127.0.0.1] [--port 8000] "
               "[--threads N (default: number of CPUs)] [--http ddb|beast]\n",
               problem);
  std::exit(exit_code);
}

int Main(int argc, char** argv) {
  std::string host = "127.0.0.1";
  int port = 8000;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string http_layer = "ddb";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") Usage("a server that answers every request with {}", 0);
    if (i + 1 >= argc) Usage(("missing value for " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--host") {
      host = value;
    } else if (flag == "--port") {
      port = std::atoi(value.c_str());
      if (port < 0 || port > 65535) Usage("bad --port");
    } else if (flag == "--threads") {
      threads = std::atoi(value.c_str());
      if (threads < 1 || threads > 1024) Usage("bad --threads");
    } else if (flag == "--http") {
      if (value != "ddb" && value != "beast") Usage("--http takes ddb or beast");
      http_layer = value;
    } else {
      Usage(("unknown flag " + flag).c_str());
    }
  }

  if (http_layer == "ddb") return RunDdbHttp(host, port, threads);

  asio::io_context ioc(threads);
  tcp::acceptor acceptor(asio::make_strand(ioc));
  try {
    const tcp::endpoint endpoint(asio::ip::make_address(host), static_cast<uint16_t>(port));
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "floor_server: cannot listen on %s:%d: %s\n", host.c_str(), port,
                 e.what());
    return 1;
  }
  Listener listener(ioc, acceptor);
  listener.DoAccept();
  asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&ioc](beast::error_code, int) { ioc.stop(); });

  std::printf("LISTENING %u\n", static_cast<unsigned>(acceptor.local_endpoint().port()));
  std::fflush(stdout);

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (std::thread& t : pool) t.join();
  return 0;
}

}  // namespace
}  // namespace ddb::bench

int main(int argc, char** argv) { return ddb::bench::Main(argc, argv); }
