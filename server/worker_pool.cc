#include "server/worker_pool.h"

#include <algorithm>
#include <utility>

namespace ddb::server {

WorkerPool::WorkerPool(int threads, size_t queue_limit)
    : queue_limit_(std::max<size_t>(1, queue_limit)) {
  const int n = std::max(1, threads);
  threads_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::Submit(Job job) {
  bool accepted = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!shutting_down_) {
      if (queue_.size() < queue_limit_) {
        queue_.push_back(std::move(job));
        accepted = true;
      } else {
        // Full: every thread is busy with queue_limit_ jobs behind it, so no thread needs
        // waking; the next one to take a job moves this one into the queue.
        parked_.push_back(std::move(job));
        return true;
      }
    }
  }
  if (!accepted) return false;  // refused: destroyed here, outside the lock (it may own a session)
  // notify_one without a waiting thread costs no system call (glibc checks for waiters), so
  // a busy pool pays only the mutex above per job.
  cv_.notify_one();
  return true;
}

void WorkerPool::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return !queue_.empty() || shutting_down_; });
    if (queue_.empty()) return;  // shutting down and nothing left (parked_ is empty too)
    Job job = std::move(queue_.front());
    queue_.pop_front();
    if (!parked_.empty()) {
      queue_.push_back(std::move(parked_.front()));
      parked_.pop_front();
    }
    ++running_;
    lock.unlock();
    job();
    job = nullptr;  // its captures (a session) are released before the lock is taken again
    lock.lock();
    --running_;
  }
}

void WorkerPool::Shutdown(bool discard_pending) {
  std::lock_guard<std::mutex> join_lock(join_mu_);
  if (joined_) return;
  std::deque<Job> discarded_queue;
  std::deque<Job> discarded_parked;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
    if (discard_pending) {
      discarded_queue.swap(queue_);
      discarded_parked.swap(parked_);
    }
  }
  cv_.notify_all();
  // Destroyed unrun, outside mu_: a job's captures may take other locks when released.
  discarded_queue.clear();
  discarded_parked.clear();
  for (std::thread& t : threads_) t.join();
  joined_ = true;
}

size_t WorkerPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t WorkerPool::parked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return parked_.size();
}

size_t WorkerPool::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

}  // namespace ddb::server
