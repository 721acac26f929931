// The in-process transport (--data-dir): the engine opened on the directory as ddb-server
// opens it (shared namespace, the same defaults), every request through
// protocol::HandleRequest, /metrics through RenderMetricsText.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/transport.h"
#include "ddb/engine.h"
#include "ddb/logger.h"
#include "protocol/handler.h"

namespace ddb::cli {
namespace {

class InProcessTransport final : public Transport {
 public:
  explicit InProcessTransport(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

  Result<Response> Call(std::string_view operation, std::string body) override {
    const std::string target = "DynamoDB_20120810." + std::string(operation);
    protocol::WireResponse r = protocol::HandleRequest(*engine_, ctx_, target, body);
    return Response{r.status, std::move(r.body)};
  }

  Result<std::string> Metrics() override { return protocol::RenderMetricsText(*engine_); }

  int Parallelism() const override {
    return static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  }

 private:
  std::unique_ptr<Engine> engine_;
  const RequestContext ctx_{};  // what ddb-server --auth off gives an unsigned request
};

// Warnings and errors only: the command's own output stays clean.
Logger QuietLogger() {
  return [](LogSeverity severity, std::string_view message) {
    if (severity == LogSeverity::kInfo) return;
    std::fprintf(stderr, "ddb: engine: %.*s\n", static_cast<int>(message.size()), message.data());
  };
}

}  // namespace

Result<std::unique_ptr<Transport>> OpenInProcessTransport(const std::string& data_dir) {
  // A mistyped directory is an error, not a new empty store.
  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir, ec)) {
    return Error::Internal("no such data directory: " + data_dir);
  }
  EngineOptions options;
  options.data_dir = data_dir;
  options.s3_dir = (std::filesystem::path(data_dir) / "s3").string();  // as ddb-server's default
  options.logger = QuietLogger();
  Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) {
    return Error::Internal("cannot open " + data_dir + ": " + engine.error().message());
  }
  return std::unique_ptr<Transport>(
      std::make_unique<InProcessTransport>(std::move(engine).value()));
}

}  // namespace ddb::cli
