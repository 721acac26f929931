#include "engine/vector/scan_helpers.h"

namespace ddb {

ScanHelpers::ScanHelpers(unsigned threads) {
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

ScanHelpers::~ScanHelpers() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ScanHelpers::Work(Job& job) {
  for (size_t part = job.next++; part < job.parts; part = job.next++) {
    (*job.fn)(part);
    if (++job.done == job.parts) {
      std::lock_guard lock(job.mu);  // the caller checks done under it: no lost wake-up
      job.cv.notify_all();
    }
  }
}

void ScanHelpers::Run(size_t parts, const std::function<void(size_t part)>& fn) {
  if (parts <= 1 || threads_.empty()) {
    for (size_t part = 0; part < parts; ++part) fn(part);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->parts = parts;
  {
    std::lock_guard lock(mu_);
    queue_.push_back(job);
  }
  cv_.notify_all();
  Work(*job);
  std::unique_lock lock(job->mu);
  job->cv.wait(lock, [&] { return job->done.load() == parts; });
  // A helper that finds the job finished drops it from the queue; its fn is not called again.
}

void ScanHelpers::Loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = queue_.front();
      if (job->next.load() >= job->parts) {
        queue_.pop_front();
        continue;
      }
    }
    Work(*job);
  }
}

}  // namespace ddb
