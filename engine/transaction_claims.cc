#include "engine/transaction_claims.h"

#include <functional>

namespace ddb {

TransactionClaims::Shard& TransactionClaims::ShardOf(const std::string& key) {
  return shards_[std::hash<std::string>{}(key) % shards_.size()];
}

const TransactionClaims::Shard& TransactionClaims::ShardOf(const std::string& key) const {
  return shards_[std::hash<std::string>{}(key) % shards_.size()];
}

bool TransactionClaims::ClaimOne(const std::string& key, Mode mode) {
  Shard& shard = ShardOf(key);
  std::lock_guard lock(shard.mu);
  Hold& hold = shard.holds[key];
  if (hold.writer || (mode == Mode::kWrite && hold.readers > 0)) {
    if (!hold.writer && hold.readers == 0) shard.holds.erase(key);
    return false;
  }
  if (mode == Mode::kWrite) {
    hold.writer = true;
  } else {
    ++hold.readers;
  }
  claimed_keys_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void TransactionClaims::ReleaseOne(const std::string& key, Mode mode) {
  Shard& shard = ShardOf(key);
  std::lock_guard lock(shard.mu);
  auto it = shard.holds.find(key);
  if (it == shard.holds.end()) return;
  if (mode == Mode::kWrite) {
    it->second.writer = false;
  } else if (it->second.readers > 0) {
    --it->second.readers;
  }
  if (!it->second.writer && it->second.readers == 0) shard.holds.erase(it);
  claimed_keys_.fetch_sub(1, std::memory_order_relaxed);
}

std::vector<size_t> TransactionClaims::TryClaim(const std::vector<std::string>& keys, Mode mode) {
  std::vector<size_t> conflicts;
  std::vector<size_t> claimed;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (ClaimOne(keys[i], mode)) {
      claimed.push_back(i);
    } else {
      conflicts.push_back(i);
    }
  }
  if (!conflicts.empty()) {
    for (size_t i : claimed) ReleaseOne(keys[i], mode);
  }
  return conflicts;
}

void TransactionClaims::Release(const std::vector<std::string>& keys, Mode mode) {
  for (const std::string& key : keys) ReleaseOne(key, mode);
}

bool TransactionClaims::HeldForWriting(const std::string& key) const {
  if (claimed_keys_.load(std::memory_order_acquire) == 0) return false;
  const Shard& shard = ShardOf(key);
  std::lock_guard lock(shard.mu);
  auto it = shard.holds.find(key);
  return it != shard.holds.end() && it->second.writer;
}

}  // namespace ddb
