// The items that transactions in flight hold, so that collisions answer as the service
// answers them instead of waiting: a transaction that needs an item another transaction
// holds is cancelled with a TransactionConflict reason for that item, and a single-item
// write (PutItem, UpdateItem, DeleteItem, their PartiQL forms) to an item a TransactWriteItems
// holds fails with
// TransactionConflictException (the developer guide, "Transaction conflict handling in
// DynamoDB"). TransactGetItems holds its items for reading: reads share, a write excludes.
// The stripe locks still serialise everything that gets through (transactions.cc).
// Thread safety: all methods may be called concurrently.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ddb {

class TransactionClaims {
 public:
  enum class Mode : uint8_t { kRead, kWrite };

  // Claims every key, or none: returns the positions of the keys another transaction holds
  // in a way that excludes this one (empty when all were claimed). REQUIRES: distinct keys.
  std::vector<size_t> TryClaim(const std::vector<std::string>& keys, Mode mode);
  // Gives back what TryClaim claimed.
  void Release(const std::vector<std::string>& keys, Mode mode);
  // Whether a TransactWriteItems holds the key. One atomic load while no transaction is in
  // flight. (A TransactGetItems in flight does not refuse a single-item write: the service
  // cancels the read instead, and here the write waits for its stripe.)
  bool HeldForWriting(const std::string& key) const;

 private:
  struct Hold {
    uint32_t readers = 0;
    bool writer = false;
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, Hold> holds;  // guarded by mu
  };
  Shard& ShardOf(const std::string& key);
  const Shard& ShardOf(const std::string& key) const;
  bool ClaimOne(const std::string& key, Mode mode);
  void ReleaseOne(const std::string& key, Mode mode);

  std::atomic<int64_t> claimed_keys_{0};
  std::array<Shard, 64> shards_;
};

}  // namespace ddb
