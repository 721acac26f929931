// Contributor insights: per table or GSI with insights enabled (the table record's
// contributor_insights), the partition keys and partition + sort keys that consumed the most
// capacity units and that were throttled most, as CloudWatch Contributor Insights rules
// would rank them. Fed by the partition model's charge points (capacity_accounting.cc):
// writes with their full key, reads by partition key (a Query or Scan page is charged to its
// partition, not to each item), throttles of single-item requests. Counts are since
// insights were enabled (or the engine opened); each ranking keeps at most kMaxTracked keys,
// halving to the largest when full, so memory and cost per request are bounded.
// Thread safety: all members may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ddb {

class ContributorTracker {
 public:
  static constexpr size_t kMaxTracked = 4096;
  static constexpr size_t kTop = 10;

  // The four rankings of a resource (CloudWatch's PKC, SKC, PKT, SKT rules).
  enum Ranking { kPartitionAccessed, kSortAccessed, kPartitionThrottled, kSortThrottled };

  // Starts (or stops) tracking resource `id` (a table or index id); starting clears it.
  void SetEnabled(uint32_t id, bool enabled, bool throttled_only);
  bool enabled(uint32_t id) const {
    if (count_.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard lock(mu_);
    return resources_.count(id) > 0;
  }
  // A request on `id` consumed `units` (throttled: it was refused) for the key (pk, sk).
  // Keys are the stored key bytes. Does nothing unless `id` is tracked.
  void Record(uint32_t id, std::string_view pk, const std::string* sk, double units,
              bool throttled);
  // The top keys of one ranking, most first: (pk bytes, sk bytes or nullopt, value).
  struct Entry {
    std::string pk;
    std::optional<std::string> sk;
    double value = 0;
  };
  std::vector<Entry> Top(uint32_t id, Ranking ranking, size_t n = kTop) const;

 private:
  struct Resource {
    bool throttled_only = false;
    std::unordered_map<std::string, double> counts[4];  // key: pk, or pk_len|pk|sk
  };
  static void Add(std::unordered_map<std::string, double>* m, std::string key, double v);

  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Resource> resources_;  // guarded by mu_
  std::atomic<int> count_{0};
};

}  // namespace ddb
