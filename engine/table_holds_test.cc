// TableHolds: statuses shown for a while and then gone, DELETING descriptions and names, and
// the service's refusal texts.
#include "engine/table_holds.h"

#include <gtest/gtest.h>

#include <thread>

namespace ddb {
namespace {

TEST(TableHoldsTest, DisabledHoldsNothing) {
  TableHolds holds(0);
  holds.Hold("t", TableStatus::kCreating);
  EXPECT_FALSE(holds.enabled());
  EXPECT_EQ(holds.StatusOf("t"), std::nullopt);
}

TEST(TableHoldsTest, StatusesLastTheHold) {
  TableHolds holds(200);
  holds.Hold("created", TableStatus::kCreating);
  holds.Hold("updated", TableStatus::kUpdating);
  EXPECT_EQ(holds.StatusOf("created"), TableStatus::kCreating);
  EXPECT_EQ(holds.StatusOf("updated"), TableStatus::kUpdating);
  EXPECT_EQ(holds.StatusOf("other"), std::nullopt);
  EXPECT_EQ(holds.Deleting("created"), std::nullopt);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(holds.StatusOf("created"), std::nullopt);
  EXPECT_EQ(holds.StatusOf("updated"), std::nullopt);
}

TEST(TableHoldsTest, DeletingTablesKeepTheirDescriptionAndAreListed) {
  TableHolds holds(200);
  TableDescription d;
  d.table_name = "b";
  d.table_status = TableStatus::kActive;
  holds.Hold("b", TableStatus::kDeleting, d);
  d.table_name = "a";
  holds.Hold("a", TableStatus::kDeleting, d);
  holds.Hold("c", TableStatus::kCreating);
  ASSERT_TRUE(holds.Deleting("b").has_value());
  EXPECT_EQ(holds.Deleting("b")->table_status, TableStatus::kDeleting);
  EXPECT_EQ(holds.DeletingNames(), (std::vector<std::string>{"a", "b"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(holds.Deleting("b"), std::nullopt);
  EXPECT_TRUE(holds.DeletingNames().empty());
}

TEST(TableHoldsTest, RefusalTexts) {
  EXPECT_EQ(TableHolds::InUse(TableStatus::kCreating, "t").message(),
            "Attempt to change a resource which is still in use: Table is being created: t");
  EXPECT_EQ(TableHolds::InUse(TableStatus::kUpdating, "t").message(),
            "Attempt to change a resource which is still in use: Table is being updated: t");
  EXPECT_EQ(TableHolds::InUse(TableStatus::kDeleting, "t").code(), ErrorCode::kResourceInUse);
}

}  // namespace
}  // namespace ddb
