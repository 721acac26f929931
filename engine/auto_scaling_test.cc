// Replica auto scaling settings (Engine::UpdateAutoScaling): what an update keeps, its
// refusals, and the settings' life with the table (a reopen, on-demand, a deleted index).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ddb/engine.h"
#include "engine/temp_dir_testing.h"

namespace ddb {
namespace {

std::unique_ptr<Engine> OpenAt(const std::string& dir) {
  EngineOptions options;
  options.data_dir = dir;
  options.index_status_hold_ms = 0;
  auto opened = Engine::Open(options);
  EXPECT_TRUE(opened.ok()) << opened.error().message();
  return std::move(opened).value();
}

void CreateProvisioned(Engine& e) {
  CreateTableRequest req;
  req.table_name = "tab";
  req.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  req.billing_mode = BillingMode::kProvisioned;
  req.provisioned_throughput = ProvisionedThroughput{5, 5};
  SecondaryIndexDefinition gsi;
  gsi.index_name = "by_g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  gsi.projection.projection_type = ProjectionType::kAll;
  gsi.provisioned_throughput = ProvisionedThroughput{5, 5};
  req.global_secondary_indexes = {gsi};
  auto created = e.CreateTable(RequestContext{}, req);
  ASSERT_TRUE(created.ok()) << created.error().message();
}

AutoScalingSettingsUpdate Scaling(int64_t min, int64_t max, double target) {
  AutoScalingSettingsUpdate u;
  u.minimum_units = min;
  u.maximum_units = max;
  u.policy = AutoScalingPolicy{"p", target, std::nullopt, std::nullopt, std::nullopt};
  return u;
}

class AutoScalingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenAt(dir_.path());
    CreateProvisioned(*engine_);
  }
  Result<TableDescription> Update(const TableAutoScalingUpdate& u) {
    return engine_->UpdateAutoScaling(RequestContext{}, "tab", u);
  }
  TableAutoScaling Kept() {
    auto d = engine_->DescribeTable(RequestContext{}, "tab");
    EXPECT_TRUE(d.ok());
    return d.ok() ? d->auto_scaling : TableAutoScaling{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(AutoScalingTest, AnUpdateKeepsWhatItSetsAndMergesLaterOnes) {
  TableAutoScalingUpdate u;
  u.write = Scaling(10, 100, 70);
  u.indexes.push_back({"by_g", Scaling(1, 4, 50), std::nullopt});
  ASSERT_TRUE(Update(u).ok());
  // Only the maximum changes: the rest stays.
  TableAutoScalingUpdate later;
  later.write = AutoScalingSettingsUpdate{};
  later.write->maximum_units = 200;
  ASSERT_TRUE(Update(later).ok());
  TableAutoScaling a = Kept();
  ASSERT_TRUE(a.write);
  EXPECT_EQ(a.write->minimum_units, 10);
  EXPECT_EQ(a.write->maximum_units, 200);
  ASSERT_TRUE(a.write->policy);
  EXPECT_EQ(a.write->policy->target_value, 70);
  EXPECT_FALSE(a.read);
  ASSERT_EQ(a.indexes.size(), 1u);
  EXPECT_EQ(a.indexes[0].read->maximum_units, 4);
  EXPECT_FALSE(a.indexes[0].write);
}

TEST_F(AutoScalingTest, DisablingDropsTheSettings) {
  TableAutoScalingUpdate u;
  u.read = Scaling(1, 2, 60);
  u.indexes.push_back({"by_g", std::nullopt, Scaling(1, 2, 60)});
  ASSERT_TRUE(Update(u).ok());
  TableAutoScalingUpdate off;
  off.read = AutoScalingSettingsUpdate{};
  off.read->disabled = true;
  off.indexes.push_back({"by_g", std::nullopt, off.read});
  ASSERT_TRUE(Update(off).ok());
  EXPECT_TRUE(Kept().empty());
}

TEST_F(AutoScalingTest, RefusalsChangeNothing) {
  TableAutoScalingUpdate inverted;
  inverted.write = Scaling(50, 20, 70);
  auto r = Update(inverted);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(r.error().message(), "Minimum capacity cannot be greater than maximum capacity");
  TableAutoScalingUpdate missing;
  missing.write = Scaling(1, 2, 70);
  missing.indexes.push_back({"nope", Scaling(1, 2, 70), std::nullopt});
  r = Update(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kResourceNotFound);
  EXPECT_EQ(r.error().message(), "Requested resource not found: Index: nope not found");
  EXPECT_TRUE(Kept().empty());
  r = engine_->UpdateAutoScaling(RequestContext{}, "other", missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kResourceNotFound);
}

TEST_F(AutoScalingTest, SettingsOutliveAReopenAndGoWithOnDemandOrTheirIndex) {
  TableAutoScalingUpdate u;
  u.write = Scaling(10, 100, 70.25);
  u.write->role_arn = "arn:aws:iam::1:role/r";
  u.indexes.push_back({"by_g", Scaling(1, 4, 50), Scaling(2, 8, 60)});
  ASSERT_TRUE(Update(u).ok());
  engine_.reset();
  engine_ = OpenAt(dir_.path());
  TableAutoScaling a = Kept();
  ASSERT_TRUE(a.write);
  EXPECT_EQ(a.write->role_arn, "arn:aws:iam::1:role/r");
  EXPECT_EQ(a.write->policy->target_value, 70.25);
  ASSERT_EQ(a.indexes.size(), 1u);
  EXPECT_EQ(a.indexes[0].write->maximum_units, 8);

  UpdateTableRequest drop;
  drop.table_name = "tab";
  GlobalSecondaryIndexUpdate del;
  del.kind = GlobalSecondaryIndexUpdate::Kind::kDelete;
  del.index.index_name = "by_g";
  drop.global_secondary_index_updates = {del};
  ASSERT_TRUE(engine_->UpdateTable(RequestContext{}, drop).ok());
  EXPECT_TRUE(Kept().indexes.empty());
  EXPECT_TRUE(Kept().write);

  UpdateTableRequest on_demand;
  on_demand.table_name = "tab";
  on_demand.billing_mode = BillingMode::kPayPerRequest;
  auto switched = engine_->UpdateTable(RequestContext{}, on_demand);
  ASSERT_TRUE(switched.ok()) << switched.error().message();
  EXPECT_TRUE(Kept().empty());
  auto r = Update(u);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kValidation);
}

}  // namespace
}  // namespace ddb
