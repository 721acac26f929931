#include "server/shutdown_deadline.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "server/log.h"

namespace ddb::server {

ShutdownDeadline::ShutdownDeadline(int exit_status, std::string what)
    : exit_status_(exit_status), what_(std::move(what)) {}

ShutdownDeadline::~ShutdownDeadline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    disarmed_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ShutdownDeadline::Arm(std::chrono::milliseconds after) {
  std::lock_guard<std::mutex> lock(mu_);
  if (armed_ || disarmed_) return;
  armed_ = true;
  const auto deadline = std::chrono::steady_clock::now() + after;
  thread_ = std::thread([this, deadline, after] {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_until(lock, deadline, [this] { return disarmed_; })) return;
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.1f", static_cast<double>(after.count()) / 1000);
    Log(LogLevel::kError,
        "shutdown did not end within " + std::string(seconds) + " s of its start (" + what_ +
            "): something still runs (see the warnings above); " + "exiting with status " +
            std::to_string(exit_status_) +
            " without closing the store (every acknowledged write is in its write-ahead log, "
            "replayed at the next start)");
    _exit(exit_status_);
  });
}

}  // namespace ddb::server
