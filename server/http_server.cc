// The only translation unit that includes Beast/Asio (TOOLCHAIN.md section 4: each one costs
// 10-25 s of build time). Shape follows Beast's example/advanced/server: a listener accepting
// onto per-connection strands, a session reading with a fresh request_parser per message.

// clang-format off
#include <utility>  // before any Asio header: Boost 1.74 awaitable.hpp needs std::exchange
// clang-format on

#include "server/http_server.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "engine/engine.h"
#include "protocol/handler.h"
#include "server/log.h"
#include "server/sigv4.h"

namespace ddb::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::string_view kJson10 = "application/x-amz-json-1.0";
constexpr std::string_view kJson11 = "application/x-amz-json-1.1";

// Decimal CRC32 (zlib's, the IEEE polynomial) of the body: what x-amz-crc32 carries and what
// the SDKs check.
std::string Crc32Decimal(std::string_view body) {
  const uLong crc =
      crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(body.data()), body.size());
  return std::to_string(crc);
}

// "localhost:8000" -> "localhost", "[::1]:8000" -> "[::1]".
std::string_view HostWithoutPort(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  return host.substr(0, host.find(':'));
}

HttpResponse PlainResponse(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.headers.emplace_back("x-amzn-RequestId", NewRequestId());
  response.body = std::move(body);
  return response;
}

HttpResponse DynamoResponse(int status, std::string body, bool json_1_1) {
  HttpResponse response;
  response.status = status;
  response.content_type = json_1_1 ? kJson11 : kJson10;
  response.headers.emplace_back("x-amzn-RequestId", NewRequestId());
  response.headers.emplace_back("x-amz-crc32", Crc32Decimal(body));
  response.body = std::move(body);
  return response;
}

bool UsesJson11(std::string_view content_type) {
  return content_type.find(kJson11) != std::string_view::npos;
}

// What an exception escaping a request carries, for the log (never for the client).
std::string DescribeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace

std::string NewRequestId() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  // Per-thread generator: no lock on the request path. Ids only need to be unique enough to
  // find a request in logs, not unpredictable.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id(52, '0');
  uint64_t bits = 0;
  int left = 0;
  for (char& c : id) {
    if (left == 0) {
      bits = rng();
      left = 10;  // 10 draws of 6 bits from 64 random bits
    }
    c = kAlphabet[(bits & 63) % 36];  // slight bias towards A-1; irrelevant for an id
    bits >>= 6;
    --left;
  }
  return id;
}

HttpResponse DynamoErrorResponse(const Error& error, bool json_1_1) {
  protocol::WireResponse wire = protocol::ErrorResponse(error);
  return DynamoResponse(wire.status, std::move(wire.body), json_1_1);
}

HttpResponse Route(Engine& engine, HttpRequest* request) {
  const std::string_view target = request->target;
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/metrics" && request->method == "GET") {
    HttpResponse response = PlainResponse(200, protocol::RenderMetricsText(engine));
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return response;
  }
  if (path != "/") return PlainResponse(404, "Not Found\n");
  if (request->method == "GET") {
    // The service answers "healthy: dynamodb.us-east-1.amazonaws.com"; load balancers and
    // some SDK health checks probe it.
    return PlainResponse(200, "healthy: " + std::string(HostWithoutPort(request->host)));
  }
  if (request->method != "POST") {
    HttpResponse response = PlainResponse(405, "Method Not Allowed\n");
    response.headers.emplace_back("Allow", "GET, POST");
    return response;
  }

  const bool json_1_1 = UsesJson11(request->content_type);
  if (!request->authorization || request->authorization->empty()) {
    return DynamoErrorResponse(
        Error(ErrorCode::kMissingAuthenticationToken, "Request is missing Authentication Token"),
        json_1_1);
  }
  const RequestContext ctx = ContextFromAuthorization(*request->authorization);
  protocol::WireResponse wire =
      protocol::HandleRequest(engine, ctx, request->amz_target, request->body);
  return DynamoResponse(wire.status, std::move(wire.body), json_1_1);
}

class HttpServer::Impl {
 public:
  class Session;

  Impl(Engine& engine, const ServerOptions& options)
      : engine_(engine),
        options_(options),
        ioc_(std::max(1, options.threads)),
        strand_(asio::make_strand(ioc_)),
        acceptor_(strand_),
        signals_(strand_, SIGINT, SIGTERM),
        accept_retry_timer_(strand_) {}

  ~Impl() {
    // Only reached without Run() having joined (e.g. Start() then destruction): make sure no
    // thread still runs handlers that point into this object.
    ioc_.stop();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  Status Start();
  void Run();
  void Stop();
  uint16_t port() const { return port_; }

  // Used by sessions, from their strands.
  Engine& engine() { return engine_; }
  const ServerOptions& options() const { return options_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  void Register(Session* session, std::weak_ptr<Session> weak);
  void Unregister(Session* session);

 private:
  void DoAccept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  void BeginShutdown();  // on strand_
  void RunThread();

  Engine& engine_;
  const ServerOptions options_;

  // Declared before ioc_: sessions still queued in ioc_ when it is destroyed unregister here.
  std::mutex mu_;
  std::condition_variable cv_;                                     // sessions_ or stop
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;  // guarded by mu_
  bool stop_requested_ = false;                                    // guarded by mu_
  std::atomic<bool> stopping_{false};  // mirrors stop_requested_ for lock-free reads

  asio::io_context ioc_;
  // Serializes the acceptor, signal set and timer (they are not thread-safe).
  asio::strand<asio::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer accept_retry_timer_;
  uint16_t port_ = 0;
  std::vector<std::thread> threads_;
};

// One connection. All its handlers run on the socket's strand, so its members need no lock.
class HttpServer::Impl::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Impl& server) : stream_(std::move(socket)), server_(server) {}
  ~Session() { server_.Unregister(this); }

  void Start() {
    server_.Register(this, weak_from_this());
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&Session::DoReadHeader, shared_from_this()));
  }

  // Posted by the server when shutting down: an idle connection is closed now; a busy one
  // finishes its request and closes after the response (DoReadHeader checks stopping()).
  void OnServerStop() {
    if (idle_) stream_.close();  // the pending read completes with operation_aborted
  }

  asio::any_io_executor executor() { return stream_.get_executor(); }

 private:
  void DoReadHeader() {
    if (server_.stopping()) return DoClose();
    parser_.emplace();  // a fresh parser per message, as body_limit is per message
    parser_->body_limit(server_.options().body_limit);
    idle_ = true;
    stream_.expires_after(server_.options().read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnReadHeader, shared_from_this()));
  }

  void OnReadHeader(beast::error_code ec, size_t /*bytes*/) {
    idle_ = false;
    // Beast checks Content-Length against body_limit as soon as the header is parsed.
    if (ec == http::error::body_limit) return RejectTooLarge();
    if (ec) return OnReadError(ec);
    // Clients like curl send "Expect: 100-continue" for large bodies and wait up to 1 s for
    // the interim response before sending the body anyway.
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      continue_response_ =
          http::response<http::empty_body>(http::status::continue_, parser_->get().version());
      http::async_write(stream_, continue_response_,
                        [self = shared_from_this()](beast::error_code write_ec, size_t) {
                          if (write_ec) return self->OnWriteError(write_ec);
                          self->DoReadBody();
                        });
      return;
    }
    DoReadBody();
  }

  void DoReadBody() {
    stream_.expires_after(server_.options().read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnReadBody, shared_from_this()));
  }

  void OnReadBody(beast::error_code ec, size_t /*bytes*/) {
    if (ec == http::error::body_limit) return RejectTooLarge();
    if (ec) return OnReadError(ec);
    HandleRequest();
  }

  // A read error closes the connection; it never becomes a DynamoDB error. Malformed HTTP
  // gets a plain 400 first so that the client sees why.
  void OnReadError(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == asio::error::operation_aborted) {
      return DoClose();
    }
    if (ec == beast::error::timeout) {
      Log(LogLevel::kDebug, "closing connection: read timeout");
      return;  // the timeout already closed the socket
    }
    Log(LogLevel::kDebug, "closing connection: read failed: " + ec.message());
    if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::partial_message) {
      return WriteResponse(PlainResponse(400, "Bad Request: " + ec.message() + "\n"), 11,
                           /*keep_alive=*/false);
    }
    DoClose();
  }

  void HandleRequest() {
    const auto start = std::chrono::steady_clock::now();
    http::request<http::string_body>& message = parser_->get();
    const unsigned version = message.version();
    const bool keep_alive = message.keep_alive();
    bool json_1_1 = false;
    HttpRequest request;
    HttpResponse response;
    // The session boundary: an exception from anything below (std::bad_alloc, a bug) becomes
    // InternalServerError for this request and the connection carries on.
    try {
      request.method = std::string(message.method_string());
      request.target = std::string(message.target());
      request.host = std::string(message[http::field::host]);
      request.content_type = std::string(message[http::field::content_type]);
      request.amz_target = std::string(message["X-Amz-Target"]);
      if (auto it = message.find(http::field::authorization); it != message.end()) {
        request.authorization = std::string(it->value());
      }
      request.body = std::move(message.body());
      json_1_1 = UsesJson11(request.content_type);
      response = Route(server_.engine(), &request);
    } catch (...) {
      Log(LogLevel::kError, "request " + request.amz_target +
                                " failed with an exception: " + DescribeCurrentException());
      response = DynamoErrorResponse(Error::Internal("Internal server error"), json_1_1);
    }
    if (LogEnabled(LogLevel::kDebug)) {
      const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
      Log(LogLevel::kDebug, request.method + " " + request.target + " " + request.amz_target +
                                " -> " + std::to_string(response.status) + " in " +
                                std::to_string(micros) + " us");
    }
    WriteResponse(std::move(response), version, keep_alive && !server_.stopping());
  }

  // 413 and close: the rest of an oversized body is not worth reading.
  void RejectTooLarge() {
    Log(LogLevel::kDebug,
        "rejecting a request body over " + std::to_string(server_.options().body_limit) + " bytes");
    const unsigned version = parser_->is_header_done() ? parser_->get().version() : 11;
    WriteResponse(PlainResponse(413, "Request Entity Too Large: the body limit is " +
                                         std::to_string(server_.options().body_limit) + " bytes\n"),
                  version, /*keep_alive=*/false);
  }

  void WriteResponse(HttpResponse response, unsigned version, bool keep_alive) {
    response_ = {};
    response_.version(version);
    response_.result(static_cast<unsigned>(response.status));
    response_.set(http::field::content_type, response.content_type);
    for (auto& [name, value] : response.headers) response_.set(name, value);
    response_.body() = std::move(response.body);
    response_.keep_alive(keep_alive);
    response_.prepare_payload();
    // Bounds the write too: a client that stops reading cannot pin the session.
    stream_.expires_after(server_.options().read_timeout);
    http::async_write(
        stream_, response_,
        beast::bind_front_handler(&Session::OnWrite, shared_from_this(), response_.need_eof()));
  }

  void OnWrite(bool close, beast::error_code ec, size_t /*bytes*/) {
    if (ec) return OnWriteError(ec);
    if (close) return DoLingeringClose();
    DoReadHeader();
  }

  void OnWriteError(beast::error_code ec) {
    Log(LogLevel::kDebug, "closing connection: write failed: " + ec.message());
  }

  void DoClose() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  // After a response with "Connection: close" the client may still be sending (a rejected
  // oversized body). Closing at once would make the kernel answer those bytes with a RST,
  // which can discard our response before the client reads it; so stop sending, then discard
  // input until the client closes or a short deadline passes.
  void DoLingeringClose() {
    DoClose();
    idle_ = true;  // shutdown may close it at once
    stream_.expires_after(std::chrono::seconds(2));
    Drain();
  }

  void Drain() {
    stream_.async_read_some(buffer_.prepare(64 * 1024),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (!ec) self->Drain();  // discarded: never committed
                            });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Impl& server_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::empty_body> continue_response_;
  http::response<http::string_body> response_;
  bool idle_ = false;  // waiting for the next request (or lingering): safe to close
};

void HttpServer::Impl::Register(Session* session, std::weak_ptr<Session> weak) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.emplace(session, std::move(weak));
}

void HttpServer::Impl::Unregister(Session* session) {
  bool notify = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(session);
    notify = stop_requested_ && sessions_.empty();
  }
  if (notify) cv_.notify_all();
}

Status HttpServer::Impl::Start() {
  beast::error_code ec;
  tcp::resolver resolver(ioc_);
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  tcp::resolver::results_type endpoints =
      resolver.resolve(options_.host, std::to_string(options_.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    return Error::Internal("cannot resolve " + where + ": " + ec.message());
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Error::Internal("cannot listen on " + where + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();

  signals_.async_wait([this](beast::error_code signal_ec, int signal_number) {
    if (signal_ec) return;  // cancelled by Stop()
    Log(LogLevel::kInfo, std::string("received ") +
                             (signal_number == SIGINT ? "SIGINT" : "SIGTERM") + ", shutting down");
    Stop();
  });
  asio::post(strand_, [this] { DoAccept(); });
  return Status::Ok();
}

void HttpServer::Impl::DoAccept() {
  // Each connection gets its own strand: its handlers never run concurrently.
  acceptor_.async_accept(asio::make_strand(ioc_), beast::bind_front_handler(&Impl::OnAccept, this));
}

void HttpServer::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (stopping()) return;  // the acceptor is closed or closing
  if (ec) {
    // E.g. EMFILE: retrying at once would spin, so back off briefly.
    Log(LogLevel::kWarn, "accept failed: " + ec.message());
    accept_retry_timer_.expires_after(std::chrono::milliseconds(100));
    accept_retry_timer_.async_wait([this](beast::error_code timer_ec) {
      if (!timer_ec && !stopping()) DoAccept();
    });
    return;
  }
  // Responses are written whole; Nagle would only delay the last segment.
  socket.set_option(tcp::no_delay(true), ec);
  std::make_shared<Session>(std::move(socket), *this)->Start();
  DoAccept();
}

void HttpServer::Impl::RunThread() {
  // Handlers catch their own exceptions; this only keeps a stray one from killing a thread.
  while (true) {
    try {
      ioc_.run();
      return;
    } catch (...) {
      Log(LogLevel::kError, "exception escaped a handler: " + DescribeCurrentException());
    }
  }
}

void HttpServer::Impl::Run() {
  const int n = std::max(1, options_.threads);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { RunThread(); });

  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_; });
    const bool drained =
        cv_.wait_for(lock, options_.shutdown_grace, [this] { return sessions_.empty(); });
    if (!drained) {
      Log(LogLevel::kWarn, std::to_string(sessions_.size()) +
                               " connection(s) still busy after the shutdown grace period; "
                               "dropping them");
      ioc_.stop();  // handlers already running finish; queued ones are destroyed with ioc_
    }
  }
  // With the acceptor closed, signals cancelled and no sessions, run() runs out of work.
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void HttpServer::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) return;
    stop_requested_ = true;
    stopping_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  asio::post(strand_, [this] { BeginShutdown(); });
}

void HttpServer::Impl::BeginShutdown() {
  beast::error_code ec;
  acceptor_.close(ec);
  signals_.cancel(ec);
  accept_retry_timer_.cancel();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [raw, weak] : sessions_) {
      if (std::shared_ptr<Session> session = weak.lock()) live.push_back(std::move(session));
    }
  }
  Log(LogLevel::kInfo, "stopped accepting; closing " + std::to_string(live.size()) +
                           " connection(s) once their requests finish");
  for (std::shared_ptr<Session>& session : live) {
    asio::dispatch(session->executor(), [session] { session->OnServerStop(); });
  }
}

HttpServer::HttpServer(Engine& engine, const ServerOptions& options)
    : impl_(std::make_unique<Impl>(engine, options)) {}

HttpServer::~HttpServer() { impl_->Stop(); }

Status HttpServer::Start() { return impl_->Start(); }
uint16_t HttpServer::port() const { return impl_->port(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace ddb::server
