// HTTP/2 over cleartext TCP with prior knowledge (RFC 9113 section 3.3) on ddb's port: the
// JavaScript SDK v3's Kinesis client speaks only that to an http:// endpoint (its default
// handler is NodeHttp2Handler), as do other HTTP/2-first clients. HttpServer hands a
// connection whose first bytes are the HTTP/2 preface to an H2cConnection, which frames it
// with nghttp2 (Debian's libnghttp2, rather than HTTP/2 written by hand) and answers each
// request through the same Route as HTTP/1.1.
//
// One thread per connection, doing blocking I/O: requests of a connection are answered one
// after another (the SDK sends one at a time: disableConcurrentStreams), and their engine
// calls never hold up an HTTP/1.1 I/O thread. Bounded: at most kMaxH2cConnections at once
// (HttpServer refuses more), 100 concurrent streams each with 64 KB of header fields,
// request bodies held to the server's body limit and its body memory, an idle connection
// closed after the read timeout.
// Thread safety: Serve on one thread; Close from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "server/byte_budget.h"
#include "server/http_server.h"

namespace ddb::server {

inline constexpr int kMaxH2cConnections = 64;

// The first bytes an HTTP/2 client sends ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").
inline constexpr std::string_view kH2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

class H2cConnection {
 public:
  using Handler = std::function<HttpResponse(HttpRequest*)>;

  // Owns `fd` (a connected TCP socket); `received` is what was read from it already,
  // starting with the preface.
  // Request bodies past 64 KB take their share of `budget` (--max-body-memory) as they
  // arrive, as HTTP/1.1's do; a request that cannot get it is answered 503.
  H2cConnection(int fd, std::string received, bool from_loopback, Handler handler,
                size_t body_limit, ByteBudget* budget, std::chrono::milliseconds idle_timeout);
  ~H2cConnection();
  H2cConnection(const H2cConnection&) = delete;
  H2cConnection& operator=(const H2cConnection&) = delete;

  // Serves requests until the peer closes, a protocol error, the idle timeout or Close().
  void Serve();
  // Makes Serve return: no new request is read (one being answered finishes).
  void Close();

  struct Stream;  // a request being received or answered (h2c_connection.cc)
  struct Session;

 private:
  const int fd_;
  std::string received_;
  const bool from_loopback_;
  const Handler handler_;
  const size_t body_limit_;
  ByteBudget* const budget_;
  const std::chrono::milliseconds idle_timeout_;
  std::atomic<bool> closed_{false};
};

}  // namespace ddb::server
