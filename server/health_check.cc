#include "server/health_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ddb::server {
namespace {

// POSIX sockets rather than Beast: one request and one short answer, with a deadline that
// poll() gives directly.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

using Clock = std::chrono::steady_clock;

// Waits for `events` on fd until the deadline; false on timeout or error.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{.fd = fd, .events = events, .revents = 0};
    const int n = poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

Status CheckHealth(const std::string& host, uint16_t port, int timeout_ms) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  sockaddr_storage address{};
  socklen_t length = 0;
  std::string target = host == "0.0.0.0" || host == "localhost" ? "127.0.0.1"
                       : host == "::"                           ? "::1"
                                                                : host;
  if (target.size() > 2 && target.front() == '[' && target.back() == ']') {
    target = target.substr(1, target.size() - 2);
  }
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (inet_pton(AF_INET, target.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof(*v4);
  } else if (inet_pton(AF_INET6, target.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof(*v6);
  } else {
    return Error::Internal("health check: '" + host + "' is not an IP address");
  }
  const std::string where = target + ":" + std::to_string(port);

  Socket socket(::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (socket.fd() < 0)
    return Error::Internal("health check: socket: " + std::string(strerror(errno)));
  if (connect(socket.fd(), reinterpret_cast<sockaddr*>(&address), length) != 0 &&
      errno != EINPROGRESS) {
    return Error::Internal("health check: connect to " + where + ": " + strerror(errno));
  }
  if (!WaitFor(socket.fd(), POLLOUT, deadline)) {
    return Error::Internal("health check: no connection to " + where + " in time");
  }
  int failure = 0;
  socklen_t failure_size = sizeof(failure);
  getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &failure, &failure_size);
  if (failure != 0) {
    return Error::Internal("health check: connect to " + where + ": " + strerror(failure));
  }

  const std::string request = "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(socket.fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitFor(socket.fd(), POLLOUT, deadline)) {
        return Error::Internal("health check: " + where + " took no request in time");
      }
    } else {
      return Error::Internal("health check: send to " + where + ": " + strerror(errno));
    }
  }

  // The whole answer is a few dozen bytes: read until the server closes (Connection: close).
  std::string answer;
  char buffer[512];
  while (answer.size() < 4096) {
    const ssize_t n = recv(socket.fd(), buffer, sizeof(buffer), 0);
    if (n > 0) {
      answer.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!WaitFor(socket.fd(), POLLIN, deadline)) {
        return Error::Internal("health check: no answer from " + where + " in time");
      }
    } else {
      return Error::Internal("health check: recv from " + where + ": " + strerror(errno));
    }
  }
  const std::string first_line = answer.substr(0, answer.find("\r\n"));
  if (!first_line.starts_with("HTTP/1.1 200") ||
      answer.find("\r\n\r\nhealthy") == std::string::npos) {
    return Error::Internal("health check: " + where + " answered '" + first_line + "'");
  }
  return Status::Ok();
}

}  // namespace ddb::server
