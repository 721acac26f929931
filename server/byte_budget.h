// ByteBudget: a fixed allowance of bytes shared by the sessions of one server (the request
// bodies being received), so that many slow or large requests together cannot take more memory
// than the operator allowed. Thread-safe; reservations are plain counts, not allocations.
#pragma once

#include <atomic>
#include <cstddef>

namespace ddb::server {

class ByteBudget {
 public:
  explicit ByteBudget(size_t capacity) : capacity_(capacity) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Reserves `bytes` if the reservations then stay within the capacity; otherwise reserves
  // nothing and returns false.
  bool TryReserve(size_t bytes) {
    size_t now = reserved_.load(std::memory_order_relaxed);
    do {
      if (bytes > capacity_ - now) return false;  // now <= capacity_ always holds
    } while (!reserved_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
    return true;
  }

  // REQUIRES: `bytes` were reserved and not yet released.
  void Release(size_t bytes) { reserved_.fetch_sub(bytes, std::memory_order_relaxed); }

  size_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  std::atomic<size_t> reserved_{0};
};

}  // namespace ddb::server
