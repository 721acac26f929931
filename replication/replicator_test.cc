// The Replicator over in-memory engines standing for Regions: a replica created, filled while
// writes continue and made ACTIVE; changes carried both ways after the delay; concurrent
// writers in three Regions converging; refusals in the service's words; a replica deleted.
#include "replication/replicator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "ddb/number.h"

namespace ddb::replication {
namespace {

using namespace std::chrono_literals;

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(int64_t n) {
  return AttributeValue::N(NormalizeNumber(std::to_string(n)).value());
}

class ReplicatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* region : {"us-east-1", "eu-west-1", "ap-south-1", "us-east-2", "us-west-2"}) {
      EngineOptions options;
      options.in_memory = true;
      engines_[region] = std::move(Engine::Open(options)).value();
    }
    ReplicatorOptions options;
    options.delay_ms = 50;
    replicator_ = std::make_unique<Replicator>(
        [this](std::string_view, std::string_view region) -> Result<Engine*> {
          auto it = engines_.find(std::string(region));
          if (it == engines_.end()) return Error::Validation("no such region");
          return it->second.get();
        },
        [](const RequestContext& ctx) { return ctx.account_id; }, options);
    replicator_->Start({});
    CreateTableRequest req;
    req.table_name = "tab";
    req.attribute_definitions = {{"pk", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    ASSERT_TRUE(E("us-east-1").CreateTable(Ctx("us-east-1"), req).ok());
  }
  void TearDown() override { replicator_.reset(); }

  Engine& E(const std::string& region) { return *engines_.at(region); }
  static RequestContext Ctx(const std::string& region) {
    RequestContext ctx;
    ctx.region = region;
    return ctx;
  }

  Result<TableDescription> Update(const std::string& region, ReplicaUpdate::Action action,
                                  const std::string& replica) {
    ReplicaUpdate u;
    u.action = action;
    u.replica.region_name = replica;
    protocol::ReplicaChanges changes;
    changes.updates = {u};
    return replicator_->UpdateReplicas(E(region), Ctx(region), "tab", changes);
  }

  // Waits (at most 10 s) until `region`'s table lists every replica ACTIVE.
  void WaitActive(const std::string& region) {
    for (int i = 0; i < 1000; ++i) {
      auto d = E(region).DescribeTable(Ctx(region), "tab");
      bool active = d.ok() && !d.value().replicas.empty();
      if (active) {
        for (const ReplicaDescription& r : d.value().replicas) {
          active = active && r.status == ReplicaStatus::kActive;
        }
      }
      if (active) return;
      std::this_thread::sleep_for(10ms);
    }
    FAIL() << "replicas of " << region << " never ACTIVE";
  }

  void Put(const std::string& region, const std::string& pk, int64_t v) {
    PutItemRequest req;
    req.table_name = "tab";
    req.item = Item{{"pk", S(pk)}, {"v", N(v)}};
    auto r = E(region).PutItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  std::map<std::string, std::string> Contents(const std::string& region) {
    std::map<std::string, std::string> out;
    ScanRequest req;
    req.table_name = "tab";
    auto r = E(region).Scan(req);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
    if (!r.ok()) return out;
    for (const Item& item : r.value().items) {
      auto from = item.find("r");
      out[item.at("pk").scalar()] =
          item.at("v").scalar() + (from == item.end() ? "" : "/" + from->second.scalar());
    }
    return out;
  }

  // Waits (at most 10 s) until every listed Region holds the same items.
  void WaitConverged(const std::vector<std::string>& regions) {
    for (int i = 0; i < 1000; ++i) {
      bool same = true;
      for (const std::string& r : regions) same = same && Contents(r) == Contents(regions[0]);
      if (same) return;
      std::this_thread::sleep_for(10ms);
    }
    for (const std::string& r : regions) EXPECT_EQ(Contents(r), Contents(regions[0])) << r;
  }

  std::map<std::string, std::unique_ptr<Engine>> engines_;
  std::unique_ptr<Replicator> replicator_;
};

TEST_F(ReplicatorTest, ANewReplicaIsFilledThenFollowsBothWays) {
  for (int i = 0; i < 300; ++i) Put("us-east-1", "old" + std::to_string(i), i);
  auto created = Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1");
  ASSERT_TRUE(created.ok()) << created.error().message();
  EXPECT_EQ(created.value().table_status, TableStatus::kUpdating);
  ASSERT_EQ(created.value().replicas.size(), 1u);
  EXPECT_EQ(created.value().replicas[0].region_name, "eu-west-1");
  EXPECT_EQ(created.value().global_table_version, std::optional<std::string>("2019.11.21"));
  for (int i = 0; i < 50; ++i) Put("us-east-1", "during" + std::to_string(i), i);  // while filling
  WaitActive("us-east-1");
  WaitActive("eu-west-1");
  auto there = E("eu-west-1").DescribeTable(Ctx("eu-west-1"), "tab");
  ASSERT_TRUE(there.ok());
  ASSERT_EQ(there.value().replicas.size(), 1u);
  EXPECT_EQ(there.value().replicas[0].region_name, "us-east-1");
  Put("eu-west-1", "from-eu", 1);
  Put("us-east-1", "from-us", 2);
  WaitConverged({"us-east-1", "eu-west-1"});
  EXPECT_EQ(Contents("eu-west-1").size(), 352u);
}

TEST_F(ReplicatorTest, ConcurrentWritersInThreeRegionsConverge) {
  ASSERT_TRUE(Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1").ok());
  WaitActive("us-east-1");
  ASSERT_TRUE(Update("us-east-1", ReplicaUpdate::Action::kCreate, "ap-south-1").ok());
  WaitActive("us-east-1");
  WaitActive("ap-south-1");
  std::vector<std::thread> writers;
  for (const char* region : {"us-east-1", "eu-west-1", "ap-south-1"}) {
    writers.emplace_back([this, region] {
      for (int i = 0; i < 300; ++i) {
        PutItemRequest req;
        req.table_name = "tab";
        req.item = Item{{"pk", S("k" + std::to_string(i % 10))}, {"v", N(i)}, {"r", S(region)}};
        (void)E(region).PutItem(req);
      }
    });
  }
  for (std::thread& t : writers) t.join();
  // Each Region wrote its own last values: they differ until replication ends the conflicts.
  WaitConverged({"us-east-1", "eu-west-1", "ap-south-1"});
  EXPECT_EQ(Contents("ap-south-1").size(), 10u);
}

TEST_F(ReplicatorTest, RefusalsInTheServicesWords) {
  auto own = Update("us-east-1", ReplicaUpdate::Action::kCreate, "us-east-1");
  ASSERT_FALSE(own.ok());
  EXPECT_EQ(own.error().message(),
            "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
            "DeleteTable, or UpdateTable as required.");
  auto stranger = Update("us-east-1", ReplicaUpdate::Action::kDelete, "eu-west-1");
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.error().message(),
            "Update global table operation failed because one or more replicas were not part of "
            "the global table. Please retry the request without these replicas: [eu-west-1].");
  ASSERT_TRUE(Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1").ok());
  WaitActive("us-east-1");
  auto again = Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message(),
            "Failed to create a the new replica of table with name: 'tab' because one or more "
            "replicas already existed as tables.");
}

TEST_F(ReplicatorTest, ADeletedReplicaLeavesAndItsTableGoes) {
  ASSERT_TRUE(Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1").ok());
  WaitActive("us-east-1");
  auto deleted = Update("us-east-1", ReplicaUpdate::Action::kDelete, "eu-west-1");
  ASSERT_TRUE(deleted.ok()) << deleted.error().message();
  ASSERT_EQ(deleted.value().replicas.size(), 1u);
  EXPECT_EQ(deleted.value().replicas[0].status, ReplicaStatus::kDeleting);
  auto d = E("us-east-1").DescribeTable(Ctx("us-east-1"), "tab");
  EXPECT_TRUE(d.value().replicas.empty());
  EXPECT_FALSE(d.value().global_table_version.has_value());
  EXPECT_EQ(E("eu-west-1").DescribeTable(Ctx("eu-west-1"), "tab").error().code(),
            ErrorCode::kResourceNotFound);
  Put("us-east-1", "after", 1);  // writes go on without replicas
}

// Multi-Region strong consistency: three Regions of the US set; a write is in every Region
// when it is acknowledged; two Regions writing one item at once: one of them is refused
// (ReplicatedWriteConflictException), and every Region ends the same.
TEST_F(ReplicatorTest, StronglyConsistentWritesAreEverywhereWhenAcknowledged) {
  protocol::ReplicaChanges changes;
  changes.strong = true;
  for (const char* region : {"us-east-2", "us-west-2"}) {
    ReplicaUpdate u;
    u.replica.region_name = region;
    changes.updates.push_back(u);
  }
  auto created = replicator_->UpdateReplicas(E("us-east-1"), Ctx("us-east-1"), "tab", changes);
  ASSERT_TRUE(created.ok()) << created.error().message();
  EXPECT_TRUE(created.value().multi_region_strong);
  WaitActive("us-east-1");
  for (const char* region : {"us-east-2", "us-west-2"}) {
    EXPECT_TRUE(E(region).DescribeTable(Ctx(region), "tab").value().multi_region_strong);
  }
  for (int i = 0; i < 20; ++i) {
    Put(i % 2 ? "us-east-2" : "us-east-1", "k" + std::to_string(i), i);
    // No waiting: every Region has it already.
    EXPECT_EQ(Contents("us-west-2").size(), static_cast<size_t>(i + 1));
  }
  std::atomic<int> conflicts{0}, oks{0};
  std::vector<std::thread> writers;
  for (const char* region : {"us-east-1", "us-east-2", "us-west-2"}) {
    writers.emplace_back([&, region] {
      for (int i = 0; i < 200; ++i) {
        PutItemRequest req;
        req.table_name = "tab";
        req.item = Item{{"pk", S("hot")}, {"v", N(i)}, {"r", S(region)}};
        auto r = E(region).PutItem(req);
        if (r.ok()) {
          ++oks;
        } else if (r.error().code() == ErrorCode::kReplicatedWriteConflict) {
          ++conflicts;
        } else {
          ADD_FAILURE() << r.error().message();
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(oks + conflicts, 600);
  EXPECT_GT(oks.load(), 0);
  EXPECT_EQ(Contents("us-east-1"), Contents("us-east-2"));
  EXPECT_EQ(Contents("us-east-1"), Contents("us-west-2"));
  // Transactions and Time to Live are not for such tables; nor is one more replica.
  TransactWriteItemsRequest tx;
  tx.actions.resize(1);
  tx.actions[0].kind = TransactWriteAction::Kind::kPut;
  tx.actions[0].table_name = "tab";
  tx.actions[0].item_or_key = Item{{"pk", S("t")}};
  EXPECT_EQ(E("us-east-1").TransactWriteItems(tx).error().code(), ErrorCode::kValidation);
  EXPECT_FALSE(E("us-east-1").UpdateTimeToLive("tab", {true, "exp"}).ok());
  auto more = Update("us-east-1", ReplicaUpdate::Action::kCreate, "eu-west-1");
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().message(),
            "Cannot add replicas to a global table with strong MultiRegionConsistency");
  auto one = Update("us-east-1", ReplicaUpdate::Action::kDelete, "us-west-2");
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().message(),
            "Deletion of only one table replica is not supported for global tables with "
            "MultiRegionConsistency set to STRONG.");
}

TEST_F(ReplicatorTest, StrongConsistencyRefusalsInTheServicesWords) {
  auto refused = [&](protocol::ReplicaChanges changes) {
    auto r = replicator_->UpdateReplicas(E("us-east-1"), Ctx("us-east-1"), "tab", changes);
    return r.ok() ? std::string("ok") : r.error().message();
  };
  auto create = [](const char* region) {
    ReplicaUpdate u;
    u.replica.region_name = region;
    return u;
  };
  protocol::ReplicaChanges one;
  one.strong = true;
  one.updates = {create("us-east-2")};
  EXPECT_EQ(refused(one),
            "Unsupported replica count for global tables with MultiRegionConsistency set to "
            "STRONG.");
  protocol::ReplicaChanges witness_only;
  witness_only.updates = {create("us-east-2")};
  witness_only.witness_updates = {create("us-west-2")};
  EXPECT_EQ(refused(witness_only),
            "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates "
            "parameter is present.");
  protocol::ReplicaChanges far;
  far.strong = true;
  far.updates = {create("us-east-2"), create("eu-west-1")};
  EXPECT_EQ(refused(far),
            "Unsupported Region(s) specified for global tables with MultiRegionConsistency set "
            "to STRONG: [eu-west-1].");
  // A replica and a witness.
  protocol::ReplicaChanges with_witness;
  with_witness.strong = true;
  with_witness.updates = {create("us-east-2")};
  with_witness.witness_updates = {create("us-west-2")};
  auto made = replicator_->UpdateReplicas(E("us-east-1"), Ctx("us-east-1"), "tab", with_witness);
  ASSERT_TRUE(made.ok()) << made.error().message();
  ASSERT_EQ(made.value().witnesses.size(), 1u);
  EXPECT_EQ(made.value().witnesses[0].region_name, "us-west-2");
  protocol::ReplicaChanges again;
  again.strong = true;
  EXPECT_EQ(refused(again),
            "MultiRegionConsistency parameter is unsupported on existing global table");
  protocol::ReplicaChanges another_witness;
  another_witness.witness_updates = {create("us-east-2")};
  EXPECT_EQ(refused(another_witness),
            "Cannot add replicas to a global table with strong MultiRegionConsistency");
}

}  // namespace
}  // namespace ddb::replication
