// The partition model (partition_model.h) driven directly: initial partition counts, the
// provisioned token buckets (rate, burst credit, adaptive capacity up to the per-partition
// ceiling), on-demand ceilings, size and heat splits, and the hottest-keys snapshot.
//
// The model reads the steady clock itself, so the rate tests run a real admit/charge loop
// for ~1.5 s and compare the admitted count with what the buckets allow for the time that
// actually passed. Tokens accumulate while the loop is descheduled (the share buckets keep
// up to 300 s), so a slow, loaded machine changes the count only a little; the tolerances
// are still generous, and each expectation is chosen to be far from the wrong answers
// (e.g. the share rate vs. the ceiling vs. the table rate).
#include "engine/capacity/partition_model.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ddb/types.h"
#include "engine/storage/key_codec.h"

namespace ddb {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMaxToken = std::numeric_limits<uint64_t>::max();

ResourceCapacity Provisioned(double rcu, double wcu) {
  ResourceCapacity c;
  c.on_demand = false;
  c.read_units = rcu;
  c.write_units = wcu;
  return c;
}

ResourceCapacity OnDemand() { return ResourceCapacity{}; }

PartitionModelOptions Simulating(int64_t split_bytes = int64_t{10} << 30) {
  PartitionModelOptions o;
  o.simulate = true;
  o.split_bytes = split_bytes;
  return o;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

const ResourceSnapshot& Only(const std::vector<ResourceSnapshot>& s) {
  EXPECT_EQ(s.size(), 1u);
  return s.front();
}

// Partitions must be ordered, contiguous and cover the whole 64-bit token space.
void ExpectContiguousCover(const ResourceSnapshot& r) {
  ASSERT_FALSE(r.partitions.empty());
  EXPECT_EQ(r.partitions.front().start, 0u);
  EXPECT_EQ(r.partitions.back().end, kMaxToken);
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    EXPECT_LE(r.partitions[i].start, r.partitions[i].end) << "partition " << i;
    if (i > 0) {
      EXPECT_EQ(r.partitions[i].start, r.partitions[i - 1].end + 1) << "partition " << i;
    }
  }
}

// Admits and charges 1 unit per request on one token for "seconds" seconds.
struct LoopResult {
  int64_t admitted = 0;
  int64_t throttled = 0;
  double elapsed = 0;
  std::optional<Error> first_error;
};

LoopResult RunLoop(PartitionModel& model, uint32_t id, const ResourceCapacity& cap,
                   const std::string& key, bool write, double seconds,
                   const std::string& table = "t", const std::string& index = "") {
  LoopResult r;
  uint64_t token = Xxh3Token(key);
  Clock::time_point start = Clock::now();
  while (true) {
    Clock::time_point now = Clock::now();
    r.elapsed = Seconds(start, now);
    if (r.elapsed >= seconds) break;
    Status s = model.Admit(id, table, index, cap, token, write);
    if (s.ok()) {
      model.Charge(id, table, index, cap, token, key, 1, write, 0, 0);
      ++r.admitted;
    } else {
      if (!r.first_error) r.first_error = s.error();
      ++r.throttled;
      // Do not spin: the buckets refill with time, not with attempts.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  return r;
}

// Admits (and charges 1 unit) as fast as possible until the first throttle.
int64_t DrainUntilThrottled(PartitionModel& model, uint32_t id, const ResourceCapacity& cap,
                            const std::string& key, bool write) {
  uint64_t token = Xxh3Token(key);
  int64_t n = 0;
  for (; n < 10'000'000; ++n) {
    if (!model.Admit(id, "t", "", cap, token, write).ok()) break;
    model.Charge(id, "t", "", cap, token, key, 1, write, 0, 0);
  }
  return n;
}

// ---------------------------------------------------------------------------
// Initial partitions
// ---------------------------------------------------------------------------

TEST(PartitionModel, InitialPartitionsFollowProvisionedThroughput) {
  struct Case {
    double rcu, wcu;
    size_t partitions;
  } cases[] = {
      // ceil(RCU / 3000 + WCU / 1000), at least 1.
      {1, 1, 1},        {5, 5, 1},          {3000, 0, 1},    {3001, 0, 2},   {0, 1000, 1},
      {0, 1001, 2},     {3000, 1000, 2},    {1000, 3500, 4}, {6000, 0, 2},   {12000, 4000, 8},
      {12000, 3000, 7}, {30000, 10000, 20}, {100, 100, 1},   {1500, 500, 1}, {1501, 500, 2},
  };
  for (const auto& c : cases) {
    PartitionModel model(PartitionModelOptions{});
    model.Charge(1, "t", "", Provisioned(c.rcu, c.wcu), 0, "k", 0, true, 0, 0);
    auto snap = model.Snapshot();
    const ResourceSnapshot& r = Only(snap);
    EXPECT_EQ(r.partitions.size(), c.partitions) << "RCU " << c.rcu << " WCU " << c.wcu;
    ExpectContiguousCover(r);
    EXPECT_EQ(r.splits, 0);
  }
}

TEST(PartitionModel, InitialPartitionsOfOnDemandFollowWarmThroughput) {
  // 12,000 RCU / 3,000 + 4,000 WCU / 1,000 = 8.
  PartitionModel model(PartitionModelOptions{});
  model.Charge(1, "t", "", OnDemand(), 0, "k", 0, true, 0, 0);
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ASSERT_EQ(r.partitions.size(), 8u);
  ExpectContiguousCover(r);
  // Equal slices of the token space.
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    EXPECT_EQ(r.partitions[i].start, uint64_t{i} << 61) << i;
  }
}

TEST(PartitionModel, TablesAndIndexesArePartitionedSeparately) {
  PartitionModel model(PartitionModelOptions{});
  model.Charge(1, "t", "", Provisioned(1, 1), 0, "k", 1, true, 1, 10);
  model.Charge(2, "t", "g", Provisioned(6000, 2000), 0, "k", 1, true, 1, 10);
  auto snap = model.Snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].index, "");
  EXPECT_EQ(snap[0].partitions.size(), 1u);
  EXPECT_EQ(snap[1].table, "t");
  EXPECT_EQ(snap[1].index, "g");
  EXPECT_EQ(snap[1].partitions.size(), 4u);
  model.Drop(2);
  snap = model.Snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].id, 1u);
}

TEST(PartitionModel, ChargesLandInThePartitionOfTheirToken) {
  PartitionModel model(PartitionModelOptions{});
  ResourceCapacity cap = OnDemand();  // 8 partitions of 2^61 tokens
  model.Charge(1, "t", "", cap, 0, "a", 1.5, true, 1, 100);
  model.Charge(1, "t", "", cap, (uint64_t{3} << 61) + 5, "b", 2, false, 0, 0);
  model.Charge(1, "t", "", cap, kMaxToken, "c", 3, true, 2, 300);
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ASSERT_EQ(r.partitions.size(), 8u);
  EXPECT_EQ(r.partitions[0].consumed_write_units, 1.5);
  EXPECT_EQ(r.partitions[0].items, 1);
  EXPECT_EQ(r.partitions[0].bytes, 100);
  EXPECT_EQ(r.partitions[3].consumed_read_units, 2);
  EXPECT_EQ(r.partitions[3].consumed_write_units, 0);
  EXPECT_EQ(r.partitions[7].consumed_write_units, 3);
  EXPECT_EQ(r.partitions[7].items, 2);
  EXPECT_EQ(r.consumed_write_units, 4.5);
  EXPECT_EQ(r.consumed_read_units, 2);
}

// ---------------------------------------------------------------------------
// Throttling
// ---------------------------------------------------------------------------

TEST(PartitionModel, WithoutSimulationNothingIsThrottled) {
  PartitionModel model(PartitionModelOptions{});
  EXPECT_FALSE(model.simulating());
  ResourceCapacity cap = Provisioned(1, 1);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(model.Admit(1, "t", "", cap, 42, true).ok());
    model.Charge(1, "t", "", cap, 42, "k", 10, true, 0, 0);
  }
  auto snap = model.Snapshot();
  EXPECT_EQ(Only(snap).write_throttles, 0);
  EXPECT_EQ(Only(snap).consumed_write_units, 10000);
}

TEST(PartitionModel, ProvisionedWritesAreThrottledAtTheProvisionedRate) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(1, 100);  // one partition, 100 WCU
  LoopResult r = RunLoop(model, 1, cap, "hot", /*write=*/true, 1.5);
  // A new table starts with one second of capacity, then refills at 100 units/s.
  double expected = 100 + 100 * r.elapsed;
  EXPECT_GT(r.throttled, 0);
  EXPECT_GE(r.admitted, 0.75 * expected) << "elapsed " << r.elapsed;
  EXPECT_LE(r.admitted, 1.25 * expected + 5) << "elapsed " << r.elapsed;

  ASSERT_TRUE(r.first_error.has_value());
  EXPECT_EQ(r.first_error->code(), ErrorCode::kProvisionedThroughputExceeded);
  EXPECT_EQ(r.first_error->message(),
            "The level of configured provisioned throughput for the table was exceeded. "
            "Consider increasing your provisioning level with the UpdateTable API.");
  ASSERT_NE(r.first_error->detail(), nullptr);
  ASSERT_EQ(r.first_error->detail()->throttling_reasons.size(), 1u);
  const auto& [reason, resource] = r.first_error->detail()->throttling_reasons[0];
  // One partition holding the whole table: the table's provisioned rate is the limit.
  EXPECT_EQ(reason, "TableWriteProvisionedThroughputExceeded");
  EXPECT_EQ(resource, "table/t");

  auto snap = model.Snapshot();
  EXPECT_EQ(Only(snap).write_throttles, r.throttled);
  EXPECT_EQ(Only(snap).consumed_write_units, static_cast<double>(r.admitted));
  EXPECT_EQ(Only(snap).read_throttles, 0);
}

TEST(PartitionModel, ReadsAndWritesHaveSeparateBuckets) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(50, 5);
  int64_t writes = DrainUntilThrottled(model, 1, cap, "k", /*write=*/true);
  EXPECT_GE(writes, 5);
  EXPECT_LE(writes, 10);
  // Writes are exhausted; reads still have their own 50 units.
  int64_t reads = DrainUntilThrottled(model, 1, cap, "k", /*write=*/false);
  EXPECT_GE(reads, 50);
  EXPECT_LE(reads, 60);
}

TEST(PartitionModel, IndexThrottlesNameTheIndex) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(5, 5);
  uint64_t token = Xxh3Token("g");
  Status s = Status::Ok();
  for (int i = 0; i < 100 && s.ok(); ++i) {
    s = model.Admit(7, "t", "gsi", cap, token, true);
    if (s.ok()) model.Charge(7, "t", "gsi", cap, token, "g", 1, true, 0, 0);
  }
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kProvisionedThroughputExceeded);
  EXPECT_EQ(s.error().message(),
            "The level of configured provisioned throughput for one or more global secondary "
            "indexes of the table was exceeded. Consider increasing your provisioning level for "
            "the under-provisioned global secondary indexes with the UpdateTable API");
  ASSERT_NE(s.error().detail(), nullptr);
  ASSERT_EQ(s.error().detail()->throttling_reasons.size(), 1u);
  EXPECT_EQ(s.error().detail()->throttling_reasons[0].reason,
            "IndexWriteProvisionedThroughputExceeded");
  EXPECT_EQ(s.error().detail()->throttling_reasons[0].resource, "table/t/index/gsi");
}

TEST(PartitionModel, BurstCreditKeepsUnusedCapacityBeyondOneSecond) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(1, 100);
  DrainUntilThrottled(model, 1, cap, "k", true);  // use up the first second
  Clock::time_point idle_start = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  // Idle: about 250 units of credit, more than one second's 100.
  Clock::time_point burst_start = Clock::now();
  int64_t burst = DrainUntilThrottled(model, 1, cap, "k", true);
  double idle = Seconds(idle_start, Clock::now());
  double burst_seconds = Seconds(burst_start, Clock::now());
  double expected = 100 * idle;
  EXPECT_GT(burst, 180) << "idle " << idle << " s: the credit was capped at one second?";
  EXPECT_GE(burst, 0.7 * expected - 2) << "idle " << idle;
  EXPECT_LE(burst, 1.3 * expected + 2) << "idle " << idle;
  // The spike was absorbed at once, far faster than 100 units/s.
  EXPECT_LT(burst_seconds, 1.0);
  // Then the credit is gone: the next request is throttled.
  EXPECT_FALSE(model.Admit(1, "t", "", cap, Xxh3Token("k"), true).ok());
}

// "Burst capacity can't alleviate partition-level throttling": even with plenty of credit,
// a partition serves at most 1,000 WCU per second. DISABLED: the model admits a request
// whenever the partition's share bucket has tokens, without looking at the ceiling, so a
// 1,000 WCU partition idle for 2 s absorbs ~3,000 writes at once (reported to the lead).
TEST(PartitionModel, BurstCreditCannotExceedThePartitionCeiling) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(0, 1000);  // one partition, share == ceiling
  DrainUntilThrottled(model, 1, cap, "k", true);
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  Clock::time_point start = Clock::now();
  int64_t burst = DrainUntilThrottled(model, 1, cap, "k", true);
  double seconds = Seconds(start, Clock::now());
  // The ceiling bucket holds at most one second: ~1,000 at once, not the ~2,000 of credit.
  EXPECT_LE(burst, 1000 * (1 + seconds) * 1.1 + 10) << "in " << seconds << " s";
}

TEST(PartitionModel, AdaptiveCapacityLendsUnusedTableCapacityUpToTheCeiling) {
  PartitionModel model(Simulating());
  // 12,000 / 3,000 + 3,000 / 1,000 = 7 partitions; a write share of 3,000 / 7 = 429 WCU.
  ResourceCapacity cap = Provisioned(12000, 3000);
  LoopResult r = RunLoop(model, 1, cap, "hot", true, 1.5);
  auto snap = model.Snapshot();
  ASSERT_GE(Only(snap).partitions.size(), 7u);
  // The hot partition borrows the table's unused capacity but stops at 1,000 WCU/s, the
  // per-partition ceiling (the table's 3,000 would allow more).
  double ceiling = 1000 * (1 + r.elapsed);
  double share = (3000.0 / 7) * (1 + r.elapsed);
  double table = 3000 * (1 + r.elapsed);
  EXPECT_GT(r.throttled, 0);
  EXPECT_GE(r.admitted, 0.8 * ceiling) << "share-only would be " << share;
  EXPECT_LE(r.admitted, 1.15 * ceiling + 5) << "the table rate would be " << table;
  EXPECT_GT(r.admitted, 1.5 * share);
}

TEST(PartitionModel, NoAdaptiveCapacityWhenTheTableHasNoneToLend) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(12000, 3000);  // 7 partitions, 429 WCU shares
  // Another partition has used far more than the table's capacity (e.g. a huge batch):
  // the table bucket is in debt for the next minutes.
  model.Charge(1, "t", "", cap, 0, "", 0, true, 0, 0);
  auto layout = model.Snapshot();
  auto partition_of = [&](const std::string& key) {
    uint64_t token = Xxh3Token(key);
    for (size_t i = 0; i < Only(layout).partitions.size(); ++i) {
      if (token <= Only(layout).partitions[i].end) return i;
    }
    return size_t{0};
  };
  std::string other;
  for (int i = 0; other.empty() || partition_of(other) == partition_of("hot"); ++i) {
    other = "other" + std::to_string(i);
  }
  model.Charge(1, "t", "", cap, Xxh3Token(other), other, 1e6, true, 0, 0);
  LoopResult r = RunLoop(model, 1, cap, "hot", true, 1.5);
  double share = (3000.0 / 7) * (1 + r.elapsed);
  EXPECT_GE(r.admitted, 0.75 * share);
  EXPECT_LE(r.admitted, 1.25 * share + 5) << "borrowed capacity the table did not have";
}

TEST(PartitionModel, OnDemandHotKeyIsCappedAtThePartitionCeiling) {
  PartitionModel model(Simulating());
  LoopResult r = RunLoop(model, 1, OnDemand(), "hot", true, 1.5);
  // Warm throughput is 4,000 WCU for the table, but one key lives in one partition.
  double ceiling = 1000 * (1 + r.elapsed);
  EXPECT_GT(r.throttled, 0);
  EXPECT_GE(r.admitted, 0.75 * ceiling);
  EXPECT_LE(r.admitted, 1.15 * ceiling + 5);
  ASSERT_TRUE(r.first_error.has_value());
  EXPECT_EQ(r.first_error->code(), ErrorCode::kProvisionedThroughputExceeded);
  EXPECT_EQ(r.first_error->message(),
            "Throughput exceeds the current capacity of your table or index. DynamoDB is "
            "automatically scaling your table or index so please try again shortly. If "
            "exceptions persist, check if you have a hot key: "
            "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
            "bp-partition-key-design.html");
  ASSERT_NE(r.first_error->detail(), nullptr);
  EXPECT_EQ(r.first_error->detail()->throttling_reasons.at(0).reason,
            "TableWriteKeyRangeThroughputExceeded");
}

// OnDemandThroughput's maximum caps the whole table (issue 29: MaxWriteRequestUnits 1 never
// throttled), spread over keys in different partitions, and says so in its reason.
TEST(PartitionModel, OnDemandMaximumCapsTheTable) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = OnDemand();
  cap.max_write_units = 50;
  int64_t admitted = 0, throttled = 0;
  std::optional<Error> first;
  const auto start = Clock::now();
  double elapsed = 0;
  for (int i = 0; elapsed < 1.0; ++i) {
    const std::string key = "k" + std::to_string(i % 64);
    Status s = model.Admit(1, "t", "", cap, Xxh3Token(key), true);
    if (s.ok()) {
      model.Charge(1, "t", "", cap, Xxh3Token(key), key, 1, true, 0, 0);
      ++admitted;
    } else {
      if (!first) first = s.error();
      ++throttled;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    elapsed = Seconds(start, Clock::now());
  }
  EXPECT_GT(throttled, 0);
  EXPECT_LE(admitted, 50 * (1 + elapsed) * 1.3 + 5);
  EXPECT_GE(admitted, 50 * elapsed * 0.7);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->code(), ErrorCode::kProvisionedThroughputExceeded);
  ASSERT_NE(first->detail(), nullptr);
  EXPECT_EQ(first->detail()->throttling_reasons.at(0).reason,
            "TableWriteMaxOnDemandThroughputExceeded");
  // Reads have no maximum here: a read is admitted.
  EXPECT_TRUE(model.Admit(1, "t", "", cap, Xxh3Token("k0"), false).ok());
}

TEST(PartitionModel, UpdatedThroughputTakesEffect) {
  PartitionModel model(Simulating());
  DrainUntilThrottled(model, 1, Provisioned(1, 10), "k", true);
  // UpdateTable to 1,000 WCU: the partition's share refills ten times faster... once the
  // debt of the first drain is repaid. Measure the admitted rate over ~1 s.
  LoopResult r = RunLoop(model, 1, Provisioned(1, 1000), "k", true, 1.0);
  EXPECT_GE(r.admitted, 0.6 * 1000 * r.elapsed);
  EXPECT_LE(r.admitted, 1.3 * 1000 * r.elapsed + 20);
}

TEST(PartitionModel, MoreThroughputAddsPartitions) {
  PartitionModel model(PartitionModelOptions{});
  model.Charge(1, "t", "", Provisioned(100, 100), 0, "k", 1, true, 0, 0);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 1u);
  // UpdateTable to 2,500 WCU needs ceil(2500 / 1000) = 3 partitions.
  model.Charge(1, "t", "", Provisioned(100, 2500), 0, "k", 1, true, 0, 0);
  auto snap = model.Snapshot();
  EXPECT_EQ(Only(snap).partitions.size(), 3u);
  ExpectContiguousCover(Only(snap));
  // Less throughput never merges partitions back.
  model.Charge(1, "t", "", Provisioned(100, 100), 0, "k", 1, true, 0, 0);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 3u);
}

// Issue 29: 10^12 units (accepted once, now refused by throughput_quotas.h) made the next
// request loop in SplitWidest without end. An embedded caller's model stays bounded anyway.
TEST(PartitionModel, HugeThroughputIsBoundedByTheMostPartitions) {
  PartitionModel model(PartitionModelOptions{});
  model.Charge(1, "t", "", Provisioned(1e12, 1e12), 0, "k", 1, true, 0, 0);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 4096u);
  model.Charge(2, "u", "", Provisioned(1, 1), 0, "k", 1, true, 0, 0);
  model.Charge(2, "u", "", Provisioned(1e300, 1e300), 0, "k", 1, true, 0, 0);
  for (const ResourceSnapshot& r : model.Snapshot()) {
    EXPECT_EQ(r.partitions.size(), 4096u);
    ExpectContiguousCover(r);
  }
}

// ---------------------------------------------------------------------------
// Splits
// ---------------------------------------------------------------------------

TEST(PartitionModel, SizeSplitsKeepRangesContiguous) {
  PartitionModel model(PartitionModelOptions{.simulate = false, .split_bytes = 1024});
  ResourceCapacity cap = Provisioned(1, 1);  // one partition to start with
  int64_t total_bytes = 0;
  for (int i = 0; i < 400; ++i) {
    std::string key = "user#" + std::to_string(i);
    model.Charge(1, "t", "", cap, Xxh3Token(key), key, 1, true, 1, 100);
    total_bytes += 100;
  }
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ExpectContiguousCover(r);
  // 40,000 bytes over partitions of at most 1,024: at least 40 of them.
  EXPECT_GE(r.partitions.size(), 40u);
  EXPECT_EQ(r.splits, static_cast<int64_t>(r.partitions.size()) - 1);
  int64_t bytes = 0, items = 0;
  for (const auto& p : r.partitions) {
    EXPECT_LE(p.bytes, 1024) << "partition " << p.start << " passed the threshold unsplit";
    bytes += p.bytes;
    items += p.items;
  }
  // Splits share the figures out (as estimates) but never lose or invent any.
  EXPECT_EQ(bytes, total_bytes);
  EXPECT_EQ(items, 400);
}

TEST(PartitionModel, SizeSplitIsAtTheMidpoint) {
  PartitionModel model(PartitionModelOptions{.simulate = false, .split_bytes = 1024});
  ResourceCapacity cap = Provisioned(1, 1);
  model.Charge(1, "t", "", cap, 12345, "a", 1, true, 1, 1000);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 1u);
  model.Charge(1, "t", "", cap, 12345, "a", 1, true, 1, 1000);  // 2,000 > 1,024
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[1].start, uint64_t{1} << 63);
  EXPECT_EQ(r.partitions[0].end, (uint64_t{1} << 63) - 1);
  EXPECT_EQ(r.partitions[0].bytes + r.partitions[1].bytes, 2000);
  EXPECT_EQ(r.splits, 1);
}

TEST(PartitionModel, DefaultSplitThresholdIsTenGigabytes) {
  PartitionModel model(PartitionModelOptions{});
  ResourceCapacity cap = Provisioned(1, 1);
  int64_t ten_gb = int64_t{10} << 30;
  model.Charge(1, "t", "", cap, 1, "a", 1, true, 1, ten_gb);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 1u);
  model.Charge(1, "t", "", cap, 1, "a", 1, true, 1, 1);
  EXPECT_EQ(Only(model.Snapshot()).partitions.size(), 2u);
}

TEST(PartitionModel, HeatSplitIsNextToADominantHotKey) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(1, 100);  // one partition
  const std::string hot = "the-hot-key";
  uint64_t token = Xxh3Token(hot);
  ASSERT_NE(token, kMaxToken);
  // Sustained throttling (hundreds of throttles within seconds) splits the partition.
  Clock::time_point start = Clock::now();
  int64_t splits = 0;
  while (splits == 0 && Seconds(start, Clock::now()) < 8) {
    if (model.Admit(1, "t", "", cap, token, true).ok()) {
      model.Charge(1, "t", "", cap, token, hot, 1, true, 0, 0);
      splits = Only(model.Snapshot()).splits;
    }
  }
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ASSERT_EQ(r.splits, 1) << "no heat split after " << r.write_throttles << " throttles";
  ASSERT_EQ(r.partitions.size(), 2u);
  ExpectContiguousCover(r);
  // The hot key ends the left range: the split is right after it, not at the midpoint.
  EXPECT_EQ(r.partitions[0].end, token);
  EXPECT_EQ(r.partitions[1].start, token + 1);
}

TEST(PartitionModel, HeatSplitOfSpreadKeysIsAtTheMidpoint) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(1, 100);  // one partition
  std::vector<std::string> keys;
  for (int i = 0; i < 16; ++i) keys.push_back("spread-" + std::to_string(i));
  Clock::time_point start = Clock::now();
  int64_t splits = 0;
  for (size_t n = 0; splits == 0 && Seconds(start, Clock::now()) < 8; ++n) {
    const std::string& key = keys[n % keys.size()];
    uint64_t token = Xxh3Token(key);
    if (model.Admit(1, "t", "", cap, token, true).ok()) {
      model.Charge(1, "t", "", cap, token, key, 1, true, 0, 0);
      splits = Only(model.Snapshot()).splits;
    }
  }
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  ASSERT_EQ(r.splits, 1);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[1].start, uint64_t{1} << 63);
}

TEST(PartitionModel, HeatDoesNotSplitAKeyThatAlreadyEndsItsRange) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(1, 100);
  const std::string hot = "the-hot-key";
  uint64_t token = Xxh3Token(hot);
  Clock::time_point start = Clock::now();
  // Keep the key hot for a while: the first heat split isolates it at the end of its
  // range; no later heat split can help it, so there is exactly one.
  while (Seconds(start, Clock::now()) < 2.5) {
    if (model.Admit(1, "t", "", cap, token, true).ok()) {
      model.Charge(1, "t", "", cap, token, hot, 1, true, 0, 0);
    }
  }
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  EXPECT_GT(r.write_throttles, 400);
  EXPECT_EQ(r.splits, 1);
  ExpectContiguousCover(r);
}

// ---------------------------------------------------------------------------
// Thread safety
// ---------------------------------------------------------------------------

TEST(PartitionModel, ConcurrentChargesAreAllCounted) {
  PartitionModel model(PartitionModelOptions{.simulate = false, .split_bytes = 4096});
  ResourceCapacity cap = OnDemand();
  constexpr int kThreads = 4, kCharges = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCharges; ++i) {
        std::string key = "k" + std::to_string(t) + "-" + std::to_string(i % 97);
        // Items of 10 bytes: splits happen while other threads charge.
        model.Charge(1, "t", "", cap, Xxh3Token(key), key, 1, i % 2 == 0, 1, 10);
      }
    });
  }
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) ExpectContiguousCover(Only(model.Snapshot()));
  });
  for (auto& th : threads) th.join();
  done = true;
  reader.join();
  auto snap = model.Snapshot();
  const ResourceSnapshot& r = Only(snap);
  EXPECT_EQ(r.consumed_read_units + r.consumed_write_units, kThreads * kCharges);
  int64_t items = 0, bytes = 0;
  for (const auto& p : r.partitions) {
    items += p.items;
    bytes += p.bytes;
  }
  EXPECT_EQ(items, kThreads * kCharges);
  EXPECT_EQ(bytes, int64_t{10} * kThreads * kCharges);
  EXPECT_GT(r.splits, 0);
  ExpectContiguousCover(r);
}

// DeleteTable (Drop) while requests on the table are in flight must not crash.
TEST(PartitionModel, DropWhileRequestsAreInFlight) {
  PartitionModel model(Simulating());
  ResourceCapacity cap = Provisioned(100, 100);
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; !done; ++i) {
        uint32_t id = 1 + static_cast<uint32_t>(i % 3);
        std::string key = "k" + std::to_string(t * 1000 + i % 50);
        uint64_t token = Xxh3Token(key);
        if (model.Admit(id, "t", "", cap, token, true).ok()) {
          model.Charge(id, "t", "", cap, token, key, 1, true, 1, 10);
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; !done; ++i) {
      model.Drop(1 + static_cast<uint32_t>(i % 3));
      (void)model.Snapshot();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  done = true;
  for (auto& th : threads) th.join();
  for (const auto& r : model.Snapshot()) ExpectContiguousCover(r);
}

// ---------------------------------------------------------------------------
// Contributor insights
// ---------------------------------------------------------------------------

TEST(PartitionModel, SnapshotListsTheHottestKeysFirst) {
  PartitionModel model(PartitionModelOptions{});
  ResourceCapacity cap = OnDemand();
  // 15 keys: key i consumes (i * 7 % 15 + 1) units, summed over several charges.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 15; ++i) {
      std::string key = "k" + std::to_string(i);
      model.Charge(1, "t", "", cap, Xxh3Token(key), key, (i * 7 % 15 + 1), round % 2 == 0, 0, 0);
    }
  }
  auto snap = model.Snapshot();
  const auto& hot = Only(snap).hottest_keys;
  ASSERT_EQ(hot.size(), 10u);  // the top ten
  for (size_t i = 1; i < hot.size(); ++i) {
    EXPECT_GE(hot[i - 1].units, hot[i].units) << "rank " << i;
  }
  // i * 7 % 15 == 14 for i = 2: 15 units x 3 rounds (reads and writes both count).
  EXPECT_EQ(hot[0].key, "k2");
  EXPECT_EQ(hot[0].units, 45);
  EXPECT_EQ(hot[9].units, 6 * 3);
}

TEST(PartitionModel, FewKeysAreAllListed) {
  PartitionModel model(PartitionModelOptions{});
  ResourceCapacity cap = OnDemand();
  model.Charge(1, "t", "", cap, 1, "small", 1, true, 0, 0);
  model.Charge(1, "t", "", cap, 2, "big", 9, false, 0, 0);
  auto snap = model.Snapshot();
  const auto& hot = Only(snap).hottest_keys;
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0].key, "big");
  EXPECT_EQ(hot[1].key, "small");
}

// What the web console reads besides /metrics' figures: limits, the buckets' tokens, throttles
// by reason and each partition's hottest keys.
TEST(PartitionModel, SnapshotCarriesLimitsCreditReasonsAndPartitionHotKeys) {
  PartitionModel model(Simulating());
  const ResourceCapacity capacity = Provisioned(10, 4);
  // A fresh table holds one second of its share: 10 read tokens. Reads of 1 unit run them
  // out; the next is throttled by the table's capacity, not the partition's ceiling.
  int throttled = 0;
  for (int i = 0; i < 40; ++i) {
    if (model.Admit(1, "t", "", capacity, 5, false).ok()) {
      model.Charge(1, "t", "", capacity, 5, "hot", 1, false, 0, 0);
    } else {
      ++throttled;
    }
  }
  model.Charge(1, "t", "", capacity, 6, "cold", 0.5, false, 0, 0);
  ASSERT_GT(throttled, 0);
  const ResourceSnapshot r = Only(model.Snapshot());
  EXPECT_TRUE(r.simulated);
  EXPECT_FALSE(r.on_demand);
  EXPECT_EQ(r.read_limit, 10);
  EXPECT_EQ(r.write_limit, 4);
  ASSERT_EQ(r.partitions.size(), 1u);
  const PartitionSnapshot& p = r.partitions[0];
  EXPECT_EQ(p.read_limit, 10);
  EXPECT_EQ(p.write_limit, 4);
  EXPECT_EQ(p.read_throttles, throttled);
  EXPECT_EQ(p.read_key_range_throttles, 0);
  EXPECT_LT(p.read_tokens, 10);  // spent (refilled at 10/s since)
  EXPECT_GT(p.write_tokens, 0);  // untouched: one second's worth, refilling
  ASSERT_EQ(r.partition_hot_keys.size(), 1u);
  EXPECT_EQ(r.partition_hot_keys[0].start, p.start);
  ASSERT_EQ(r.partition_hot_keys[0].keys.size(), 2u);
  EXPECT_EQ(r.partition_hot_keys[0].keys[0].key, "hot");
  EXPECT_EQ(r.partition_hot_keys[0].keys[1].key, "cold");

  // Without simulation nothing is throttled and the buckets are not reported.
  PartitionModel plain(PartitionModelOptions{});
  plain.Charge(1, "t", "", capacity, 5, "k", 1, false, 0, 0);
  const ResourceSnapshot q = Only(plain.Snapshot());
  EXPECT_FALSE(q.simulated);
  EXPECT_EQ(q.partitions[0].read_tokens, 0);
  EXPECT_EQ(q.partitions[0].read_limit, 10);
}

// On demand, a key beyond the partition's ceiling is throttled by the key range.
TEST(PartitionModel, KeyRangeThrottlesAreCountedApart) {
  PartitionModel model(Simulating());
  int throttled = 0;
  for (int i = 0; i < 200; ++i) {
    if (model.Admit(1, "t", "", OnDemand(), 5, true).ok()) {
      model.Charge(1, "t", "", OnDemand(), 5, "hot", 100, true, 0, 0);
    } else {
      ++throttled;
    }
  }
  ASSERT_GT(throttled, 0);
  const ResourceSnapshot r = Only(model.Snapshot());
  int64_t key_range = 0, all = 0;
  for (const PartitionSnapshot& p : r.partitions) {
    key_range += p.write_key_range_throttles;
    all += p.write_throttles;
    EXPECT_EQ(p.write_limit, 1000);
  }
  EXPECT_EQ(all, throttled);
  EXPECT_EQ(key_range, throttled);
}

}  // namespace
}  // namespace ddb
