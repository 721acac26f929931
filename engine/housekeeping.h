// Housekeeping: the engine's periodic background jobs, one named task per job, run one after
// another on one thread ("housekeeping") that Engine::Open starts and ~EngineImpl stops. Each
// task has its own interval and its own counters (rounds run, rounds failed: /metrics'
// ddb_housekeeping_*), and its name is what the log says of it. The engine's tasks
// (EngineImpl::HousekeepingTasks, housekeeping.cc): expire_ttl_items, trim_stream_records,
// expire_system_backups, trim_history, expire_request_tokens. What bounds each round's cost:
// docs/architecture/requests-bounds.md.
//
// A round must be bounded and should return early once the engine stops (EngineImpl::stopping):
// Stop waits for the round in progress, never for a wait. A failed round is counted, and
// logged when the task's previous round succeeded (a streak of failures is one line, and its
// end another); the next round, one interval later, is the retry.
// Thread safety: Figures may be called concurrently with anything; Start and Stop from one
// thread (the engine's owner).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ddb/error.h"
#include "ddb/logger.h"
#include "ddb/metrics.h"

namespace ddb {

class Housekeeping {
 public:
  struct Task {
    std::string name;                      // in the log and in /metrics' task label
    std::chrono::milliseconds interval{};  // from the end of one round to the next one
    std::function<Status()> round;         // one round of the job; an error is counted, logged
  };

  // `log` (may be null) receives the failures and recoveries of tasks. Nothing runs before
  // Start.
  Housekeeping(std::vector<Task> tasks, Logger log);
  ~Housekeeping();  // Stop()
  Housekeeping(const Housekeeping&) = delete;
  Housekeeping& operator=(const Housekeeping&) = delete;

  // Starts the thread: each task's first round is one interval from now.
  void Start();
  // Returns once the thread has ended: at once when it is waiting, else after the round in
  // progress (the tasks not yet begun are skipped). Idempotent.
  void Stop();

  // Every task's counters since Start, in the order of the tasks.
  std::vector<HousekeepingFigures> Figures() const;

 private:
  struct Counters {
    std::atomic<uint64_t> rounds{0};
    std::atomic<uint64_t> failures{0};
    uint64_t failed_in_a_row = 0;  // failed rounds in a row; housekeeping thread only
  };
  void Loop();
  void RunRound(size_t task);

  const std::vector<Task> tasks_;
  const Logger log_;
  std::vector<Counters> counters_;  // one per task
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace ddb
