// RequestWatchdog: notices engine calls that run far too long (a stuck call: an engine bug
// spinning, a lock never released) and says so, once per call: a warning naming its operation,
// table (when the request names one cheaply) and elapsed time, and two figures in /metrics
// (ddb_requests_overdue_total, ddb_requests_overdue). It only observes: it cannot end a call;
// a shutdown that always ends is main.cc's (shutdown_deadline.h).
//
// It reads SpareThreads' marks (when each watched thread's current call began) from its own
// thread every `period`, so the calls pay nothing for it beyond the marks SpareThreads sets
// anyway; a call is reported between `threshold` and `threshold + period` after it began.
// What a call is comes from the context it passed to SpareThreads::Enter, through `describe`,
// read only for calls found overdue.
//
// Thread safety: Start and Stop from one owner thread; Scan, DescribeRunning and the
// accessors from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/spare_threads.h"

namespace ddb::server {

// The value of the first "TableName" member of a DynamoDB request body, found by a plain
// scan (no JSON parse), or "" when there is none or it is not a plain string. Cheap enough for
// a log line; not a validation.
std::string_view RequestTableName(std::string_view body);

class RequestWatchdog {
 public:
  // A call's context (SpareThreads::Enter) in words: "GetItem on table \"T\"". Called while
  // the call cannot leave (SpareThreads::Inspect): it may read what the context points to.
  using Describe = std::function<std::string(const void* context)>;
  // Where the warnings go. Default (null): Log(LogLevel::kWarn, message).
  using Warn = std::function<void(const std::string& message)>;

  struct Options {
    // A call this old is overdue. Default: 30 s (--request-watchdog-seconds)
    std::chrono::milliseconds threshold{30000};
    // How often the thread looks. Default: 0, meaning threshold / 4 within [50 ms, 1 s]
    std::chrono::milliseconds period{0};
  };

  // `calls` must outlive the watchdog. Nothing runs until Start().
  RequestWatchdog(SpareThreads* calls, const Options& options, Describe describe,
                  Warn warn = nullptr);
  RequestWatchdog(const RequestWatchdog&) = delete;
  RequestWatchdog& operator=(const RequestWatchdog&) = delete;
  ~RequestWatchdog();  // Stop()

  // Starts the thread that calls Scan every period. Call at most once.
  void Start();
  // Stops and joins it. Idempotent.
  void Stop();

  // One look at the calls at `now_ns` (SteadyNowNs's clock): warns once about each call at
  // least `threshold` old that was not reported yet (a later call on the same thread is a new
  // call), adds them to overdue_total() and to /metrics, and sets overdue_now(). Returns
  // overdue_now(). The thread calls it; tests call it with chosen times.
  int Scan(int64_t now_ns);

  // The calls in progress at `now_ns`, whatever their age, for the shutdown log:
  // "GetItem on table \"T\" for 12.3 s; ..."; "" when none.
  std::string DescribeRunning(int64_t now_ns);

  uint64_t overdue_total() const { return overdue_total_.load(std::memory_order_relaxed); }
  int overdue_now() const { return overdue_now_.load(std::memory_order_relaxed); }

  // The clock of SpareThreads' marks: steady-clock ns since its epoch.
  static int64_t SteadyNowNs();

 private:
  void Loop();
  // "GetItem on table \"T\"", or "an engine call" when slot i's call has no context or has
  // just ended. REQUIRES: mu_ held.
  std::string What(int i, int64_t started_ns);

  SpareThreads* const calls_;
  const int64_t threshold_ns_;
  const std::chrono::milliseconds period_;
  const Describe describe_;
  const Warn warn_;
  std::mutex mu_;                  // one Scan or DescribeRunning at a time; guards reported_
  std::vector<int64_t> reported_;  // per watched thread: start of the call last reported
  std::atomic<uint64_t> overdue_total_{0};
  std::atomic<int> overdue_now_{0};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // guarded by stop_mu_
  std::thread thread_;
};

}  // namespace ddb::server
