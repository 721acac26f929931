// Housekeeping: the thread that runs the named tasks, and the engine's list of them.
#include "engine/housekeeping.h"

#include <algorithm>

#include "engine/engine_impl.h"

namespace ddb {

Housekeeping::Housekeeping(std::vector<Task> tasks, Logger log)
    : tasks_(std::move(tasks)), log_(std::move(log)), counters_(tasks_.size()) {}

Housekeeping::~Housekeeping() { Stop(); }

void Housekeeping::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Housekeeping::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  stopping_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<HousekeepingFigures> Housekeeping::Figures() const {
  std::vector<HousekeepingFigures> figures;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    figures.push_back({.task = tasks_[i].name,
                       .rounds = counters_[i].rounds.load(),
                       .failures = counters_[i].failures.load()});
  }
  return figures;
}

void Housekeeping::Loop() {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> due(tasks_.size());
  for (size_t i = 0; i < tasks_.size(); ++i) due[i] = Clock::now() + tasks_[i].interval;
  std::unique_lock lock(mu_);
  while (!stop_) {
    const auto next = std::min_element(due.begin(), due.end());
    if (next == due.end()) {
      wake_.wait(lock, [&] { return stop_; });
      break;
    }
    if (wake_.wait_until(lock, *next, [&] { return stop_; })) break;
    lock.unlock();
    // The tasks due now, in their order; each next one interval after this round ends, so
    // that tasks of one interval keep running together.
    const Clock::time_point now = Clock::now();
    std::vector<size_t> ran;
    for (size_t i = 0; i < tasks_.size() && !stopping_; ++i) {
      if (due[i] > now) continue;
      RunRound(i);
      ran.push_back(i);
    }
    const Clock::time_point end = Clock::now();
    for (size_t i : ran) due[i] = end + tasks_[i].interval;
    lock.lock();
  }
}

void Housekeeping::RunRound(size_t task) {
  Counters& c = counters_[task];
  const Status s = tasks_[task].round();
  ++c.rounds;
  if (s.ok()) {
    if (c.failed_in_a_row > 0 && log_) {
      log_(LogSeverity::kInfo, "housekeeping task " + tasks_[task].name + " works again after " +
                                   std::to_string(c.failed_in_a_row) + " failed rounds");
    }
    c.failed_in_a_row = 0;
    return;
  }
  ++c.failures;
  if (c.failed_in_a_row++ == 0 && log_) {
    log_(LogSeverity::kError, "housekeeping task " + tasks_[task].name +
                                  " failed (retried every round): " + s.error().message());
  }
}

// The engine's tasks, in the order of a round. All run every EngineOptions::
// ttl_sweep_interval_ms (the option's name is older than the other tasks).
std::vector<Housekeeping::Task> EngineImpl::HousekeepingTasks() {
  const std::chrono::milliseconds every(options.ttl_sweep_interval_ms);
  return {
      {"expire_ttl_items", every, [this] { return ExpireTtlItems(); }},
      {"trim_stream_records", every, [this] { return TrimStreamRecords(); }},
      {"trim_kinesis_records", every, [this] { return TrimKinesisRecords(); }},
      {"expire_system_backups", every, [this] { return ExpireSystemBackups(); }},
      {"trim_history", every, [this] { return TrimHistory(); }},
      {"expire_request_tokens", every, [this] { return ExpireRequestTokens(); }},
  };
}

Status EngineImpl::TrimStreamRecords() {
  return streams->Trim(NowMs(), static_cast<uint64_t>(options.stream_retention_ms));
}

Status EngineImpl::ExpireRequestTokens() {
  return request_tokens.ForgetExpired(storage.get(), NowMs());
}

}  // namespace ddb
