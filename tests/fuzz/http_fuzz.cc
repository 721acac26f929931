// The HTTP front end (server/http_server.*) on arbitrary bytes: two HttpServers on loopback
// ports, started once in this process (one under --auth off, one verifying signatures, with
// one known key), each input written to a fresh connection of the one byte 0 picks, the
// write side then shut. The server must answer or close, and close once it has read
// everything: a connection still open kHangLimit after that is reported as a hang.
// Everything the server does runs on its threads, which libFuzzer's coverage sees too. The
// servers and their in-memory engines are replaced every kInputsPerServer inputs so that what
// the inputs write stays bounded.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "ddb/engine.h"
#include "server/auth/credentials.h"
#include "server/auth/sigv4_verify.h"
#include "server/http_server.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr int kInputsPerServer = 20000;
// Every connection stays in the kernel's connection tracking for 120 s after it closes (on
// hosts that track loopback traffic), and a full table drops new connections (262144
// entries on the fuzzing machine: full after ~2 minutes at full speed). Below 262144 / 120
// with room for the machine's other users.
constexpr int kMaxConnectionsPerSecond = 1200;
constexpr auto kHangLimit = std::chrono::seconds(10);

class LoopbackServer {
 public:
  explicit LoopbackServer(const ddb::server::SignatureVerifier* verifier) {
    ddb::EngineOptions engine_options;
    engine_options.in_memory = true;
    auto engine = ddb::Engine::Open(engine_options);
    DDB_FUZZ_CHECK(engine.ok());
    engine_ = std::move(*engine);
    ddb::server::ServerOptions options;
    options.port = 0;
    options.threads = 1;
    options.engine_threads = 2;
    options.read_timeout = std::chrono::seconds(2);  // well under kHangLimit
    options.shutdown_grace = std::chrono::seconds(1);
    server_ = std::make_unique<ddb::server::HttpServer>(*engine_, options, verifier);
    DDB_FUZZ_CHECK(server_->Start().ok());
    thread_ = std::thread([this] { server_->Run(); });
  }
  ~LoopbackServer() {
    server_->Stop();
    thread_.join();
    server_.reset();  // before the engine it serves
  }
  uint16_t port() const { return server_->port(); }

 private:
  std::unique_ptr<ddb::Engine> engine_;
  std::unique_ptr<ddb::server::HttpServer> server_;
  std::thread thread_;
};

const ddb::server::SignatureVerifier* Verifier() {
  static ddb::server::CredentialStore* keys = [] {
    auto* store = new ddb::server::CredentialStore();  // never destroyed: used until exit
    DDB_FUZZ_CHECK(store
                       ->AddIniText("[fuzz]\naws_access_key_id = AKIDFUZZ\n"
                                    "aws_secret_access_key = fuzzsecret\n",
                                    "fuzz")
                       .ok());
    return store;
  }();
  static auto* verifier = new ddb::server::SignatureVerifier(keys);
  return verifier;
}

// A connection to the server, or -1 after 5 s. From 127.0.0.2-254 in turn: we shut first, so
// each connection leaves its client port in TIME_WAIT for a minute, and one source address
// alone runs out of ports in seconds (the port is picked at connect, knowing the peer:
// IP_BIND_ADDRESS_NO_PORT).
int Connect(uint16_t port) {
  static uint32_t next_source = 0;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  DDB_FUZZ_CHECK(fd >= 0);
  int one = 1;
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + next_source++ % 253);
  DDB_FUZZ_CHECK(bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int error = 0;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int ready;
      // libFuzzer's timer signal interrupts polls now and then.
      while ((ready = poll(&p, 1, 5000)) < 0 && errno == EINTR) {
      }
      socklen_t length = sizeof(error);
      error = ETIMEDOUT;
      if (ready == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    }
  }
  if (error != 0) {
    std::fprintf(stderr, "http_fuzz: connect: %s\n", std::strerror(error));
    close(fd);
    return -1;
  }
  return fd;
}

// Writes `data`, shuts the write side and reads until the server closes. A server that
// cannot be reached in three tries (15 s) is reported like a hang.
void Exchange(uint16_t port, const uint8_t* data, size_t size) {
  static auto next_connection = std::chrono::steady_clock::now();
  std::this_thread::sleep_until(next_connection);
  next_connection =
      std::max(next_connection, std::chrono::steady_clock::now() - std::chrono::seconds(1)) +
      std::chrono::microseconds(1000000 / kMaxConnectionsPerSecond);
  int fd = -1;
  for (int attempt = 0; attempt < 3 && fd < 0; ++attempt) fd = Connect(port);
  if (fd < 0) {
    std::fprintf(stderr, "http_fuzz: the server does not accept connections\n");
    std::abort();
  }
  const auto deadline = std::chrono::steady_clock::now() + kHangLimit;
  size_t written = 0;
  bool write_open = true;
  char buffer[65536];
  while (true) {
    if (write_open && written == size) {
      shutdown(fd, SHUT_WR);
      write_open = false;
    }
    pollfd p{fd, static_cast<short>(POLLIN | (write_open ? POLLOUT : 0)), 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::fprintf(stderr, "http_fuzz: the server kept the connection open for %llds\n",
                   static_cast<long long>(kHangLimit.count()));
      std::abort();
    }
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if (p.revents & POLLOUT) {
      ssize_t n = send(fd, data + written, size - written, MSG_NOSIGNAL);
      if (n > 0) {
        written += n;
      } else if (errno != EAGAIN && errno != EINTR) {
        write_open = false;  // the server closed early (e.g. a bad request): fine
      }
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;  // closed (or reset)
    }
  }
  close(fd);
}

struct Servers {
  std::unique_ptr<LoopbackServer> open, verifying;
};

// Stopped by an atexit handler, registered once RocksDB's statics exist, so that it runs
// before their destructors: an engine closed from a static destructor would find them gone.
Servers& TheServers() {
  static auto* servers = new Servers();
  return *servers;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int inputs = 0;
  Servers& servers = TheServers();
  if (size == 0) return 0;
  if (!servers.open || ++inputs >= kInputsPerServer) {
    const bool first = !servers.open;
    servers = Servers();
    servers.open = std::make_unique<LoopbackServer>(nullptr);
    servers.verifying = std::make_unique<LoopbackServer>(Verifier());
    if (first) std::atexit([] { TheServers() = Servers(); });
    inputs = 0;
  }
  const LoopbackServer& server = data[0] % 2 == 0 ? *servers.open : *servers.verifying;
  Exchange(server.port(), data + 1, size - 1);
  return 0;
}
