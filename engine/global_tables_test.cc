// Global tables through the embedding API (engine.h), two in-memory engines standing for two
// Regions: the replicas' description and stream, the replication log, last-writer-wins
// application (conflicts, tombstones, a fill's stamp 0), checkpoints, and convergence when
// each Region's changes reach the other in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ddb/engine.h"
#include "ddb/number.h"

namespace ddb {
namespace {

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) {
  return AttributeValue::N(NormalizeNumber(std::to_string(n)).value());
}

std::unique_ptr<Engine> OpenEngine() {
  EngineOptions options;
  options.in_memory = true;
  auto opened = Engine::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.error().message();
  return std::move(opened).value();
}

void CreateTable(Engine& e, const std::string& region_of_other) {
  CreateTableRequest req;
  req.table_name = "tab";
  req.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  req.billing_mode = BillingMode::kPayPerRequest;
  SecondaryIndexDefinition gsi;
  gsi.index_name = "by_g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes = {gsi};
  auto created = e.CreateTable(RequestContext{}, req);
  ASSERT_TRUE(created.ok()) << created.error().message();
  ReplicaDescription other;
  other.region_name = region_of_other;
  auto set = e.SetReplicas(RequestContext{}, "tab", {other});
  ASSERT_TRUE(set.ok()) << set.error().message();
}

// Two engines standing for Regions "a" and "b", each with the table, listing the other.
std::pair<std::unique_ptr<Engine>, std::unique_ptr<Engine>> TwoRegions() {
  auto a = OpenEngine();
  auto b = OpenEngine();
  CreateTable(*a, "b");
  CreateTable(*b, "a");
  return {std::move(a), std::move(b)};
}

void Put(Engine& e, const std::string& pk, int64_t v) {
  PutItemRequest req;
  req.table_name = "tab";
  req.item = Item{{"pk", S(pk)}, {"v", N(v)}, {"g", S("g" + std::to_string(v % 3))}};
  auto r = e.PutItem(req);
  ASSERT_TRUE(r.ok()) << r.error().message();
}

void Delete(Engine& e, const std::string& pk) {
  DeleteItemRequest req;
  req.table_name = "tab";
  req.key = Item{{"pk", S(pk)}};
  ASSERT_TRUE(e.DeleteItem(req).ok());
}

std::optional<Item> Get(Engine& e, const std::string& pk) {
  GetItemRequest req;
  req.table_name = "tab";
  req.key = Item{{"pk", S(pk)}};
  req.consistent_read = true;
  auto r = e.GetItem(req);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r.value().item : std::nullopt;
}

std::vector<ReplicatedChange> LogOf(Engine& e, uint64_t after = 0) {
  auto page = e.ReadReplicationLog("tab", after, 1000);
  EXPECT_TRUE(page.ok()) << page.error().message();
  return page.ok() ? page.value().changes : std::vector<ReplicatedChange>{};
}

// Every item of the table, by key, read from the table and from its GSI.
std::map<std::string, Item> Contents(Engine& e, bool through_index = false) {
  std::map<std::string, Item> items;
  ScanRequest req;
  req.table_name = "tab";
  if (through_index) req.index_name = "by_g";
  auto r = e.Scan(req);
  EXPECT_TRUE(r.ok());
  for (const Item& item : r.value().items) items[item.at("pk").scalar()] = item;
  return items;
}

TEST(GlobalTablesTest, ReplicasTurnTheStreamOnAndAreDescribed) {
  auto a = OpenEngine();
  CreateTable(*a, "eu-west-1");
  auto d = a->DescribeTable(RequestContext{}, "tab");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d.value().replicas.size(), 1u);
  EXPECT_EQ(d.value().replicas[0].region_name, "eu-west-1");
  EXPECT_EQ(d.value().global_table_version, std::optional<std::string>("2019.11.21"));
  ASSERT_TRUE(d.value().stream_specification.has_value());
  EXPECT_EQ(d.value().stream_specification->stream_view_type, StreamViewType::kNewAndOldImages);
  UpdateTableRequest off;
  off.table_name = "tab";
  off.stream_specification = StreamSpecification{false, std::nullopt};
  auto refused = a->UpdateTable(RequestContext{}, off);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "Disabling Stream is not allowed for a Global Table replica.");
  // The last replica gone: no version, the stream stays.
  ASSERT_TRUE(a->SetReplicas(RequestContext{}, "tab", {}).ok());
  d = a->DescribeTable(RequestContext{}, "tab");
  EXPECT_TRUE(d.value().replicas.empty());
  EXPECT_FALSE(d.value().global_table_version.has_value());
  EXPECT_TRUE(d.value().stream_specification.has_value());
}

TEST(GlobalTablesTest, ALocalWriteIsLoggedStampedAndAppliedElsewhere) {
  auto [a, b] = TwoRegions();
  Put(*a, "x", 1);
  std::vector<ReplicatedChange> log = LogOf(*a);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_FALSE(log[0].replicated);
  EXPECT_GT(log[0].stamp, 0u);
  EXPECT_EQ(log[0].key, (Item{{"pk", S("x")}}));
  ASSERT_TRUE(log[0].new_image.has_value());
  auto applied = b->ApplyReplicated("tab", log[0]);
  ASSERT_TRUE(applied.ok()) << applied.error().message();
  EXPECT_TRUE(applied.value());
  EXPECT_EQ(Get(*b, "x"), log[0].new_image);
  EXPECT_EQ(Contents(*b, true).size(), 1u);  // its GSI too
  // In b's log, marked as another Region's (not to be sent on).
  std::vector<ReplicatedChange> b_log = LogOf(*b);
  ASSERT_EQ(b_log.size(), 1u);
  EXPECT_TRUE(b_log[0].replicated);
  EXPECT_EQ(b_log[0].stamp, log[0].stamp);
  // Applied twice: the second time it is not newer.
  EXPECT_FALSE(b->ApplyReplicated("tab", log[0]).value());
  EXPECT_EQ(LogOf(*b).size(), 1u);
}

TEST(GlobalTablesTest, TheLaterWriteWinsInBothRegions) {
  auto [a, b] = TwoRegions();
  Put(*a, "x", 1);
  Put(*b, "x", 2);  // later: a greater stamp
  ReplicatedChange from_a = LogOf(*a).at(0);
  ReplicatedChange from_b = LogOf(*b).at(0);
  EXPECT_GT(from_b.stamp, from_a.stamp);
  EXPECT_FALSE(b->ApplyReplicated("tab", from_a).value());
  EXPECT_TRUE(a->ApplyReplicated("tab", from_b).value());
  EXPECT_EQ(Get(*a, "x"), Get(*b, "x"));
  EXPECT_EQ(Get(*a, "x")->at("v"), N(2));
}

TEST(GlobalTablesTest, ADeleteKeepsItsStampAgainstAnOlderPut) {
  auto [a, b] = TwoRegions();
  Put(*a, "x", 1);
  Put(*b, "x", 2);
  Delete(*b, "x");
  std::vector<ReplicatedChange> b_log = LogOf(*b);
  ASSERT_EQ(b_log.size(), 2u);
  EXPECT_FALSE(b_log[1].new_image.has_value());
  EXPECT_EQ(b_log[1].key, (Item{{"pk", S("x")}}));
  for (const ReplicatedChange& c : b_log) EXPECT_TRUE(a->ApplyReplicated("tab", c).value());
  EXPECT_EQ(Get(*a, "x"), std::nullopt);
  // a's own put, older than b's delete, arrives at b after it: the item stays deleted.
  EXPECT_FALSE(b->ApplyReplicated("tab", LogOf(*a).at(0)).value());
  EXPECT_EQ(Get(*b, "x"), std::nullopt);
}

TEST(GlobalTablesTest, AFillAppliesOnlyToItemsNeverWritten) {
  auto a = OpenEngine();
  CreateTable(*a, "b");
  Put(*a, "x", 1);
  ReplicatedChange fill;
  fill.key = Item{{"pk", S("x")}};
  fill.new_image = Item{{"pk", S("x")}, {"v", N(9)}};
  EXPECT_FALSE(a->ApplyReplicated("tab", fill).value());
  fill.key = Item{{"pk", S("y")}};
  fill.new_image = Item{{"pk", S("y")}, {"v", N(9)}};
  EXPECT_TRUE(a->ApplyReplicated("tab", fill).value());
  EXPECT_EQ(Get(*a, "y"), fill.new_image);
  ReplicatedChange bad;
  bad.key = Item{{"pk", N(1)}};
  EXPECT_EQ(a->ApplyReplicated("tab", bad).error().code(), ErrorCode::kValidation);
}

TEST(GlobalTablesTest, TheLogPagesAndCheckpointsAreKept) {
  auto a = OpenEngine();
  CreateTable(*a, "b");
  for (int i = 0; i < 5; ++i) Put(*a, "k" + std::to_string(i), i);
  auto page = a->ReadReplicationLog("tab", 0, 2);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page.value().changes.size(), 2u);
  auto rest = a->ReadReplicationLog("tab", page.value().next, 100);
  ASSERT_EQ(rest.value().changes.size(), 3u);
  EXPECT_EQ(rest.value().next, a->ReplicationLogEnd("tab").value());
  EXPECT_EQ(a->ReadReplicationLog("tab", rest.value().next, 100).value().changes.size(), 0u);
  EXPECT_EQ(a->ReplicationCheckpoint("tab", "b").value(), 0u);
  ASSERT_TRUE(a->SaveReplicationCheckpoint("tab", "b", rest.value().next).ok());
  EXPECT_EQ(a->ReplicationCheckpoint("tab", "b").value(), rest.value().next);
  EXPECT_EQ(a->ReadReplicationLog("nope", 0, 1).error().code(), ErrorCode::kResourceNotFound);
}

TEST(GlobalTablesTest, ASnapshotCarriesItemsAndTombstonesWithTheirStamps) {
  auto [a, b] = TwoRegions();
  Put(*a, "x", 1);
  Put(*a, "y", 2);
  ReplicatedChange old_y = LogOf(*a).at(1);
  Delete(*a, "y");
  Put(*a, "z", 3);
  std::vector<ReplicatedChange> snapshot;
  std::string cursor;
  int pages = 0;
  do {
    auto page = a->ReadReplicaSnapshot("tab", cursor, 1);
    ASSERT_TRUE(page.ok()) << page.error().message();
    snapshot.insert(snapshot.end(), page.value().changes.begin(), page.value().changes.end());
    cursor = page.value().cursor;
    ASSERT_LT(++pages, 20);
  } while (!cursor.empty());
  ASSERT_EQ(snapshot.size(), 3u);  // x and z, then y's tombstone
  EXPECT_FALSE(snapshot.back().new_image.has_value());
  EXPECT_EQ(snapshot.back().key, (Item{{"pk", S("y")}}));
  for (const ReplicatedChange& c : snapshot) {
    EXPECT_GT(c.stamp, 0u);
    ASSERT_TRUE(b->ApplyReplicated("tab", c).ok());
  }
  EXPECT_EQ(Contents(*a), Contents(*b));
  EXPECT_FALSE(b->ApplyReplicated("tab", old_y).value());  // older than the delete
  EXPECT_EQ(a->ReadReplicaSnapshot("tab", "bogus", 1).error().code(), ErrorCode::kValidation);
}

TEST(GlobalTablesTest, ABatchTakesDistinctItemsUpToARepeat) {
  auto [a, b] = TwoRegions();
  Put(*a, "x", 1);
  Put(*a, "y", 2);
  Put(*a, "x", 3);
  std::vector<ReplicatedChange> log = LogOf(*a);
  ASSERT_EQ(log.size(), 3u);
  auto taken = b->ApplyReplicatedBatch("tab", log);
  ASSERT_TRUE(taken.ok()) << taken.error().message();
  EXPECT_EQ(taken.value(), 2u);  // x's second change waits for the next run
  EXPECT_EQ(Get(*b, "x")->at("v"), N(1));
  taken = b->ApplyReplicatedBatch("tab", {log.begin() + 2, log.end()});
  EXPECT_EQ(taken.value(), 1u);
  EXPECT_EQ(Contents(*a), Contents(*b));
  // Run again: taken, and nothing changes (no longer newer).
  EXPECT_EQ(b->ApplyReplicatedBatch("tab", {log[1]}).value(), 1u);
  EXPECT_EQ(LogOf(*b).size(), 3u);
}

// Random writes in two Regions, each Region's own changes then applied to the other in a
// random order: both end with the same items, each the one of its key's latest write (that
// wrote anything).
TEST(GlobalTablesTest, ConcurrentWritesConvergeInAnyOrder) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    auto [a, b] = TwoRegions();
    std::mt19937 rng(seed);
    // The latest write of each key that changed its Region's item (-1: a delete). Deleting
    // an item its Region does not have writes nothing, so there is nothing to replicate.
    std::map<std::string, int64_t> last;
    std::map<std::string, bool> in_a, in_b;  // what each Region holds before replication
    for (int i = 0; i < 300; ++i) {
      const bool to_a = rng() % 2;
      Engine& e = to_a ? *a : *b;
      std::map<std::string, bool>& held = to_a ? in_a : in_b;
      std::string pk = "k" + std::to_string(rng() % 20);
      if (rng() % 4 == 0) {
        Delete(e, pk);
        if (held[pk]) last[pk] = -1;
        held[pk] = false;
      } else {
        Put(e, pk, i);
        last[pk] = i;
        held[pk] = true;
      }
    }
    auto own = [](std::vector<ReplicatedChange> log) {
      std::erase_if(log, [](const ReplicatedChange& c) { return c.replicated; });
      return log;
    };
    std::vector<ReplicatedChange> from_a = own(LogOf(*a));
    std::vector<ReplicatedChange> from_b = own(LogOf(*b));
    std::shuffle(from_a.begin(), from_a.end(), rng);
    std::shuffle(from_b.begin(), from_b.end(), rng);
    for (const ReplicatedChange& c : from_a) ASSERT_TRUE(b->ApplyReplicated("tab", c).ok());
    for (const ReplicatedChange& c : from_b) ASSERT_TRUE(a->ApplyReplicated("tab", c).ok());
    EXPECT_EQ(Contents(*a), Contents(*b)) << "seed " << seed;
    std::map<std::string, Item> a_items = Contents(*a);
    for (const auto& [pk, v] : last) {
      auto it = a_items.find(pk);
      if (v < 0) {
        EXPECT_TRUE(it == a_items.end()) << pk;
      } else {
        ASSERT_TRUE(it != a_items.end()) << pk;
        EXPECT_EQ(it->second.at("v"), N(v)) << pk;
      }
    }
    EXPECT_EQ(Contents(*a, true), Contents(*a)) << "seed " << seed;
    EXPECT_EQ(Contents(*b, true), Contents(*b)) << "seed " << seed;
    EXPECT_EQ(a->DescribeTable(RequestContext{}, "tab").value().item_count,
              b->DescribeTable(RequestContext{}, "tab").value().item_count);
  }
}

}  // namespace
}  // namespace ddb
