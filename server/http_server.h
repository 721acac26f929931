// The HTTP/1.1 front end: HttpServer accepts connections and runs sessions (Boost.Beast, kept
// out of this header so that only http_server.cc pays its compile time), and Route maps one
// request to one response.
// Thread safety: Route may be called concurrently. HttpServer: Start, Run and the destructor
// from one thread; Stop from any thread, including a signal-free shutdown from tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/error.h"
#include "server/auth/sigv4_verify.h"
#include "server/config.h"

namespace ddb {
class Engine;
namespace server {
class Namespaces;    // namespaces.h
class LocalS3Store;  // s3_store.h
}  // namespace server
}  // namespace ddb

namespace ddb::server {

// What Route needs of a request. The views point into the session's parsed message and are
// valid while Route runs; the body is the session's buffer, moved in and taken back after.
struct HttpRequest {
  std::string_view method;                        // "GET", "POST", ...
  std::string_view target;                        // request target, "/" for DynamoDB
  std::string_view host;                          // Host header, possibly with ":port"
  std::string_view content_type;                  // Content-Type header, "" when absent
  std::string_view amz_target;                    // X-Amz-Target, "" when absent
  std::optional<std::string_view> authorization;  // Authorization, nullopt when absent
  // CORS: Origin, Access-Control-Request-Method and -Headers ("" when absent).
  std::string_view origin;
  std::string_view cors_request_method;
  std::string_view cors_request_headers;
  std::string_view content_encoding;  // Content-Encoding, "" when absent
  std::string_view accept_encoding;   // Accept-Encoding, "" when absent
  // Every header field as received, in order (what a signature covers).
  std::span<const HeaderField> headers;
  std::string body;
  // The peer is on this machine (127.0.0.0/8 or ::1): what the admin endpoint asks.
  bool from_loopback = false;
};

struct HttpResponse {
  int status = 200;
  std::string_view content_type;  // always a string literal
  // Adds x-amz-crc32 (decimal CRC32 of the body), as DynamoDB responses carry.
  bool crc32 = false;
  // The Content-Encoding of the body ("gzip", "deflate"), or "" for none.
  std::string_view content_encoding;
  // The Allow header's value, or "" for none (405).
  std::string_view allow;
  // Further header lines, each ending in "\r\n" (CORS), or "".
  std::string extra_headers;
  std::string body;
  // An answer to HEAD: the Content-Length the GET's body would have; no body is sent.
  std::optional<uint64_t> head_content_length;
};

// Routes one request:
//   GET /   -> 200 "healthy: <Host>" (text/plain), as the service answers.
//   POST /  -> protocol::HandleRequest with X-Amz-Target (an absent one is passed as ""),
//              or MissingAuthenticationTokenException when Authorization is absent or empty.
//              The response has crc32 set (the session then sends x-amz-crc32 of the body) and
//              Content-Type application/x-amz-json-1.0 (1.1 when the request used 1.1).
//   OPTIONS /  -> 200, empty: a browser's CORS preflight.
//   other methods on / -> 405; other paths -> 404.
// A request with an Origin header (a browser's) gets, as from the service,
// Access-Control-Allow-Origin: * and Access-Control-Expose-Headers on every response; a
// preflight also Access-Control-Max-Age and, echoing its request, Access-Control-Allow-Methods
// and Access-Control-Allow-Headers.
// The session writes the head: status line, Content-Type, x-amzn-RequestId (on every
// response), x-amz-crc32, Allow, Connection (when the keep-alive default needs it) and
// Content-Length, in that order.
// With a `verifier` (--auth verify), a DynamoDB request is answered only once its signature
// checks out (over the body as received, before any Content-Encoding is undone); otherwise
// with the verifier's error.
// May move request->body. Does not throw unless the engine or allocation does.
// `cors_origins`: "*" (any origin) or a comma-separated allow-list (ServerOptions).
// `console`: GET /console and /console/... serve the web console (server/console.h), with
// no CORS headers (it is same-origin only); otherwise they are 404 like any other path.
// `s3`: requests signed for S3 (server/s3/s3_api.h) are answered from it; nullptr: no S3 API.
HttpResponse Route(Namespaces& namespaces, HttpRequest* request,
                   const SignatureVerifier* verifier = nullptr, std::string_view cors_origins = "*",
                   bool console = false, LocalS3Store* s3 = nullptr);

// A DynamoDB error response (crc32 set), e.g. for an exception that escaped Route, in the
// content type the service answers a request of `request_content_type` in (1.0, 1.1 or
// application/json; 1.0 for anything else).
HttpResponse DynamoErrorResponse(const Error& error, std::string_view request_content_type);

// A fresh 52-character [A-Z0-9] request id, the shape of the service's x-amzn-RequestId.
std::string NewRequestId();
constexpr size_t kRequestIdSize = 52;
// The same, written to out[0, kRequestIdSize).
void WriteRequestId(char* out);

// Answers one request; called concurrently from the server's threads. Route bound to an
// engine is ddb-server's; bench/floor_server plugs in a fixed answer to measure HTTP alone.
// With options.engine_threads > 0, POST / requests (DynamoDB operations) first take one of
// that many engine slots, waiting for one if need be; all other requests need none.
using RequestHandler = std::function<HttpResponse(HttpRequest*)>;

class HttpServer {
 public:
  // `namespaces` (and `verifier`, when given) must outlive the server. Nothing is bound
  // until Start().
  HttpServer(Namespaces& namespaces, const ServerOptions& options,
             const SignatureVerifier* verifier = nullptr);
  // One shared namespace, `engine`.
  HttpServer(Engine& engine, const ServerOptions& options,
             const SignatureVerifier* verifier = nullptr);
  // Passes every request to `handler` instead of Route (no /metrics, no health check).
  HttpServer(RequestHandler handler, const ServerOptions& options);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Stops (if running), joins threads and closes every connection.
  ~HttpServer();

  // Resolves options.host, binds options.port and listens; from then on SIGINT and SIGTERM
  // are handled by the server (they take effect once Run() runs).
  // Errors: kInternal (host does not resolve, address in use, permission denied).
  Status Start();

  // The bound port: options.port, or the ephemeral one when it was 0.
  // REQUIRES: Start() succeeded.
  uint16_t port() const;

  // Serves on options.threads threads (plus options.engine_threads spares while engine calls
  // hold them up; docs/architecture/server.md "Server threading") until SIGINT, SIGTERM or Stop(),
  // blocking the caller; then stops accepting, closes idle connections, lets in-flight
  // requests finish, those waiting for an engine slot included (dropping connections still
  // busy after options.shutdown_grace), and returns once all threads are joined: no handler
  // call is in progress after it returns (an engine call that never returns keeps it
  // waiting: main.cc's ShutdownDeadline ends the process then). With engine slots and
  // options.request_watchdog > 0, a RequestWatchdog reports engine calls past it.
  // REQUIRES: Start() succeeded. Call at most once.
  void Run();

  // Begins the shutdown Run() performs on a signal. Idempotent; returns immediately.
  void Stop();

  // `hook` is called once, when the shutdown begins (a signal or the first Stop()), on the
  // thread that begins it; main.cc arms its ShutdownDeadline there. Call before Start().
  void SetStopHook(std::function<void()> hook);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ddb::server
