#include "engine/storage/memory_stats.h"

#include <algorithm>
#include <cstdlib>

namespace ddb {

MemoryStats::MemoryStats() {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  if (pthread_rwlock_init(&order_, &attr) != 0) std::abort();  // only EAGAIN/ENOMEM
  pthread_rwlockattr_destroy(&attr);
}

MemoryStats::~MemoryStats() { pthread_rwlock_destroy(&order_); }

MemoryStats::Order::Order(MemoryStats* stats, bool alone) : stats_(stats) {
  if (alone) {
    pthread_rwlock_wrlock(&stats_->order_);
  } else {
    pthread_rwlock_rdlock(&stats_->order_);
  }
}

MemoryStats::Order::~Order() { pthread_rwlock_unlock(&stats_->order_); }

bool MemoryStats::OnlyAdds(const std::vector<Op>& ops) {
  return std::all_of(ops.begin(), ops.end(),
                     [](const Op& op) { return op.kind == Op::Kind::kAdd; });
}

void MemoryStats::Apply(const std::vector<Op>& ops) {
  std::lock_guard lock(mu_);
  for (const Op& op : ops) {
    switch (op.kind) {
      case Op::Kind::kAdd: {
        auto& [items, bytes] = pairs_[op.key];
        items += op.items;
        bytes += op.bytes;
        break;
      }
      case Op::Kind::kSet:
        pairs_[op.key] = {op.items, op.bytes};
        break;
      case Op::Kind::kDelete:
        if (auto it = pairs_.find(op.key); it != pairs_.end()) pairs_.erase(it);
        break;
    }
  }
}

std::pair<int64_t, int64_t> MemoryStats::Get(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = pairs_.find(key);
  return it == pairs_.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
}

void MemoryStats::Clear() {
  std::lock_guard lock(mu_);
  pairs_.clear();
}

}  // namespace ddb
