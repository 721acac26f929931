#include "engine/capacity/partition_model.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "ddb/types.h"

namespace ddb {
namespace {

constexpr double kPartitionReadCeiling = 3000;
constexpr double kPartitionWriteCeiling = 1000;
constexpr double kBurstSeconds = 300;
constexpr double kWarmReadUnits = 12000;
constexpr double kWarmWriteUnits = 4000;
constexpr size_t kMaxTrackedKeys = 4096;
constexpr size_t kHottestKeys = 10;
constexpr size_t kPartitionHotKeys = 3;
// The most partitions one table or index is modelled with, whatever its throughput, size or
// heat: every loop over partitions is bounded by it. The service's quotas (40,000 read and
// write units per table, throughput_quotas.h) need 54; a split-bytes setting of a few KB and
// a large table reach it.
constexpr size_t kMaxPartitions = 4096;
// Throttles within one heat window that make a partition split.
constexpr int64_t kHeatSplitThrottles = 200;
constexpr double kHeatWindowSeconds = 10;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t, Clock::time_point now) {
  return std::chrono::duration<double>(now - t).count();
}

// A token bucket: "rate" tokens per second, holding at most "burst" seconds of them.
struct Bucket {
  double tokens = 0;
  Clock::time_point last = Clock::now();

  void Refill(double rate, double burst_seconds, Clock::time_point now) {
    double cap = rate * burst_seconds;
    tokens = std::min(cap, tokens + rate * SecondsSince(last, now));
    last = now;
  }
};

}  // namespace

struct PartitionModel::Partition {
  uint64_t start = 0;
  Bucket read, write;                  // the partition's share (provisioned) / ceiling (on demand)
  Bucket read_ceiling, write_ceiling;  // 3,000 / 1,000 units per second, no burst
  PartitionSnapshot figures;
  int64_t window_throttles = 0;
  Clock::time_point window_start = Clock::now();
  std::unordered_map<std::string, double> key_units;  // hot keys of the current heat window
};

struct PartitionModel::Resource {
  std::mutex mu;  // guards everything below
  std::string table, index;
  ResourceCapacity capacity;
  std::vector<Partition> partitions;     // ordered by start; partitions[0].start == 0
  Bucket table_read, table_write;        // the whole table's capacity (adaptive / on demand)
  double peak_read = 0, peak_write = 0;  // on demand: highest units in one second
  double second_read = 0, second_write = 0;
  Clock::time_point second_start = Clock::now();
  double consumed_read = 0, consumed_write = 0;
  int64_t read_throttles = 0, write_throttles = 0, splits = 0;
  std::unordered_map<std::string, double> key_units;

  size_t Find(uint64_t token) const {
    auto it = std::upper_bound(partitions.begin(), partitions.end(), token,
                               [](uint64_t t, const Partition& p) { return t < p.start; });
    return static_cast<size_t>(it - partitions.begin()) - 1;
  }
  double TableRate(bool write) const {
    if (!capacity.on_demand) return write ? capacity.write_units : capacity.read_units;
    double warm = write ? kWarmWriteUnits : kWarmReadUnits;
    const double rate = std::max(warm, 2 * (write ? peak_write : peak_read));
    const double max = OnDemandMax(write);
    return max > 0 ? std::min(rate, max) : rate;
  }
  double OnDemandMax(bool write) const {
    return capacity.on_demand ? (write ? capacity.max_write_units : capacity.max_read_units) : 0;
  }
  double ShareRate(bool write) const {
    double ceiling = write ? kPartitionWriteCeiling : kPartitionReadCeiling;
    if (capacity.on_demand) return ceiling;
    return std::min(ceiling, TableRate(write) / static_cast<double>(partitions.size()));
  }
};

namespace {

// The service's sizing: enough partitions for the throughput at the per-partition ceilings.
size_t InitialPartitions(const ResourceCapacity& capacity) {
  double reads = capacity.on_demand ? kWarmReadUnits : capacity.read_units;
  double writes = capacity.on_demand ? kWarmWriteUnits : capacity.write_units;
  const double n = std::ceil(reads / kPartitionReadCeiling + writes / kPartitionWriteCeiling);
  // Compared as doubles: a huge throughput (an embedded caller's, unchecked) must not
  // overflow the conversion.
  return n < 1                                     ? 1
         : n > static_cast<double>(kMaxPartitions) ? kMaxPartitions
                                                   : static_cast<size_t>(n);
}

}  // namespace

// Splits the partition with the widest hash range at its midpoint (a throughput increase).
bool PartitionModel::SplitWidest(Resource& r) {
  size_t widest = 0;
  uint64_t width = 0;
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    uint64_t end = i + 1 < r.partitions.size() ? r.partitions[i + 1].start - 1 : UINT64_MAX;
    if (end - r.partitions[i].start > width) {
      width = end - r.partitions[i].start;
      widest = i;
    }
  }
  if (width < 2 || r.partitions.size() >= kMaxPartitions) return false;
  SplitAt(r, widest, r.partitions[widest].start + width / 2 + 1);
  return true;
}

void PartitionModel::SplitAt(Resource& r, size_t i, uint64_t at) {
  Partition& p = r.partitions[i];
  // The halves share the tokens and burst credit the partition had.
  Partition right;
  right.start = at;
  p.read.tokens /= 2;
  p.write.tokens /= 2;
  right.read = p.read;
  right.write = p.write;
  right.read_ceiling.tokens = kPartitionReadCeiling;
  right.write_ceiling.tokens = kPartitionWriteCeiling;
  // Data is assumed spread evenly over the range; the counts are estimates from here on.
  right.figures.items = p.figures.items / 2;
  right.figures.bytes = p.figures.bytes / 2;
  p.figures.items -= right.figures.items;
  p.figures.bytes -= right.figures.bytes;
  p.window_throttles = 0;
  p.key_units.clear();
  r.partitions.insert(r.partitions.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(right));
  ++r.splits;
}

PartitionModel::PartitionModel(PartitionModelOptions options) : options_(options) {}
PartitionModel::~PartitionModel() = default;

std::shared_ptr<PartitionModel::Resource> PartitionModel::Get(uint32_t id, const std::string& table,
                                                              const std::string& index,
                                                              const ResourceCapacity& capacity,
                                                              std::unique_lock<std::mutex>* lock) {
  std::shared_ptr<Resource> found;
  {
    std::shared_lock read(mu_);
    auto it = resources_.find(id);
    if (it != resources_.end()) found = it->second;
  }
  if (found) {
    *lock = std::unique_lock(found->mu);
    // UpdateTable changes of throughput take effect at once; more throughput than the
    // partitions can serve adds partitions, as the service does.
    found->capacity.max_read_units = capacity.max_read_units;
    found->capacity.max_write_units = capacity.max_write_units;
    if (found->capacity.on_demand != capacity.on_demand ||
        found->capacity.read_units != capacity.read_units ||
        found->capacity.write_units != capacity.write_units) {
      found->capacity = capacity;
      size_t needed = InitialPartitions(capacity);
      while (found->partitions.size() < needed && SplitWidest(*found)) {
      }
    }
    return found;
  }
  std::unique_lock write(mu_);
  auto& slot = resources_[id];
  if (!slot) {
    slot = std::make_shared<Resource>();
    slot->table = table;
    slot->index = index;
    slot->capacity = capacity;
    size_t n = InitialPartitions(capacity);
    slot->partitions.resize(n);
    for (size_t i = 0; i < n; ++i) {
      Partition& p = slot->partitions[i];
      p.start = static_cast<uint64_t>((static_cast<unsigned __int128>(i) << 64) / n);
      // A new table starts with one second of capacity, not a full burst allowance.
      p.read.tokens = slot->ShareRate(false);
      p.write.tokens = slot->ShareRate(true);
      p.read_ceiling.tokens = kPartitionReadCeiling;
      p.write_ceiling.tokens = kPartitionWriteCeiling;
    }
    slot->table_read.tokens = slot->TableRate(false);
    slot->table_write.tokens = slot->TableRate(true);
  }
  std::shared_ptr<Resource> resource = slot;
  write.unlock();
  *lock = std::unique_lock(resource->mu);
  resource->capacity = capacity;
  return resource;
}

Status PartitionModel::Admit(uint32_t id, const std::string& table, const std::string& index,
                             const ResourceCapacity& capacity, uint64_t token, bool write) {
  if (!options_.simulate) return Status::Ok();
  // Declared before the lock so it is destroyed after it: if Drop() ran meanwhile, this is
  // the last reference, and the mutex must be unlocked before the Resource holding it dies.
  std::shared_ptr<Resource> resource;
  std::unique_lock<std::mutex> lock;
  resource = Get(id, table, index, capacity, &lock);
  Resource& r = *resource;
  Partition& p = r.partitions[r.Find(token)];
  Clock::time_point now = Clock::now();
  Bucket& share = write ? p.write : p.read;
  Bucket& ceiling = write ? p.write_ceiling : p.read_ceiling;
  Bucket& whole = write ? r.table_write : r.table_read;
  share.Refill(r.ShareRate(write), capacity.on_demand ? 1 : kBurstSeconds, now);
  ceiling.Refill(write ? kPartitionWriteCeiling : kPartitionReadCeiling, 1, now);
  whole.Refill(r.TableRate(write), capacity.on_demand ? 1 : kBurstSeconds, now);
  // Never above the partition's hard ceiling; within it, its own share (with burst credit)
  // or else unused table capacity (adaptive capacity).
  // An on-demand maximum caps the whole table (or index), whatever a partition's share.
  const bool capped = r.OnDemandMax(write) > 0 && whole.tokens <= 0;
  bool admitted = ceiling.tokens > 0 && !capped && (share.tokens > 0 || whole.tokens > 0);
  if (admitted) return Status::Ok();

  (write ? p.figures.write_throttles : p.figures.read_throttles)++;
  (write ? r.write_throttles : r.read_throttles)++;
  if (SecondsSince(p.window_start, now) > kHeatWindowSeconds) {
    p.window_start = now;
    p.window_throttles = 0;
    p.key_units.clear();
  }
  ++p.window_throttles;
  const char* kind = write ? "Write" : "Read";
  // Out of the partition's hard ceiling: a key-range limit; otherwise the table (or its
  // on-demand maximum) is what ran out.
  bool key_range = ceiling.tokens <= 0;
  if (key_range) {
    (write ? p.figures.write_key_range_throttles : p.figures.read_key_range_throttles)++;
  }
  std::string reason = std::string(index.empty() ? "Table" : "Index") + kind +
                       (key_range            ? "KeyRangeThroughputExceeded"
                        : capacity.on_demand ? "MaxOnDemandThroughputExceeded"
                                             : "ProvisionedThroughputExceeded");
  Error e(ErrorCode::kProvisionedThroughputExceeded,
          capacity.on_demand
              ? "Throughput exceeds the current capacity of your table or index. DynamoDB is "
                "automatically scaling your table or index so please try again shortly. If "
                "exceptions persist, check if you have a hot key: "
                "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
                "bp-partition-key-design.html"
          : index.empty()
              ? "The level of configured provisioned throughput for the table was exceeded. "
                "Consider increasing your provisioning level with the UpdateTable API."
              : "The level of configured provisioned throughput for one or more global "
                "secondary indexes of the table was exceeded. Consider increasing your "
                "provisioning level for the under-provisioned global secondary indexes with "
                "the UpdateTable API");
  auto detail = std::make_shared<ErrorDetail>();
  detail->throttling_reasons.push_back(
      {reason, "table/" + table + (index.empty() ? "" : "/index/" + index)});
  e.WithDetail(std::move(detail));
  return e;
}

void PartitionModel::Charge(uint32_t id, const std::string& table, const std::string& index,
                            const ResourceCapacity& capacity, uint64_t token,
                            const std::string& key, double units, bool write, int64_t item_delta,
                            int64_t byte_delta) {
  std::shared_ptr<Resource> resource;  // outlives the lock, as in Admit
  std::unique_lock<std::mutex> lock;
  resource = Get(id, table, index, capacity, &lock);
  Resource& r = *resource;
  size_t i = r.Find(token);
  Partition& p = r.partitions[i];
  Clock::time_point now = Clock::now();
  (write ? p.write : p.read).tokens -= units;
  (write ? p.write_ceiling : p.read_ceiling).tokens -= units;
  (write ? r.table_write : r.table_read).tokens -= units;
  (write ? p.figures.consumed_write_units : p.figures.consumed_read_units) += units;
  (write ? r.consumed_write : r.consumed_read) += units;
  p.figures.items += item_delta;
  p.figures.bytes += byte_delta;
  if (SecondsSince(r.second_start, now) >= 1) {
    r.peak_read = std::max(r.peak_read, r.second_read);
    r.peak_write = std::max(r.peak_write, r.second_write);
    r.second_read = r.second_write = 0;
    r.second_start = now;
  }
  (write ? r.second_write : r.second_read) += units;
  // Contributor insights: units per key, for a bounded number of keys (one lookup each).
  auto track = [&](std::unordered_map<std::string, double>& keys) {
    auto it = keys.find(key);
    if (it != keys.end()) {
      it->second += units;
    } else if (keys.size() < kMaxTrackedKeys) {
      keys.emplace(key, units);
    }
  };
  track(r.key_units);
  track(p.key_units);

  // Splits: by size at the midpoint; by heat next to a dominant key, else at the midpoint.
  bool too_big = p.figures.bytes > options_.split_bytes;
  bool too_hot = p.window_throttles >= kHeatSplitThrottles;
  uint64_t end = i + 1 < r.partitions.size() ? r.partitions[i + 1].start - 1 : UINT64_MAX;
  if ((!too_big && !too_hot) || end - p.start < 2 || r.partitions.size() >= kMaxPartitions) {
    return;
  }
  uint64_t at = p.start + (end - p.start) / 2 + 1;
  if (too_hot && !too_big) {
    double total = 0, best = 0;
    for (const auto& [k, u] : p.key_units) total += u;
    for (const auto& [k, u] : p.key_units) best = std::max(best, u);
    if (best > total / 2) {
      // One key is the heat: give it the end of a range of its own. Once it ends its
      // range, more splits cannot help (the service cannot split a key either).
      if (token == end) {
        p.window_throttles = 0;
        return;
      }
      at = token + 1;
    }
  }
  SplitAt(r, i, at);
}

void PartitionModel::Drop(uint32_t id) {
  std::unique_lock lock(mu_);
  resources_.erase(id);
}

std::vector<ResourceSnapshot> PartitionModel::Snapshot() const {
  std::shared_lock map_lock(mu_);
  std::vector<ResourceSnapshot> out;
  for (const auto& [id, r] : resources_) {
    std::lock_guard lock(r->mu);
    ResourceSnapshot s;
    s.id = id;
    s.table = r->table;
    s.index = r->index;
    s.consumed_read_units = r->consumed_read;
    s.consumed_write_units = r->consumed_write;
    s.read_throttles = r->read_throttles;
    s.write_throttles = r->write_throttles;
    s.splits = r->splits;
    s.simulated = options_.simulate;
    s.on_demand = r->capacity.on_demand;
    s.read_limit = r->TableRate(false);
    s.write_limit = r->TableRate(true);
    const Clock::time_point now = Clock::now();
    const double burst = r->capacity.on_demand ? 1 : kBurstSeconds;
    for (size_t i = 0; i < r->partitions.size(); ++i) {
      const Partition& part = r->partitions[i];
      PartitionSnapshot p = part.figures;
      p.start = part.start;
      p.end = i + 1 < r->partitions.size() ? r->partitions[i + 1].start - 1 : UINT64_MAX;
      p.read_limit = r->ShareRate(false);
      p.write_limit = r->ShareRate(true);
      if (options_.simulate) {
        // The buckets as Admit would see them now, without refilling them here.
        Bucket read = part.read, write = part.write;
        read.Refill(p.read_limit, burst, now);
        write.Refill(p.write_limit, burst, now);
        p.read_tokens = read.tokens;
        p.write_tokens = write.tokens;
      }
      s.partitions.push_back(p);
      if (!part.key_units.empty()) {
        PartitionHotKeys hot;
        hot.start = part.start;
        for (const auto& [key, units] : part.key_units) hot.keys.push_back({key, units});
        size_t k = std::min(kPartitionHotKeys, hot.keys.size());
        std::partial_sort(hot.keys.begin(), hot.keys.begin() + static_cast<std::ptrdiff_t>(k),
                          hot.keys.end(),
                          [](const HotKey& a, const HotKey& b) { return a.units > b.units; });
        hot.keys.resize(k);
        s.partition_hot_keys.push_back(std::move(hot));
      }
    }
    std::vector<HotKey> keys;
    keys.reserve(r->key_units.size());
    for (const auto& [key, units] : r->key_units) keys.push_back({key, units});
    size_t n = std::min(kHottestKeys, keys.size());
    std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n), keys.end(),
                      [](const HotKey& a, const HotKey& b) { return a.units > b.units; });
    keys.resize(n);
    s.hottest_keys = std::move(keys);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ddb
