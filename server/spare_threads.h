// SpareThreads: threads that serve an event loop (the server's io_context) only while some of
// the loop's threads are held up in long calls, so that a call blocking for seconds (a write
// waiting for the GSI applier) does not take a thread away from accepting, health checks and
// other connections, while short calls pay no handoff to another thread.
//
// Every thread that may make a long call (the loop's own threads, and the spares themselves)
// brackets it with Enter()/Leave(): two atomic stores and a load. A monitor thread looks at those
// marks every `period` (`idle_period` when nothing was in a call last time; after a second with
// no call at all it sleeps until the next Enter()) and wants one spare
// serving per call that has lasted `stuck_after` or longer (at most `spares`). A wanted spare
// calls `serve()` (one slice of loop work: io_context::run_one_for) until it is no longer
// wanted; then it sleeps on a condition variable, away from the loop, so that it is not woken
// for ordinary I/O. So a call blocked for long is compensated after about stuck_after +
// period.
//
// Each mark may carry an opaque context (what the call is: the request watchdog names it in
// its log, request_watchdog.h), which Inspect() reads while Leave() waits for it: a load and
// a compare-and-swap more per call.
//
// Thread safety: Enter/Leave from the thread making the call, Attach from a loop thread once
// at its start; Start and Stop from one owner thread; the rest from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb::server {

class SpareThreads {
 public:
  struct Options {
    // Threads of the loop that call Attach(i), i in [0, loop_threads).
    int loop_threads = 1;
    // Spare threads. 0: none (Enter and Leave still work; nothing compensates).
    int spares = 0;
    // A call this old holds its thread up. Default: 1 ms (a GetItem takes ~20 us)
    std::chrono::microseconds stuck_after{1000};
    // How often the monitor looks while calls are in progress. Default: 1 ms
    std::chrono::microseconds period{1000};
    // ... and while none was at its last look. Default: 5 ms
    std::chrono::microseconds idle_period{5000};
  };

  // `serve` runs one slice of loop work on the calling spare (io_context::run_one_for: one
  // handler, or a short timeout) and returns true, or returns false at once when the loop is
  // stopped (the spare then waits `period` before trying again). Nothing runs until Start().
  SpareThreads(const Options& options, std::function<bool()> serve);
  SpareThreads(const SpareThreads&) = delete;
  SpareThreads& operator=(const SpareThreads&) = delete;
  ~SpareThreads();  // Stop()

  // Starts the monitor and the spares (idle). Call at most once.
  void Start();
  // Stops and joins the monitor and the spares; a spare inside serve() finishes that slice
  // first. Idempotent.
  void Stop();

  // Marks the calling thread as loop thread i (its calls are then watched).
  void Attach(int i);
  // Brackets a call on a loop thread or a spare; no-ops on other threads. `context`, when not
  // null, must stay valid until Leave() returns; Inspect() may read it meanwhile.
  void Enter(const void* context = nullptr);
  void Leave();
  // Enter() for a call known to block (a write waiting for its fsync). When every other loop
  // thread is in a call too, it counts as held up at once and the monitor looks now instead
  // of at its next period, so a spare takes over within a wake-up or two rather than after
  // stuck_after; otherwise it is Enter().
  void EnterBlocking(const void* context = nullptr);

  // The watched threads (loop threads, then spares), for a watchdog's scan.
  int watched() const { return watched_; }
  // Steady-clock ns (since its epoch) when watched thread i's current call began; 0 when it
  // is in none. REQUIRES: 0 <= i < watched().
  int64_t call_started_ns(int i) const { return call_started_[i].load(std::memory_order_acquire); }
  // Calls read(context) when watched thread i is still in the call that began at
  // `started_ns` and that call has a context; its Leave() waits until read returns. Returns
  // whether read was called. For the watchdog's thread, rarely: read should be short.
  bool Inspect(int i, int64_t started_ns, const std::function<void(const void*)>& read);

  // Spares wanted now (serving or about to), for tests and logs.
  int wanted() const { return wanted_.load(std::memory_order_relaxed); }

 private:
  void Monitor();
  void Spare(int k);

  const Options options_;
  const std::function<bool()> serve_;
  const int watched_;  // loop threads + spares
  // Per watched thread (loop threads, then spares): steady-clock ns when its current call
  // began, 0 when it is in none.
  std::unique_ptr<std::atomic<int64_t>[]> call_started_;
  // Per watched thread: its current call's context (Enter), null when none; kInspecting
  // while Inspect() reads it.
  std::unique_ptr<std::atomic<const void*>[]> context_;
  std::atomic<int> wanted_{0};  // spares k < wanted_ serve; written by the monitor
  std::mutex mu_;
  std::condition_variable cv_;     // wanted_ grew, or stopping
  std::atomic<bool> stop_{false};  // set under mu_ (for cv_), read without it by spares
  // The monitor sleeps until the next Enter() after a second without calls, so that an idle
  // server does not wake 200 times a second. Set by the monitor, cleared under mu_.
  std::atomic<bool> monitor_asleep_{false};
  bool look_now_ = false;  // guarded by mu_: EnterBlocking wants the monitor to look at once
  void WakeMonitor();
  bool started_ = false;  // owner thread only
  std::thread monitor_;
  std::vector<std::thread> spares_;
};

}  // namespace ddb::server
