// MemoryStats: the (item count, byte size) pairs of an in-memory store (Storage::Batch's
// AddToStats, SetStats, DeleteStats), kept in a map instead of RocksDB merges.
//
// A store on disk keeps each pair as a key of the meta family, and every write merges its
// deltas into it in the write's own batch, so that a crash keeps counts and items in step.
// An in-memory store survives no crash, and there a merge cost a single-item write about
// what the item's own insert does (callgrind: ~9k of PutItem's ~81k instructions, two merges
// with a GSI). Here a batch's operations on the pairs are applied once its RocksDB write has
// succeeded, in the batch's order, and in the order of the writes themselves as far as it
// matters: adds commute, so batches of adds only may overlap; a batch that sets or deletes
// a pair runs alone (a GSI's recount sets its pair while writes add to it).
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ddb {

class MemoryStats {
 public:
  struct Op {
    enum class Kind : uint8_t { kAdd, kSet, kDelete };
    Kind kind = Kind::kAdd;
    std::string key;
    int64_t items = 0, bytes = 0;
  };

  MemoryStats();
  ~MemoryStats();
  MemoryStats(const MemoryStats&) = delete;
  MemoryStats& operator=(const MemoryStats&) = delete;

  // Runs write() (true when it succeeded) and then applies ops, in order, if it did.
  // Returns what write() returned.
  template <typename Write>
  bool Commit(const std::vector<Op>& ops, Write&& write) {
    const bool alone = !OnlyAdds(ops);
    Order order(this, alone);
    if (!write()) return false;
    Apply(ops);
    return true;
  }

  // The pair at key; {0, 0} when absent.
  std::pair<int64_t, int64_t> Get(std::string_view key) const;
  // Forgets every pair (an idle in-memory store wiped for reuse).
  void Clear();

 private:
  // Holds the order lock shared (adds) or alone (anything else) for a commit.
  class Order {
   public:
    Order(MemoryStats* stats, bool alone);
    ~Order();
    Order(const Order&) = delete;
    Order& operator=(const Order&) = delete;

   private:
    MemoryStats* stats_;
  };

  static bool OnlyAdds(const std::vector<Op>& ops);
  void Apply(const std::vector<Op>& ops);

  // Writer-preferring, so that a batch waiting to run alone is not starved by a stream of
  // overlapping batches of adds (glibc's default prefers readers).
  pthread_rwlock_t order_;
  mutable std::mutex mu_;  // guards pairs_
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> pairs_;
};

}  // namespace ddb
