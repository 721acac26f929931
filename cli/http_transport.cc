// The HTTP transport (--endpoint): Boost.Beast, keep-alive connections kept in a pool so that
// parallel callers (ddb load) each hold one. The only Beast/Asio user of cli/.
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/sigv4_signer.h"
#include "cli/transport.h"
#include "util/http_url.h"
#include "util/iso8601.h"

namespace ddb::cli {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Endpoint {
  std::string host;  // without brackets
  std::string port;
  std::string host_header;
};

// "http://host:port[/]" -> host and port (80 when absent).
Result<Endpoint> ParseUrl(const std::string& url) {
  std::optional<util::HttpUrl> u = util::ParseHttpUrl(url);
  if (!u) return Error::Validation("--endpoint must be an http://host[:port] URL: " + url);
  return Endpoint{u->host, u->port, u->host_header};
}

// "20261202T010203Z"
std::string AmzDate() { return util::FormatIso8601Basic(std::time(nullptr)); }

// One keep-alive connection with its own event loop: each call runs its operations to the
// end on the calling thread, under the deadline of tcp_stream (so a server that stops
// answering is an error after the timeout, not a hang).
class Connection {
 public:
  // Runs one asynchronous operation (start(handler)) to completion or the deadline.
  explicit Connection(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  template <class Start>
  beast::error_code Run(Start start) {
    beast::error_code result = asio::error::would_block;
    stream_.expires_after(timeout_);
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    io_.restart();
    io_.run();
    return result;
  }

  const std::chrono::milliseconds timeout_;
  asio::io_context io_;  // before stream_, which uses it
  beast::tcp_stream stream_{io_};
  beast::flat_buffer buffer_;
  bool open_ = false;
};

class HttpTransport final : public Transport {
 public:
  HttpTransport(Endpoint endpoint, SigV4Signer signer, std::chrono::milliseconds timeout)
      : endpoint_(std::move(endpoint)), signer_(std::move(signer)), timeout_(timeout) {}

  Result<Response> Call(std::string_view operation, std::string body) override {
    http::request<http::string_body> req{http::verb::post, "/", 11};
    req.set(http::field::host, endpoint_.host_header);
    req.set(http::field::content_type, "application/x-amz-json-1.0");
    req.set("X-Amz-Target", "DynamoDB_20120810." + std::string(operation));
    const std::string date = AmzDate();
    req.set("X-Amz-Date", date);
    req.set(http::field::authorization,
            signer_.Authorization(endpoint_.host_header,
                                  "DynamoDB_20120810." + std::string(operation), date, body));
    if (!signer_.session_token().empty()) {
      req.set("X-Amz-Security-Token", signer_.session_token());
    }
    req.body() = std::move(body);
    req.prepare_payload();
    return Exchange(req);
  }

  Result<std::string> Metrics() override {
    http::request<http::string_body> req{http::verb::get, "/metrics", 11};
    req.set(http::field::host, endpoint_.host_header);
    Result<Response> r = Exchange(req);
    if (!r.ok()) return r.error();
    if (r.value().status != 200) {
      return Error::Internal("GET /metrics answered HTTP " + std::to_string(r.value().status));
    }
    return std::move(r.value().body);
  }

  Result<Response> Admin(std::string_view method, std::string_view path) override {
    http::request<http::string_body> req{method == "POST" ? http::verb::post : http::verb::get,
                                         std::string(path), 11};
    req.set(http::field::host, endpoint_.host_header);
    if (method == "POST") req.prepare_payload();
    return Exchange(req);
  }

  int Parallelism() const override {
    return static_cast<int>(std::max(8u, 2 * std::thread::hardware_concurrency()));
  }

 private:
  // Sends on a pooled connection; a connection that the server closed while idle is
  // reopened once.
  Result<Response> Exchange(http::request<http::string_body>& req) {
    std::unique_ptr<Connection> c = Take();
    std::string last_error;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool reused = c->open_;
      beast::error_code ec;
      if (!c->open_) {
        tcp::resolver resolver(c->io_);
        const auto results = resolver.resolve(endpoint_.host, endpoint_.port, ec);
        if (!ec) {
          ec = c->Run([&](auto handler) { c->stream_.async_connect(results, handler); });
        }
        if (ec) {
          return Error::Internal("cannot connect to " + endpoint_.host_header + ": " +
                                 ec.message());
        }
        c->stream_.socket().set_option(tcp::no_delay(true));
        c->open_ = true;
      }
      ec = c->Run([&](auto handler) { http::async_write(c->stream_, req, handler); });
      http::response_parser<http::string_body> parser;
      parser.body_limit(64 * 1024 * 1024);
      if (!ec) {
        ec = c->Run(
            [&](auto handler) { http::async_read(c->stream_, c->buffer_, parser, handler); });
      }
      if (ec) {
        last_error = ec.message();
        c = std::make_unique<Connection>(timeout_);
        if (reused) continue;  // the server may have closed an idle connection
        break;
      }
      http::response<http::string_body> res = parser.release();
      Response out{static_cast<int>(res.result_int()), std::move(res.body())};
      if (res.keep_alive()) Give(std::move(c));
      return out;
    }
    return Error::Internal("request to " + endpoint_.host_header + " failed: " + last_error);
  }

  std::unique_ptr<Connection> Take() {
    std::lock_guard lock(mu_);
    if (idle_.empty()) return std::make_unique<Connection>(timeout_);
    std::unique_ptr<Connection> c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }

  void Give(std::unique_ptr<Connection> c) {
    std::lock_guard lock(mu_);
    idle_.push_back(std::move(c));
  }

  Endpoint endpoint_;
  SigV4Signer signer_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace

Result<std::unique_ptr<Transport>> OpenHttpTransport(const std::string& url,
                                                     std::chrono::milliseconds timeout) {
  Result<Endpoint> endpoint = ParseUrl(url);
  if (!endpoint.ok()) return endpoint.error();
  return std::unique_ptr<Transport>(std::make_unique<HttpTransport>(
      std::move(endpoint).value(), SigV4Signer::FromEnvironment(), timeout));
}

}  // namespace ddb::cli
