// The partition model: each table's (and each GSI's) key space is divided into partitions,
// contiguous ranges of the 64-bit partition-key token (key_codec.h), and every request is
// accounted to the partition its key falls in. This is what /metrics and the heat-map tool
// show, and, with simulation on, what throttles requests like the service does:
//
//  - initial partitions: provisioned ceil(RCU/3000 + WCU/1000); on demand from the warm
//    throughput (12,000 RCU / 4,000 WCU -> 8); at least 1;
//  - per-partition ceilings of 3,000 RCU and 1,000 WCU per second;
//  - provisioned: each partition gets its share of the table's RCU/WCU as a token bucket
//    that also keeps up to 300 s of unused capacity (burst credit); a partition out of
//    tokens may borrow unused table capacity up to the ceilings (adaptive capacity);
//  - on demand: the table may use up to the larger of the warm throughput and twice its
//    previous peak, each partition up to the ceilings;
//  - a partition splits when its data passes a size threshold (10 GB by default) or under
//    sustained throttling (at the midpoint, or right after a dominant hot key);
//  - at most 4,096 partitions per table or index, whatever the throughput asks for.
//
// Requests are admitted while their partition has tokens; the units they actually cost
// are charged afterwards, so a bucket may go into debt, which later requests repay.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "ddb/error.h"
#include "ddb/metrics.h"

namespace ddb {

struct PartitionModelOptions {
  // Throttle over-limit requests. Default: false (a development endpoint never throttles)
  bool simulate = false;
  // A partition holding more item bytes than this splits. Default: 10 GB
  int64_t split_bytes = int64_t{10} * 1024 * 1024 * 1024;
};

// What a table or GSI is provisioned with (on demand: zeros).
struct ResourceCapacity {
  bool on_demand = true;
  double read_units = 0;   // per second, provisioned
  double write_units = 0;  // per second, provisioned
  // On demand: the table's or index's OnDemandThroughput maximums, per second (0: none),
  // past which requests are throttled (MaxOnDemandThroughputExceeded).
  double max_read_units = 0;
  double max_write_units = 0;
};

class PartitionModel {
 public:
  explicit PartitionModel(PartitionModelOptions options);
  ~PartitionModel();

  bool simulating() const { return options_.simulate; }

  // Whether a request on "token" of the resource may run now. Errors (only when
  // simulating): kProvisionedThroughputExceeded / kThrottling with the service's message.
  Status Admit(uint32_t id, const std::string& table, const std::string& index,
               const ResourceCapacity& capacity, uint64_t token, bool write);

  // Records what a request cost and how it changed the partition's data.
  void Charge(uint32_t id, const std::string& table, const std::string& index,
              const ResourceCapacity& capacity, uint64_t token, const std::string& key,
              double units, bool write, int64_t item_delta, int64_t byte_delta);

  // Forgets a deleted table or index.
  void Drop(uint32_t id);

  std::vector<ResourceSnapshot> Snapshot() const;

 private:
  struct Partition;
  struct Resource;
  // The resource, created on first use, with its own mutex locked into *lock. Requests on
  // different tables and indexes do not contend.
  // The returned pointer keeps the resource alive even if Drop() runs meanwhile, so the
  // caller must release *lock before the pointer (declare the pointer first).
  std::shared_ptr<Resource> Get(uint32_t id, const std::string& table, const std::string& index,
                                const ResourceCapacity& capacity,
                                std::unique_lock<std::mutex>* lock);

  // Splits the widest partition at its midpoint; false when none can split (one-token
  // ranges, or the resource has its most partitions). REQUIRES: r.mu held
  static bool SplitWidest(Resource& r);
  static void SplitAt(Resource& r, size_t i, uint64_t at);  // REQUIRES: r.mu held

  PartitionModelOptions options_;
  mutable std::shared_mutex mu_;                             // guards the map, not the resources
  std::map<uint32_t, std::shared_ptr<Resource>> resources_;  // guarded by mu_
};

}  // namespace ddb
