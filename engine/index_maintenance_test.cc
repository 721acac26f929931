// The change sequencer and the GSI applier: SafePoint under out-of-order commits, wake-up on
// commit, thousands of concurrent writes all landing in the index, a backlog left by a stop
// (or a crash) applied after a restart, an unreadable record skipped and counted without
// stalling writers, and a change log that holds only what is not yet applied.
#include "engine/index_maintenance.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "ddb/stored_item.h"
#include "engine/catalog.h"
#include "engine/change_log.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/storage.h"
#include "engine/temp_dir_testing.h"

namespace ddb {
namespace {

TEST(ChangeSequencer, SafePointWaitsForTheOldestWriteInFlight) {
  ChangeSequencer seq(10);
  EXPECT_EQ(seq.SafePoint(), 10u);
  uint64_t a = seq.Begin(), b = seq.Begin(), c = seq.Begin();
  EXPECT_EQ(a, 11u);
  EXPECT_EQ(seq.SafePoint(), 10u);
  seq.End(c);  // commits out of order: nothing past a is safe yet
  seq.End(b);
  EXPECT_EQ(seq.SafePoint(), 10u);
  seq.End(a);
  EXPECT_EQ(seq.SafePoint(), 13u);
  EXPECT_EQ(seq.Peek(), 14u);
}

TEST(ChangeSequencer, WaitBeyondWakesOnCommitNotOnTimeout) {
  ChangeSequencer seq(0);
  uint64_t s = seq.Begin();
  auto start = std::chrono::steady_clock::now();
  std::thread committer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seq.End(s);
  });
  seq.WaitBeyond(0, /*timeout_ms=*/10000);
  auto waited = std::chrono::steady_clock::now() - start;
  committer.join();
  EXPECT_EQ(seq.SafePoint(), 1u);
  EXPECT_LT(waited, std::chrono::seconds(5));
}

using testing::TempDir;

CreateTableRequest GsiTable() {
  CreateTableRequest req;
  req.table_name = "tbl";
  req.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
  req.key_schema = {{"pk", KeyType::kHash}};
  req.billing_mode = BillingMode::kPayPerRequest;
  SecondaryIndexDefinition gsi;
  gsi.index_name = "by-g";
  gsi.key_schema = {{"g", KeyType::kHash}};
  req.global_secondary_indexes = {gsi};
  return req;
}

class GsiApplierTest : public ::testing::Test {
 protected:
  void Open(int propagation_delay_ms = 0) {
    engine_.reset();
    EngineOptions options;
    options.data_dir = dir_.path();
    options.gsi_propagation_delay_ms = propagation_delay_ms;
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
  }

  void Put(const std::string& pk, const std::string& g) {
    PutItemRequest req;
    req.table_name = "tbl";
    req.item = {{"pk", AttributeValue::S(pk)}, {"g", AttributeValue::S(g)}};
    auto r = engine_->PutItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  // The primary keys the index lists under g = "value".
  std::set<std::string> IndexKeys(const std::string& value) {
    std::set<std::string> keys;
    QueryRequest q;
    q.table_name = "tbl";
    q.index_name = "by-g";
    q.key_condition_expression = "g = :g";
    q.expression_attribute_values = {{":g", AttributeValue::S(value)}};
    for (;;) {
      auto r = engine_->Query(q);
      EXPECT_TRUE(r.ok()) << r.error().message();
      if (!r.ok()) break;
      for (const Item& item : r->items) keys.insert(item.at("pk").scalar());
      if (!r->last_evaluated_key) break;
      q.exclusive_start_key = r->last_evaluated_key;
    }
    return keys;
  }

  int64_t IndexCount() {
    auto d = engine_->DescribeTable(ctx_, "tbl");
    EXPECT_TRUE(d.ok());
    return d.ok() ? d->global_secondary_indexes.at(0).item_count : -1;
  }

  // Appends change records by hand, as a crash after commit and before apply leaves them.
  // Returns the sequences used. REQUIRES: the engine is closed.
  std::vector<uint64_t> AppendRecords(const std::vector<std::pair<std::string, std::string>>& items,
                                      bool garbage_first) {
    auto storage = Storage::Open(StorageOptions{dir_.path(), false});
    EXPECT_TRUE(storage.ok());
    auto catalog = Catalog::Load(storage->get());
    EXPECT_TRUE(catalog.ok());
    auto table = (*catalog)->Find("tbl");
    auto watermark = (*storage)->GetCounter(kGsiWatermarkKey);
    auto last_key = (*storage)->LastKey(Cf::kChanges);
    uint64_t next = static_cast<uint64_t>(watermark.value()) + 1;
    if (last_key.value()) {
      std::string_view k = *last_key.value();
      uint64_t last = 0;
      EXPECT_TRUE(GetFixedBE(&k, 8, &last));
      next = std::max(next, last + 1);
    }
    std::vector<uint64_t> used;
    Storage::Batch batch(**storage);
    if (garbage_first) {
      batch.Put(Cf::kChanges, ChangeKey(next), "not a change record");
      used.push_back(next++);
    }
    for (const auto& [pk, g] : items) {
      Item item = {{"pk", AttributeValue::S(pk)}, {"g", AttributeValue::S(g)}};
      std::string key = EncodeItemKey(table->id, table->key_format, item.at("pk"), nullptr);
      // The item itself, as its committed write left it, and its change record.
      std::string encoded;
      EncodeItem(item, &encoded);
      batch.Put(Cf::kItems, key, encoded);
      batch.Put(Cf::kChanges, ChangeKey(next),
                EncodeChange(table->id, /*commit_time_ms=*/1, key, std::nullopt, item));
      used.push_back(next++);
    }
    EXPECT_TRUE((*storage)->Write(batch).ok());
    return used;
  }

  TempDir dir_;
  RequestContext ctx_;
  std::unique_ptr<Engine> engine_;
};

class GsiModesTest : public GsiApplierTest, public ::testing::WithParamInterface<int> {};

// Both GSI paths: entries written with the items (delay 0, the default) and entries fed
// through the change log and the applier (simulated lag).
INSTANTIATE_TEST_SUITE_P(InlineAndApplier, GsiModesTest, ::testing::Values(0, 1));

TEST_P(GsiModesTest, ConcurrentWritersAllLandInTheIndex) {
  Open(GetParam());
  ASSERT_TRUE(engine_->CreateTable(ctx_, GsiTable()).ok());
  constexpr int kThreads = 8, kWrites = 500, kKeys = 400;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        PutItemRequest req;
        req.table_name = "tbl";
        // Every key is overwritten many times; the last writer of a key picks its g.
        int key = (t * kWrites + i) % kKeys;
        req.item = {
            {"pk", AttributeValue::S("k" + std::to_string(key))},
            {"g", AttributeValue::S(i + 1 == kWrites ? "final" : "g" + std::to_string(i % 7))}};
        if (!engine_->PutItem(req).ok()) ++failures;
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  for (int i = 0; i < 500 && engine_->GetMetrics().gsi_pending_changes > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The index holds exactly one entry per key, under the key's last g.
  EXPECT_EQ(IndexCount(), kKeys);
  std::set<std::string> all;
  for (const std::string& g : {"final", "g0", "g1", "g2", "g3", "g4", "g5", "g6"}) {
    for (const std::string& k : IndexKeys(g)) EXPECT_TRUE(all.insert(k).second) << k;
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kKeys));
  EngineMetrics m = engine_->GetMetrics();
  EXPECT_EQ(m.gsi_pending_changes, 0u);
  EXPECT_EQ(m.gsi_wait_timeouts, 0u);
}

TEST_P(GsiModesTest, AGsiAddedWhileWritersRunIsExactWhenActive) {
  Open(GetParam());
  CreateTableRequest plain = GsiTable();
  plain.global_secondary_indexes.clear();
  plain.attribute_definitions.resize(1);
  ASSERT_TRUE(engine_->CreateTable(ctx_, plain).ok());
  for (int i = 0; i < 3000; ++i) Put("k" + std::to_string(i), "g" + std::to_string(i % 5));
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; !done; ++i) {
        int key = (i * 7 + t * 1000) % 3500;  // some new keys, most rewritten
        PutItemRequest req;
        req.table_name = "tbl";
        req.item = {{"pk", AttributeValue::S("k" + std::to_string(key))}};
        if ((i + t) % 4 != 0) req.item["g"] = AttributeValue::S("g" + std::to_string(i % 5));
        EXPECT_TRUE(engine_->PutItem(req).ok());
      }
    });
  }
  UpdateTableRequest add;
  add.table_name = "tbl";
  add.attribute_definitions = {{"g", ScalarType::kS}};
  GlobalSecondaryIndexUpdate create;
  create.index = GsiTable().global_secondary_indexes.at(0);
  add.global_secondary_index_updates = {create};
  ASSERT_TRUE(engine_->UpdateTable(ctx_, add).ok());
  auto active = [&] {
    auto d = engine_->DescribeTable(ctx_, "tbl");
    return d.ok() && d->global_secondary_indexes.at(0).index_status == IndexStatus::kActive;
  };
  for (int i = 0; i < 1000 && !active(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  done = true;
  for (auto& w : writers) w.join();
  ASSERT_TRUE(active());
  for (int i = 0; i < 500 && engine_->GetMetrics().gsi_pending_changes > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Every item with g is listed once, under its g, and the count agrees.
  ScanRequest scan;
  scan.table_name = "tbl";
  scan.consistent_read = true;
  std::map<std::string, std::string> expected;
  for (;;) {
    auto r = engine_->Scan(scan);
    ASSERT_TRUE(r.ok());
    for (const Item& item : r->items) {
      if (item.count("g")) expected[item.at("pk").scalar()] = item.at("g").scalar();
    }
    if (!r->last_evaluated_key) break;
    scan.exclusive_start_key = r->last_evaluated_key;
  }
  std::map<std::string, std::string> listed;
  for (int g = 0; g < 5; ++g) {
    for (const std::string& k : IndexKeys("g" + std::to_string(g))) {
      EXPECT_TRUE(listed.emplace(k, "g" + std::to_string(g)).second) << k;
    }
  }
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(IndexCount(), static_cast<int64_t>(expected.size()));
}

TEST_F(GsiApplierTest, BacklogLeftByAStopIsAppliedAfterRestart) {
  // With simulated lag nothing is applied before the engine closes: the records stay in the
  // log above the watermark, as after a crash.
  Open(/*propagation_delay_ms=*/3600 * 1000);
  ASSERT_TRUE(engine_->CreateTable(ctx_, GsiTable()).ok());
  for (int i = 0; i < 100; ++i) Put("k" + std::to_string(i), i < 60 ? "a" : "b");
  EXPECT_TRUE(IndexKeys("a").empty());
  EXPECT_GT(engine_->GetMetrics().gsi_pending_changes, 0u);
  Open();
  for (int i = 0; i < 200 && IndexKeys("a").size() < 60; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(IndexKeys("a").size(), 60u);
  EXPECT_EQ(IndexKeys("b").size(), 40u);
  EXPECT_EQ(IndexCount(), 100);  // each change applied exactly once
  // New writes continue after the restored sequences and land too.
  Put("k0", "b");
  EXPECT_EQ(IndexKeys("b").size(), 41u);
  EXPECT_EQ(engine_->GetMetrics().gsi_pending_changes, 0u);
}

TEST_F(GsiApplierTest, RecordsCommittedBeforeACrashAreAppliedOnce) {
  Open();
  ASSERT_TRUE(engine_->CreateTable(ctx_, GsiTable()).ok());
  Put("x", "a");
  engine_.reset();
  AppendRecords({{"y", "a"}, {"z", "b"}}, /*garbage_first=*/false);
  Open();
  Put("w", "a");  // answers once everything before it is applied
  EXPECT_EQ(IndexKeys("a"), (std::set<std::string>{"w", "x", "y"}));
  EXPECT_EQ(IndexKeys("b"), (std::set<std::string>{"z"}));
  EXPECT_EQ(IndexCount(), 4);
  // Reopening again applies nothing twice: the watermark moved with the entries.
  Open();
  Put("v", "b");
  EXPECT_EQ(IndexCount(), 5);
}

TEST_F(GsiApplierTest, AnUnreadableRecordIsSkippedAndCountedWithoutStallingWriters) {
  Open();
  ASSERT_TRUE(engine_->CreateTable(ctx_, GsiTable()).ok());
  engine_.reset();
  AppendRecords({{"y", "a"}}, /*garbage_first=*/true);
  Open();
  auto start = std::chrono::steady_clock::now();
  Put("w", "a");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::milliseconds(1500)) << "the write waited for a stuck applier";
  EXPECT_EQ(IndexKeys("a"), (std::set<std::string>{"w", "y"}));
  EngineMetrics m = engine_->GetMetrics();
  EXPECT_EQ(m.gsi_unreadable_changes, 1u);
  EXPECT_EQ(m.gsi_wait_timeouts, 0u);
  EXPECT_EQ(m.gsi_pending_changes, 0u);
}

TEST_F(GsiApplierTest, TheChangeLogHoldsOnlyWhatIsNotYetApplied) {
  Open(/*propagation_delay_ms=*/1);  // GSIs fed by the change log and the applier
  ASSERT_TRUE(engine_->CreateTable(ctx_, GsiTable()).ok());
  for (int i = 0; i < 3000; ++i) Put("k" + std::to_string(i % 50), "g" + std::to_string(i % 3));
  for (int i = 0; i < 500 && engine_->GetMetrics().gsi_pending_changes > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(IndexCount(), 50);
  engine_.reset();
  auto storage = Storage::Open(StorageOptions{dir_.path(), false});
  ASSERT_TRUE(storage.ok());
  // The store keeps what its WAL replay rebuilt in memtables; a flush applies the trim's
  // range deletion to the records (readers of the change log ignore it until then).
  ASSERT_TRUE((*storage)->FlushAll().ok());
  size_t live = 0;
  ASSERT_TRUE((*storage)
                  ->ForEach(Cf::kChanges, "", "",
                            [&](std::string_view, std::string_view) {
                              ++live;
                              return true;
                            })
                  .ok());
  // A clean stop trims everything applied; a flush drops the covered records.
  EXPECT_EQ(live, 0u) << "applied records must be trimmed";
  EXPECT_GE((*storage)->GetCounter(kGsiWatermarkKey).value(), 3000);
}

}  // namespace
}  // namespace ddb

namespace ddb {
namespace {

TEST(ChangeRecordCodec, EncodedImagesGiveTheSameBytesAsItems) {
  Item old_item = {{"pk", AttributeValue::S("a")}, {"n", AttributeValue::N("1")}};
  Item new_item = {{"pk", AttributeValue::S("a")}, {"n", AttributeValue::N("2")}};
  std::string old_encoded, new_encoded;
  EncodeItem(old_item, &old_encoded);
  EncodeItem(new_item, &new_encoded);
  EXPECT_EQ(EncodeChange(7, 99, "key", old_item, new_item),
            EncodeChange(7, 99, "key", &old_encoded, &new_encoded));
  EXPECT_EQ(EncodeChange(7, 99, "key", std::nullopt, new_item),
            EncodeChange(7, 99, "key", nullptr, &new_encoded));
  ChangeRecord r;
  ASSERT_TRUE(DecodeChange(ChangeKey(5), EncodeChange(7, 99, "key", &old_encoded, nullptr), &r));
  EXPECT_EQ(r.sequence, 5u);
  EXPECT_EQ(r.table_id, 7u);
  EXPECT_EQ(r.old_image, old_item);
  EXPECT_FALSE(r.new_image);
}

}  // namespace
}  // namespace ddb
