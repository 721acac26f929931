// ByteBudget: a fixed allowance of bytes shared by the sessions of one server (the request
// bodies being received; the responses being sent), so that many slow or large requests
// together cannot take more memory than the operator allowed. Thread-safe; reservations are plain
// counts, not allocations.
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
      if (now > capacity_ || bytes > capacity_ - now) return false;  // Reserve may overshoot
    } while (!reserved_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
    return true;
  }

  // Reserves `bytes` whatever the reservations already are: for bytes already taken (a
  // response computed), so that the count stays true and later TryReserve/Full see them.
  void Reserve(size_t bytes) { reserved_.fetch_add(bytes, std::memory_order_relaxed); }

  // Whether the reservations have reached the capacity.
  bool Full() const { return reserved() >= capacity_; }

  // REQUIRES: `bytes` were reserved and not yet released.
  void Release(size_t bytes) { reserved_.fetch_sub(bytes, std::memory_order_relaxed); }

  size_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  std::atomic<size_t> reserved_{0};
};

}  // namespace ddb::server
