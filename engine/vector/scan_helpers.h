// Threads that run parts of one caller's scan beside it: how an exact vector search over a
// large index uses more than one core. The caller splits its work into parts, takes parts
// itself as well and returns once all are done, so with every helper busy (other searches)
// a scan costs what a serial one does. Written here rather than taken from a library: the
// stack has no task pool (no TBB or OpenMP), and this is the only parallel read path.
// Thread safety: Run may be called concurrently; each call waits only for its own parts.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ddb {

class ScanHelpers {
 public:
  explicit ScanHelpers(unsigned threads);
  ~ScanHelpers();  // stops and joins the threads
  ScanHelpers(const ScanHelpers&) = delete;
  ScanHelpers& operator=(const ScanHelpers&) = delete;

  // The helper threads, not counting a caller.
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }
  // Runs fn(0) .. fn(parts - 1), on the calling thread and on helpers that are free.
  void Run(size_t parts, const std::function<void(size_t part)>& fn);

 private:
  struct Job {
    const std::function<void(size_t)>* fn = nullptr;
    size_t parts = 0;
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mu;  // with cv: done reached parts
    std::condition_variable cv;
  };
  static void Work(Job& job);
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;  // guarded by mu_
  bool stop_ = false;                       // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace ddb
