#include "server/spare_threads.h"

#include <algorithm>
#include <utility>

namespace ddb::server {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The calling thread's mark and context slot, set by Attach or by a spare at its start; null
// elsewhere.
thread_local std::atomic<int64_t>* tls_call_started = nullptr;
thread_local std::atomic<const void*>* tls_context = nullptr;

// A context slot's value while Inspect() reads the context it held.
const char kInspectingTag = 0;
const void* const kInspecting = &kInspectingTag;

}  // namespace

SpareThreads::SpareThreads(const Options& options, std::function<bool()> serve)
    : options_(options),
      serve_(std::move(serve)),
      watched_(std::max(0, options.loop_threads) + std::max(0, options.spares)),
      call_started_(new std::atomic<int64_t>[watched_]),
      context_(new std::atomic<const void*>[watched_]) {
  for (int i = 0; i < watched_; ++i) {
    call_started_[i].store(0, std::memory_order_relaxed);
    context_[i].store(nullptr, std::memory_order_relaxed);
  }
}

SpareThreads::~SpareThreads() { Stop(); }

void SpareThreads::Start() {
  if (started_ || options_.spares <= 0) return;
  started_ = true;
  monitor_ = std::thread([this] { Monitor(); });
  for (int k = 0; k < options_.spares; ++k) spares_.emplace_back([this, k] { Spare(k); });
}

void SpareThreads::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (monitor_.joinable()) monitor_.join();
  for (std::thread& t : spares_) t.join();
  spares_.clear();
}

void SpareThreads::Attach(int i) {
  if (i >= 0 && i < options_.loop_threads) {
    tls_call_started = &call_started_[i];
    tls_context = &context_[i];
  }
}

void SpareThreads::Enter(const void* context) {
  if (!tls_call_started) return;
  // Before the mark, so that Inspect(), having claimed it, sees this call's start or a later
  // one (Leave clears the mark before it clears the context).
  tls_context->store(context, std::memory_order_release);
  // Sequentially consistent, with the monitor's flag and re-check before it sleeps: either it
  // sees this call, or this call sees it asleep and wakes it.
  tls_call_started->store(NowNs(), std::memory_order_seq_cst);
  if (monitor_asleep_.load(std::memory_order_seq_cst)) WakeMonitor();
}

void SpareThreads::EnterBlocking(const void* context) {
  if (!tls_call_started) return;
  // While another loop thread is free to read the next request, blocking this one costs
  // nothing, and a hand-off would only slow a lone writer down (two wake-ups per write).
  for (int i = 0; i < options_.loop_threads; ++i) {
    if (&call_started_[i] != tls_call_started &&
        call_started_[i].load(std::memory_order_relaxed) == 0) {
      return Enter(context);
    }
  }
  tls_context->store(context, std::memory_order_release);
  const int64_t stuck_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.stuck_after).count();
  tls_call_started->store(NowNs() - stuck_ns, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> lock(mu_);
    look_now_ = true;
    monitor_asleep_.store(false, std::memory_order_seq_cst);
  }
  cv_.notify_all();
}

void SpareThreads::WakeMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    monitor_asleep_.store(false, std::memory_order_seq_cst);
  }
  cv_.notify_all();
}

void SpareThreads::Leave() {
  if (!tls_call_started) return;
  tls_call_started->store(0, std::memory_order_release);
  // Nothing can claim a null context; otherwise clear it, waiting while Inspect() reads it.
  const void* current = tls_context->load(std::memory_order_relaxed);
  while (current != nullptr) {
    if (current == kInspecting) {
      std::this_thread::yield();
      current = tls_context->load(std::memory_order_relaxed);
    } else if (tls_context->compare_exchange_weak(current, nullptr, std::memory_order_acq_rel)) {
      break;
    }
  }
}

bool SpareThreads::Inspect(int i, int64_t started_ns,
                           const std::function<void(const void*)>& read) {
  if (i < 0 || i >= watched_ || started_ns == 0) return false;
  const void* context = context_[i].load(std::memory_order_relaxed);
  if (context == nullptr || context == kInspecting ||
      !context_[i].compare_exchange_strong(context, kInspecting, std::memory_order_acquire)) {
    return false;
  }
  // Claimed: the call that set it cannot leave meanwhile. It is the call that began at
  // `started_ns` only if the mark still says so (a later call has a later start).
  const bool same_call = call_started_[i].load(std::memory_order_acquire) == started_ns;
  if (same_call) read(context);
  context_[i].store(context, std::memory_order_release);
  return same_call;
}

void SpareThreads::Monitor() {
  const int watched = std::max(0, options_.loop_threads) + options_.spares;
  const int64_t stuck_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.stuck_after).count();
  std::unique_lock<std::mutex> lock(mu_);
  std::chrono::microseconds wait = options_.idle_period;
  int64_t idle_checks = 0;
  while (true) {
    cv_.wait_for(lock, wait, [this] { return stop_.load() || look_now_; });
    if (stop_) break;
    look_now_ = false;
    const int64_t now = NowNs();
    int in_call = 0, stuck = 0;
    for (int i = 0; i < watched; ++i) {
      const int64_t started = call_started_[i].load(std::memory_order_relaxed);
      if (started == 0) continue;
      ++in_call;
      if (now - started >= stuck_ns) ++stuck;
    }
    const int wanted = std::min(stuck, options_.spares);
    // Fewer: spares above it notice after their current slice and go back to sleep.
    if (wanted_.exchange(wanted, std::memory_order_relaxed) < wanted) cv_.notify_all();
    wait = in_call > 0 ? options_.period : options_.idle_period;
    idle_checks = in_call > 0 ? 0 : idle_checks + 1;
    if (idle_checks * options_.idle_period < std::chrono::seconds(1)) continue;
    monitor_asleep_.store(true, std::memory_order_seq_cst);
    bool any = false;
    for (int i = 0; i < watched && !any; ++i) {
      any = call_started_[i].load(std::memory_order_seq_cst) != 0;
    }
    if (any) {
      monitor_asleep_.store(false, std::memory_order_seq_cst);
      continue;
    }
    cv_.wait(lock, [this] { return stop_.load() || !monitor_asleep_.load(); });
    idle_checks = 0;
  }
}

void SpareThreads::Spare(int k) {
  tls_call_started = &call_started_[std::max(0, options_.loop_threads) + k];
  tls_context = &context_[std::max(0, options_.loop_threads) + k];
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock,
             [this, k] { return stop_.load() || k < wanted_.load(std::memory_order_relaxed); });
    if (stop_) return;
    lock.unlock();
    bool serving = true;
    while (serving && !stop_ && k < wanted_.load(std::memory_order_relaxed)) serving = serve_();
    lock.lock();
    // The loop is stopped (shutting down) while a call is still stuck: do not spin.
    if (!serving) cv_.wait_for(lock, options_.period, [this] { return stop_.load(); });
  }
}

}  // namespace ddb::server
