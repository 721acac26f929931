// WorkerPool: a fixed set of threads that run jobs (engine calls, which may block for up to
// ~2 s on a GSI wait) off the HTTP I/O threads, with a bounded queue.
//
// Backpressure: at most `queue_limit` jobs wait in the queue for a thread. A job submitted
// while the queue is full is parked, in submission order, and moves into the queue as soon as
// a thread takes a job; Submit never blocks and never drops a job. The parked list is bounded
// by the callers: the HTTP server submits at most one job per connection and reads nothing
// more from that connection until the job has answered, so a parked job is a connection
// waiting its turn, not buffered input.
//
// Jobs run in submission order (queue, then parked) but concurrently on up to `threads`
// threads, so they may finish in any order. A job must not throw: an exception escaping a
// job ends the process (std::terminate), as one escaping a std::thread would.
//
// Thread safety: Submit, Shutdown and the counters may be called from any thread,
// concurrently. The destructor calls Shutdown(); it must not run on a pool thread (a job
// must not destroy its own pool).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb::server {

class WorkerPool {
 public:
  using Job = std::function<void()>;

  // Starts `threads` threads. REQUIRES: threads >= 1, queue_limit >= 1.
  WorkerPool(int threads, size_t queue_limit);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();  // Shutdown(), running what is queued and parked

  // Queues `job`, or parks it when the queue is full. Returns false, destroying the job
  // unrun, once Shutdown() has begun; true otherwise (the job will run exactly once).
  bool Submit(Job job);

  // Stops accepting jobs, waits for the running ones, then runs every queued and parked job
  // (or, with discard_pending, destroys them unrun), and joins the threads. Idempotent; later
  // calls return at once. Must not be called from a job.
  void Shutdown(bool discard_pending = false);

  // Snapshots, for tests and metrics: jobs waiting in the queue (at most queue_limit), jobs
  // parked behind a full queue, and jobs running now.
  size_t queued() const;
  size_t parked() const;
  size_t running() const;
  int threads() const { return static_cast<int>(threads_.size()); }
  size_t queue_limit() const { return queue_limit_; }

 private:
  void Run();

  const size_t queue_limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // queue_ gained a job, or shutting down
  std::deque<Job> queue_;       // guarded by mu_; size() <= queue_limit_
  std::deque<Job> parked_;      // guarded by mu_; non-empty only while queue_ is full
  size_t running_ = 0;          // guarded by mu_
  bool shutting_down_ = false;  // guarded by mu_
  bool joined_ = false;         // guarded by join_mu_
  std::mutex join_mu_;          // serializes Shutdown() callers
  std::vector<std::thread> threads_;
};

}  // namespace ddb::server
