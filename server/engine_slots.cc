#include "server/engine_slots.h"

#include <algorithm>
#include <utility>

namespace ddb::server {

EngineSlots::EngineSlots(int slots) : slots_(std::max(1, slots)) {}

bool EngineSlots::TryAcquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (in_use_ == slots_) return false;  // parked_ is non-empty only in this state
  ++in_use_;
  return true;
}

bool EngineSlots::AcquireOrPark(Continuation continuation) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (in_use_ == slots_) {
      parked_.push_back(std::move(continuation));
      return false;
    }
    ++in_use_;
  }
  return true;  // `continuation` is destroyed here, outside the lock
}

EngineSlots::Continuation EngineSlots::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  if (parked_.empty()) {
    --in_use_;
    return nullptr;
  }
  Continuation next = std::move(parked_.front());  // takes over the slot: in_use_ unchanged
  parked_.pop_front();
  return next;
}

size_t EngineSlots::DiscardParked() {
  std::deque<Continuation> discarded;
  {
    std::lock_guard<std::mutex> lock(mu_);
    discarded.swap(parked_);
  }
  return discarded.size();  // destroyed here, outside the lock: they may own sessions
}

int EngineSlots::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t EngineSlots::parked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return parked_.size();
}

}  // namespace ddb::server
