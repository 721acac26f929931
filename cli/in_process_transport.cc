// The in-process transport (--data-dir): the engine opened on the directory as ddb-server
// opens it (shared namespace, the same defaults), every request through
// protocol::HandleRequest, /metrics through RenderMetricsText.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "cli/transport.h"
#include "ddb/engine.h"
#include "ddb/logger.h"
#include "protocol/handler.h"

namespace ddb::cli {
namespace {

// The engine's messages: warnings and errors only, so that the command's output stays clean.
// Until the engine is open they are kept instead, to explain a failed open in one line.
class EngineMessages {
 public:
  Logger logger() {
    return [this](LogSeverity severity, std::string_view message) {
      if (severity == LogSeverity::kInfo) return;
      std::lock_guard lock(mu_);
      if (!opened_) {
        last_error_ = std::string(message);
        return;
      }
      std::fprintf(stderr, "ddb: engine: %.*s\n", static_cast<int>(message.size()), message.data());
    };
  }
  void Opened() {
    std::lock_guard lock(mu_);
    opened_ = true;
  }
  std::string last_error() {
    std::lock_guard lock(mu_);
    return last_error_;
  }

 private:
  std::mutex mu_;
  bool opened_ = false;
  std::string last_error_;
};

class InProcessTransport final : public Transport {
 public:
  InProcessTransport(std::unique_ptr<EngineMessages> messages, std::unique_ptr<Engine> engine)
      : messages_(std::move(messages)), engine_(std::move(engine)) {}

  Result<Response> Call(std::string_view operation, std::string body) override {
    const std::string target = "DynamoDB_20120810." + std::string(operation);
    protocol::WireResponse r = protocol::HandleRequest(*engine_, ctx_, target, body);
    return Response{r.status, std::move(r.body)};
  }

  Result<std::string> Metrics() override { return protocol::RenderMetricsText(*engine_); }

  Result<Response> Admin(std::string_view, std::string_view) override {
    return Error::Validation("this command needs a running server (--endpoint), not --data-dir");
  }

  int Parallelism() const override {
    return static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  }

 private:
  std::unique_ptr<EngineMessages> messages_;  // outlives the engine, which logs to it
  std::unique_ptr<Engine> engine_;
  const RequestContext ctx_{};  // what ddb-server --auth off gives an unsigned request
};

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
  auto messages = std::make_unique<EngineMessages>();
  options.logger = messages->logger();
  Result<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) {
    const std::string logged = messages->last_error();
    return Error::Internal("cannot open " + data_dir + ": " +
                           (logged.empty() ? engine.error().message() : logged));
  }
  messages->Opened();
  return std::unique_ptr<Transport>(
      std::make_unique<InProcessTransport>(std::move(messages), std::move(engine).value()));
}

}  // namespace ddb::cli
