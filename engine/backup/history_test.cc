// Item history (history.h): the record codec, ItemsAsOf's merge of items now and history
// undone, ChangedKeys, the clock; and end to end through the Engine API, backups and
// point-in-time restores of an in-memory engine (engine/backup/backups.cc).
#include "engine/backup/history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "ddb/engine.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/store_format.h"

namespace ddb {
namespace {

std::string ItemKey(uint32_t table, const std::string& pk) {
  return EncodeItemKey(table, kTableKeyFormat, AttributeValue::S(pk), nullptr);
}

TEST(History, RecordRoundTrip) {
  const std::string old = "encoded-old-item";
  std::string_view key;
  std::optional<std::string_view> image;
  const std::string record = EncodeHistory("item-key", &old);  // the views point into it
  ASSERT_TRUE(DecodeHistory(record, &key, &image));
  EXPECT_EQ(key, "item-key");
  ASSERT_TRUE(image);
  EXPECT_EQ(*image, old);
  const std::string absent = EncodeHistory("k2", nullptr);
  ASSERT_TRUE(DecodeHistory(absent, &key, &image));
  EXPECT_EQ(key, "k2");
  EXPECT_FALSE(image);
  EXPECT_FALSE(DecodeHistory("", &key, &image));
  std::string newer = EncodeHistory("k", nullptr);
  newer[0] = static_cast<char>(kHistoryRecordFormat + 1);
  EXPECT_FALSE(DecodeHistory(newer, &key, &image));
  uint64_t ms = 0;
  ASSERT_TRUE(HistoryKeyTime(HistoryKey(3, 1234567, 9), &ms));
  EXPECT_EQ(ms, 1234567u);
  // Keys order by table, then time, then sequence; each table's range is [prefix, end).
  EXPECT_LT(HistoryKey(3, 5, 9), HistoryKey(3, 6, 0));
  EXPECT_LT(HistoryKey(3, 6, 0), HistoryKey(3, 6, 1));
  EXPECT_LT(HistoryKey(3, UINT64_MAX, UINT64_MAX), HistoryEnd(3));
  EXPECT_LE(HistoryPrefix(3, 6), HistoryKey(3, 6, 0));
  EXPECT_LT(HistoryEnd(3), HistoryKey(4, 0, 0));
}

TEST(History, ClockNeverGoesBackAndMarksAreBeforeLaterCommits) {
  HistoryClock clock;
  uint64_t last = clock.Next();
  for (int i = 0; i < 1000; ++i) {
    const uint64_t mark = clock.Mark();
    const uint64_t next = clock.Next();
    EXPECT_GE(mark, last);
    EXPECT_GT(next, mark);
    last = next;
  }
  EXPECT_NE(clock.NextSeq(), clock.NextSeq());
}

// A model of one table over time, checked against ItemsAsOf at every moment.
TEST(History, ItemsAsOfUndoesEveryLaterChange) {
  auto storage = Storage::Open(StorageOptions{.in_memory = true}).value();
  constexpr uint32_t kTable = 7;
  std::mt19937 rng(42);
  std::map<std::string, std::string> now;                     // item key -> value
  std::map<uint64_t, std::map<std::string, std::string>> at;  // the table after time t
  uint64_t seq = 0;
  std::map<uint64_t, std::string> changed;  // time -> the key changed then
  at[0] = {};
  for (uint64_t t = 1; t <= 300; ++t) {
    const std::string key = ItemKey(kTable, "k" + std::to_string(rng() % 40));
    changed[t] = key;
    const bool remove = rng() % 4 == 0;
    Storage::Batch batch(*storage);
    auto old = now.find(key);
    std::optional<std::string> old_value;
    if (old != now.end()) old_value = old->second;
    batch.Put(Cf::kHistory, HistoryKey(kTable, t, ++seq),
              EncodeHistory(key, old_value ? &*old_value : nullptr));
    if (remove) {
      batch.Delete(Cf::kItems, key);
      now.erase(key);
    } else {
      const std::string value = "v" + std::to_string(t);
      batch.Put(Cf::kItems, key, value);
      now[key] = value;
    }
    ASSERT_TRUE(storage->Write(batch).ok());
    at[t] = now;
  }
  // Another table's items and history must not leak in.
  Storage::Batch other(*storage);
  other.Put(Cf::kItems, ItemKey(kTable + 1, "k1"), "x");
  other.Put(Cf::kHistory, HistoryKey(kTable + 1, 5, 1),
            EncodeHistory(ItemKey(kTable + 1, "k1"), nullptr));
  ASSERT_TRUE(storage->Write(other).ok());
  auto snapshot = storage->TakeSnapshot();
  // Changes after the snapshot are not seen.
  Storage::Batch later(*storage);
  later.Put(Cf::kItems, ItemKey(kTable, "late"), "late");
  ASSERT_TRUE(storage->Write(later).ok());
  for (uint64_t t : {1, 2, 17, 150, 299, 300}) {
    std::map<std::string, std::string> got;
    std::string previous;
    ASSERT_TRUE(
        ItemsAsOf(*storage, snapshot.get(), kTable, t, [&](std::string_view k, std::string_view v) {
          EXPECT_LT(previous, std::string(k));  // key order
          previous = std::string(k);
          got[std::string(k)] = std::string(v);
          return true;
        }).ok());
    EXPECT_EQ(got, at[t]) << "as of " << t;
  }
  // ChangedKeys lists the changes of (from, to].
  std::vector<uint64_t> times;
  ASSERT_TRUE(
      ChangedKeys(*storage, snapshot.get(), kTable, 10, 20, [&](std::string_view, uint64_t ms) {
        times.push_back(ms);
        return true;
      }).ok());
  EXPECT_EQ(times, (std::vector<uint64_t>{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
  // ChangesBetween: each key changed in [from, to) once, with its images before and after.
  auto image = [&](uint64_t t, const std::string& key) -> std::optional<std::string> {
    auto it = at[t].find(key);
    if (it == at[t].end()) return std::nullopt;
    return it->second;
  };
  for (auto range : std::vector<std::pair<uint64_t, uint64_t>>{
           {1, 301}, {10, 21}, {150, 151}, {299, 301}, {40, 200}, {300, 301}}) {
    // Not a structured binding: clang 14 (the sanitizer builds) cannot capture one.
    const uint64_t from = range.first, to = range.second;
    std::map<std::string, uint64_t> want_last;
    for (uint64_t t = from; t < to; ++t) want_last[changed[t]] = t;
    std::map<std::string, uint64_t> got_last;
    std::string previous;
    ASSERT_TRUE(ChangesBetween(
                    *storage, snapshot.get(), kTable, from, to,
                    [&](std::string_view k, uint64_t last, const std::optional<std::string>& before,
                        const std::optional<std::string>& after) {
                      const std::string key(k);
                      EXPECT_LT(previous, key);
                      previous = key;
                      got_last[key] = last;
                      EXPECT_EQ(before, image(from - 1, key)) << from << " " << to;
                      EXPECT_EQ(after, image(to - 1, key)) << from << " " << to;
                      return true;
                    })
                    .ok());
    EXPECT_EQ(got_last, want_last) << from << " " << to;
  }
}

// --- End to end on an in-memory engine ---

class Backups : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.in_memory = true;
    options.pitr_lag_ms = 0;
    engine_ = Engine::Open(options).value();
    CreateTableRequest t;
    t.table_name = "src";
    t.billing_mode = BillingMode::kPayPerRequest;
    t.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
    t.key_schema = {{"pk", KeyType::kHash}};
    SecondaryIndexDefinition gsi;
    gsi.index_name = "byg";
    gsi.key_schema = {{"g", KeyType::kHash}};
    t.global_secondary_indexes = {gsi};
    ASSERT_TRUE(engine_->CreateTable(ctx_, t).ok());
  }

  void Put(const std::string& pk, const std::string& v, const std::string& g = "") {
    PutItemRequest p;
    p.table_name = "src";
    p.item = {{"pk", AttributeValue::S(pk)}, {"v", AttributeValue::S(v)}};
    if (!g.empty()) p.item["g"] = AttributeValue::S(g);
    ASSERT_TRUE(engine_->PutItem(p).ok());
  }

  std::map<std::string, std::string> Contents(const std::string& table) {
    std::map<std::string, std::string> out;
    ScanRequest s;
    s.table_name = table;
    auto r = engine_->Scan(s);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return out;
    for (const Item& i : r.value().items) out[i.at("pk").scalar()] = i.at("v").scalar();
    return out;
  }

  void WaitActive(const std::string& table) {
    for (int i = 0; i < 2000; ++i) {
      auto d = engine_->DescribeTable(ctx_, table);
      ASSERT_TRUE(d.ok());
      if (d.value().table_status == TableStatus::kActive) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FAIL() << table << " never became ACTIVE";
  }

  RequestContext ctx_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(Backups, BackupIsTheTableAsOfItsCreation) {
  Put("a", "1", "x");
  Put("b", "1");
  auto backup = engine_->CreateBackup(ctx_, "src", "b1b");
  ASSERT_TRUE(backup.ok()) << backup.error().message();
  Put("a", "2");
  Put("c", "1");
  DeleteItemRequest d;
  d.table_name = "src";
  d.key = {{"pk", AttributeValue::S("b")}};
  ASSERT_TRUE(engine_->DeleteItem(d).ok());
  RestoreTableFromBackupRequest r;
  r.target_table_name = "dst";
  r.backup_arn = backup.value().details.backup_arn;
  auto restored = engine_->RestoreTableFromBackup(ctx_, r);
  ASSERT_TRUE(restored.ok()) << restored.error().message();
  ASSERT_TRUE(restored.value().restore_summary);
  WaitActive("dst");
  EXPECT_EQ(Contents("dst"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "1"}}));
  QueryRequest q;
  q.table_name = "dst";
  q.index_name = "byg";
  q.key_condition_expression = "g = :g";
  q.expression_attribute_values = Item{{":g", AttributeValue::S("x")}};
  auto found = engine_->Query(q);
  ASSERT_TRUE(found.ok()) << found.error().message();
  ASSERT_EQ(found.value().items.size(), 1u);
  EXPECT_EQ(found.value().items[0].at("v").scalar(), "1");
  // In use while restoring? Done by now, so it can go.
  EXPECT_TRUE(engine_->DeleteBackup(ctx_, r.backup_arn).ok());
  EXPECT_EQ(engine_->DescribeBackup(ctx_, r.backup_arn).error().code(), ErrorCode::kBackupNotFound);
}

TEST_F(Backups, PointInTimeRestoreBetweenWrites) {
  ASSERT_TRUE(engine_->UpdateContinuousBackups("src", true, std::nullopt).ok());
  Put("a", "1");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto window = engine_->DescribeContinuousBackups("src");
  ASSERT_TRUE(window.ok());
  const double between = window.value().latest_restorable;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Put("a", "2");
  Put("b", "2");
  RestoreTableToPointInTimeRequest r;
  r.source_table_name = "src";
  r.target_table_name = "dst";
  r.restore_date_time = between;
  auto restored = engine_->RestoreTableToPointInTime(ctx_, r);
  ASSERT_TRUE(restored.ok()) << restored.error().message();
  WaitActive("dst");
  EXPECT_EQ(Contents("dst"), (std::map<std::string, std::string>{{"a", "1"}}));
  r.restore_date_time = window.value().earliest_restorable - 10;
  r.target_table_name = "dst2";
  EXPECT_EQ(engine_->RestoreTableToPointInTime(ctx_, r).error().code(),
            ErrorCode::kInvalidRestoreTime);
}

TEST_F(Backups, DeletedTablesItemsStayForTheirBackupsOnly) {
  Put("a", "1");
  auto backup = engine_->CreateBackup(ctx_, "src", "keep");
  ASSERT_TRUE(backup.ok());
  ASSERT_TRUE(engine_->DeleteTable(ctx_, "src").ok());
  RestoreTableFromBackupRequest r;
  r.target_table_name = "dst";
  r.backup_arn = backup.value().details.backup_arn;
  ASSERT_TRUE(engine_->RestoreTableFromBackup(ctx_, r).ok());
  WaitActive("dst");
  EXPECT_EQ(Contents("dst"), (std::map<std::string, std::string>{{"a", "1"}}));
  ASSERT_TRUE(engine_->DeleteBackup(ctx_, r.backup_arn).ok());
  // Nothing pins the deleted table now; a restore from the gone backup is refused.
  r.target_table_name = "dst2";
  EXPECT_EQ(engine_->RestoreTableFromBackup(ctx_, r).error().code(), ErrorCode::kBackupNotFound);
}

}  // namespace
}  // namespace ddb
