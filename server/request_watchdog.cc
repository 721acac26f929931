#include "server/request_watchdog.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "protocol/handler.h"
#include "server/log.h"

namespace ddb::server {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// "12.3"
std::string Seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(ns) / 1e9);
  return text;
}

std::chrono::milliseconds DefaultPeriod(std::chrono::milliseconds threshold) {
  return std::clamp(threshold / 4, std::chrono::milliseconds(50), std::chrono::milliseconds(1000));
}

}  // namespace

std::string_view RequestTableName(std::string_view body) {
  constexpr std::string_view kKey = "\"TableName\"";
  for (size_t at = body.find(kKey); at != std::string_view::npos;
       at = body.find(kKey, at + kKey.size())) {
    size_t i = at + kKey.size();
    while (i < body.size() && IsSpace(body[i])) ++i;
    if (i >= body.size() || body[i] != ':') continue;  // a value "TableName", not a key
    ++i;
    while (i < body.size() && IsSpace(body[i])) ++i;
    if (i >= body.size() || body[i] != '"') return {};
    const size_t start = i + 1;
    const size_t end = body.find_first_of("\"\\", start);
    if (end == std::string_view::npos || body[end] != '"') return {};
    return body.substr(start, end - start);
  }
  return {};
}

RequestWatchdog::RequestWatchdog(SpareThreads* calls, const Options& options, Describe describe,
                                 Warn warn)
    : calls_(calls),
      threshold_ns_(
          std::chrono::duration_cast<std::chrono::nanoseconds>(options.threshold).count()),
      period_(options.period.count() > 0 ? options.period : DefaultPeriod(options.threshold)),
      describe_(std::move(describe)),
      warn_(std::move(warn)),
      reported_(calls->watched(), 0) {}

RequestWatchdog::~RequestWatchdog() { Stop(); }

int64_t RequestWatchdog::SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RequestWatchdog::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void RequestWatchdog::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RequestWatchdog::Loop() {
  std::unique_lock<std::mutex> lock(stop_mu_);
  while (!stop_cv_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    Scan(SteadyNowNs());
    lock.lock();
  }
}

std::string RequestWatchdog::What(int i, int64_t started_ns) {
  std::string what;
  if (describe_) {
    calls_->Inspect(i, started_ns, [&](const void* context) { what = describe_(context); });
  }
  return what.empty() ? "an engine call" : what;
}

int RequestWatchdog::Scan(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  int overdue = 0;
  for (int i = 0; i < static_cast<int>(reported_.size()); ++i) {
    const int64_t started = calls_->call_started_ns(i);
    if (started == 0 || now_ns - started < threshold_ns_) continue;
    ++overdue;
    if (reported_[i] == started) continue;  // reported at an earlier scan
    reported_[i] = started;
    overdue_total_.fetch_add(1, std::memory_order_relaxed);
    protocol::RecordOverdueRequest();
    const std::string message = "request watchdog: " + What(i, started) + " still running after " +
                                Seconds(now_ns - started) + " s (threshold " +
                                Seconds(threshold_ns_) + " s)";
    if (warn_) {
      warn_(message);
    } else {
      Log(LogLevel::kWarn, message);
    }
  }
  overdue_now_.store(overdue, std::memory_order_relaxed);
  protocol::SetOverdueRequests(overdue);
  return overdue;
}

std::string RequestWatchdog::DescribeRunning(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (int i = 0; i < static_cast<int>(reported_.size()); ++i) {
    const int64_t started = calls_->call_started_ns(i);
    if (started == 0) continue;
    if (!out.empty()) out += "; ";
    out += What(i, started) + " for " + Seconds(now_ns - started) + " s";
  }
  return out;
}

}  // namespace ddb::server
