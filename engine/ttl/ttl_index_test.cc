// Time to Live: the record's codecs (ttl_index.h), and end to end the sweeper finding
// expired items through the record (no scan), the record following every kind of write, the
// backfill on enabling and on open, restarts, and TTL deletes in streams.
#include "engine/ttl/ttl_index.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "ddb/number.h"

namespace ddb {
namespace {

int64_t Now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

AttributeValue N(int64_t v) { return AttributeValue::N(std::to_string(v)); }

TEST(TtlIndex, ExpiryOfNumbers) {
  EXPECT_EQ(TtlExpiryOfNumber("1700000000"), 1700000000u);
  EXPECT_EQ(TtlExpiryOfNumber("1700000000.999"), 1700000000u);  // the integer part
  EXPECT_EQ(TtlExpiryOfNumber("0.25"), 0u);
  EXPECT_EQ(TtlExpiryOfNumber("0"), 0u);
  EXPECT_EQ(TtlExpiryOfNumber("999999999999999999"), 999999999999999999u);
  EXPECT_EQ(TtlExpiryOfNumber("-1"), std::nullopt);  // before 1970
  EXPECT_EQ(TtlExpiryOfNumber("-0.5"), std::nullopt);
  EXPECT_EQ(TtlExpiryOfNumber("1000000000000000000"), std::nullopt);  // 10^18: no entry
  EXPECT_EQ(TtlExpiryOfNumber(NormalizeNumber("9.9E+125").value()), std::nullopt);
  const std::string attr = "exp";
  EXPECT_EQ(TtlExpiry({{"exp", N(5)}}, attr), 5u);
  EXPECT_EQ(TtlExpiry({{"exp", AttributeValue::S("5")}}, attr), std::nullopt);
  EXPECT_EQ(TtlExpiry({{"exp", AttributeValue::L({N(5)})}}, attr), std::nullopt);
  EXPECT_EQ(TtlExpiry({{"other", N(5)}}, attr), std::nullopt);
}

TEST(TtlIndex, EntryKeysOrderByTableThenExpiry) {
  std::vector<std::string> ascending = {
      TtlEntryKey(1, 0, "\x01zz"),  TtlEntryKey(1, 5, "\x01a"),          TtlEntryKey(1, 5, "\x01b"),
      TtlEntryKey(1, 256, "\x01a"), TtlEntryKey(1, UINT64_MAX - 1, "a"), TtlEntryKey(2, 0, "a"),
  };
  for (size_t i = 1; i < ascending.size(); ++i) EXPECT_LT(ascending[i - 1], ascending[i]) << i;
  for (const std::string& k : ascending) {
    EXPECT_GE(k, TtlTablePrefix(k[7]));
    EXPECT_LT(k, TtlTablePrefixEnd(k[7]));
  }
  uint32_t table = 0;
  uint64_t expiry = 0;
  std::string_view item_key;
  const std::string key = TtlEntryKey(7, 1700000000, "item-key");
  ASSERT_TRUE(ParseTtlEntryKey(key, &table, &expiry, &item_key));
  EXPECT_EQ(table, 7u);
  EXPECT_EQ(expiry, 1700000000u);
  EXPECT_EQ(item_key, "item-key");
  EXPECT_FALSE(ParseTtlEntryKey(TtlTablePrefix(7), &table, &expiry, &item_key));
  EXPECT_FALSE(ParseTtlEntryKey("stats/1234", &table, &expiry, &item_key));
  // No other key of the meta family falls inside the record's range.
  const std::string lo = "ttl/", hi = "ttl0";
  for (const std::string& other : {std::string("next_table_id"), std::string("gsi_watermark"),
                                   std::string("stats/\xff\xff\xff\xff"),
                                   std::string("stream/\x01\x02\x03\x04"
                                               "2026"),
                                   TtlBuiltKey(0), TtlBuiltKey(UINT32_MAX)}) {
    EXPECT_FALSE(other >= lo && other < hi) << other;
  }
  EXPECT_LE(lo, TtlTablePrefix(0));
  EXPECT_LE(TtlTablePrefixEnd(UINT32_MAX - 1), hi);
}

std::vector<std::string> MetaKeys(Storage* storage, const std::string& from,
                                  const std::string& to) {
  std::vector<std::string> keys;
  EXPECT_TRUE(storage
                  ->ForEach(Cf::kMeta, from, to,
                            [&](std::string_view key, std::string_view) {
                              keys.emplace_back(key);
                              return true;
                            })
                  .ok());
  return keys;
}

TEST(TtlIndex, EntryFollowsTheItem) {
  auto opened = Storage::Open(StorageOptions{"", /*in_memory=*/true});
  ASSERT_TRUE(opened.ok());
  Storage* storage = opened.value().get();
  const std::string attr = "exp", key = "K";
  auto write = [&](const std::optional<Item>& old, const std::optional<Item>& updated) {
    Storage::Batch batch(*storage);
    std::optional<uint64_t> put = AddTtlEntryUpdates(3, attr, key, old, updated, &batch);
    EXPECT_TRUE(storage->Write(batch).ok());
    return put;
  };
  auto entries = [&] { return MetaKeys(storage, TtlTablePrefix(3), TtlTablePrefixEnd(3)); };
  Item v1{{"pk", AttributeValue::S("k")}, {"exp", N(100)}};
  EXPECT_EQ(write(std::nullopt, v1), 100u);
  EXPECT_EQ(entries(), std::vector<std::string>{TtlEntryKey(3, 100, key)});
  Item v1b = v1;
  v1b["other"] = N(1);
  EXPECT_EQ(write(v1, v1b), std::nullopt);  // same expiry: nothing written
  EXPECT_EQ(entries(), std::vector<std::string>{TtlEntryKey(3, 100, key)});
  Item later = v1;
  later["exp"] = AttributeValue::N("200.5");
  EXPECT_EQ(write(v1, later), 200u);  // moved later
  EXPECT_EQ(entries(), std::vector<std::string>{TtlEntryKey(3, 200, key)});
  Item text = v1;
  text["exp"] = AttributeValue::S("300");
  EXPECT_EQ(write(later, text), std::nullopt);  // not a number: no entry
  EXPECT_TRUE(entries().empty());
  EXPECT_EQ(write(text, v1), 100u);
  Item removed = v1;
  removed.erase("exp");
  EXPECT_EQ(write(v1, removed), std::nullopt);  // attribute removed
  EXPECT_TRUE(entries().empty());
  EXPECT_EQ(write(removed, v1), 100u);
  EXPECT_EQ(write(v1, std::nullopt), std::nullopt);  // item deleted
  EXPECT_TRUE(entries().empty());
}

TEST(TtlIndex, WriteNotesKeepTheSmallestUntilTaken) {
  TtlWriteNotes notes;
  notes.Note(1, 50);
  notes.Note(1, 70);
  notes.Note(1 + TtlWriteNotes::kSlots, 40);  // shares table 1's slot
  notes.Note(2, 90);
  TtlWriteNotes::Snapshot s = notes.TakeAll();
  EXPECT_EQ(s[TtlWriteNotes::Slot(1)], 40u);
  EXPECT_EQ(s[TtlWriteNotes::Slot(2)], 90u);
  EXPECT_EQ(s[TtlWriteNotes::Slot(3)], TtlWriteNotes::kNone);
  EXPECT_EQ(notes.TakeAll()[TtlWriteNotes::Slot(1)], TtlWriteNotes::kNone);
}

// --- The engine ---

constexpr int kFastSweepMs = 50;
constexpr int kNoSweepMs = 3600 * 1000;  // as good as never within a test

class TtlEngineTest : public ::testing::Test {
 protected:
  void TearDown() override {
    engine_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // In memory unless on_disk; the directory survives Reopen.
  void Open(int sweep_ms = kFastSweepMs, bool on_disk = false) {
    EngineOptions options;
    options.ttl_sweep_interval_ms = sweep_ms;
    if (on_disk) {
      if (dir_.empty()) {
        std::string templ = (std::filesystem::temp_directory_path() / "ddb-ttl-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
      }
      options.data_dir = dir_;
    } else {
      options.in_memory = true;
    }
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
  }

  void CreateTable(const std::string& name, bool stream = false) {
    CreateTableRequest req;
    req.table_name = name;
    req.attribute_definitions = {{"pk", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    if (stream)
      req.stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
    auto r = engine_->CreateTable(ctx_, req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  void EnableTtl(const std::string& table, bool enabled = true) {
    auto r = engine_->UpdateTimeToLive(table, {enabled, "exp"});
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  void Put(const std::string& table, const std::string& pk, std::optional<AttributeValue> exp) {
    PutItemRequest req;
    req.table_name = table;
    req.item = {{"pk", AttributeValue::S(pk)}, {"v", N(1)}};
    if (exp) req.item["exp"] = *exp;
    auto r = engine_->PutItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  void Update(const std::string& table, const std::string& pk, const std::string& expression,
              std::optional<AttributeValue> value = std::nullopt) {
    UpdateItemRequest req;
    req.table_name = table;
    req.key = {{"pk", AttributeValue::S(pk)}};
    req.update_expression = expression;
    if (value) {
      req.expression_attribute_values = {{":e", *value}};
    }
    auto r = engine_->UpdateItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  bool Exists(const std::string& table, const std::string& pk) {
    GetItemRequest req;
    req.table_name = table;
    req.key = {{"pk", AttributeValue::S(pk)}};
    auto r = engine_->GetItem(req);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->item.has_value();
  }

  // Waits (up to 20 s) until the sweeper has deleted "n" items in all.
  void WaitForDeleted(uint64_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (engine_->GetMetrics().ttl_deleted_items < n &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(engine_->GetMetrics().ttl_deleted_items, n);
  }

  // A few more sweeper rounds.
  void LetSweep() { std::this_thread::sleep_for(std::chrono::milliseconds(6 * kFastSweepMs)); }

  RequestContext ctx_;
  std::unique_ptr<Engine> engine_;
  std::string dir_;
};

TEST_F(TtlEngineTest, SweeperFindsExpiredItemsWithoutReadingTheOthers) {
  Open();
  CreateTable("tbl");
  EnableTtl("tbl");
  const int64_t now = Now();
  for (int i = 0; i < 3000; ++i) {
    std::string pk = "keep" + std::to_string(i);
    if (i % 3 == 0) {
      Put("tbl", pk, std::nullopt);
    } else if (i % 3 == 1) {
      Put("tbl", pk, N(now + 3600 + i));
    } else {
      Put("tbl", pk, AttributeValue::S(std::to_string(now - 10)));  // not a number
    }
  }
  for (int i = 0; i < 5; ++i) Put("tbl", "gone" + std::to_string(i), N(now - 10 - i));
  WaitForDeleted(5);
  LetSweep();
  EngineMetrics m = engine_->GetMetrics();
  EXPECT_EQ(m.ttl_deleted_items, 5u);
  EXPECT_EQ(m.ttl_examined_entries, 5u) << "only the expired entries are read";
  EXPECT_EQ(m.ttl_delete_errors, 0u);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(Exists("tbl", "gone" + std::to_string(i)));
  for (int i = 0; i < 3000; i += 499) EXPECT_TRUE(Exists("tbl", "keep" + std::to_string(i)));
  EXPECT_EQ(engine_->GetMetrics().tables.at(0).item_count, 3000);
}

TEST_F(TtlEngineTest, TheRecordFollowsEveryKindOfWrite) {
  Open();
  CreateTable("tbl");
  EnableTtl("tbl");
  const int64_t now = Now();
  // Entries due in 2 s, then moved, removed or made meaningless before they expire.
  Put("tbl", "later", N(now + 2));
  Update("tbl", "later", "SET exp = :e", N(now + 3600));
  Put("tbl", "removed", N(now + 2));
  Update("tbl", "removed", "REMOVE exp");
  Put("tbl", "text", N(now + 2));
  Update("tbl", "text", "SET exp = :e", AttributeValue::S("soon"));
  Put("tbl", "replaced", N(now + 2));
  Put("tbl", "replaced", N(now + 7200));
  Put("tbl", "deleted", N(now + 2));
  DeleteItemRequest del;
  del.table_name = "tbl";
  del.key = {{"pk", AttributeValue::S("deleted")}};
  ASSERT_TRUE(engine_->DeleteItem(del).ok());
  // Expired by an update, a batch write and a transaction.
  Put("tbl", "updated", N(now + 3600));
  Update("tbl", "updated", "SET exp = :e", N(now - 5));
  BatchWriteItemRequest batch;
  batch.request_items = {
      {"tbl", {WriteRequest{true, {{"pk", AttributeValue::S("batched")}, {"exp", N(now - 5)}}}}}};
  ASSERT_TRUE(engine_->BatchWriteItem(batch).ok());
  TransactWriteItemsRequest tx;
  TransactWriteAction action;
  action.table_name = "tbl";
  action.item_or_key = {{"pk", AttributeValue::S("transacted")}, {"exp", N(now - 5)}};
  tx.actions.push_back(action);
  ASSERT_TRUE(engine_->TransactWriteItems(tx).ok());
  // The service's rule: expiry times more than five years old are not deleted.
  Put("tbl", "four-years", N(now - 4 * 365 * 86400));
  Put("tbl", "six-years", N(now - 6 * 365 * 86400));
  Put("tbl", "negative", N(-100));
  Put("tbl", "decimal", AttributeValue::N(std::to_string(now - 2) + ".5"));
  WaitForDeleted(5);
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));  // past the 2 s entries
  for (const char* gone : {"updated", "batched", "transacted", "four-years", "decimal"}) {
    EXPECT_FALSE(Exists("tbl", gone)) << gone;
  }
  for (const char* kept : {"later", "removed", "text", "replaced", "six-years", "negative"}) {
    EXPECT_TRUE(Exists("tbl", kept)) << kept;
  }
  EngineMetrics m = engine_->GetMetrics();
  EXPECT_EQ(m.ttl_deleted_items, 5u);
  // No stale entry was left behind by the writes above for the sweeper to meet.
  EXPECT_EQ(m.ttl_examined_entries, 5u);
  EXPECT_EQ(m.ttl_delete_errors, 0u);
}

// Entries put below the point the sweeper has swept to, while it sweeps, are still found
// (TtlWriteNotes): writers race the sweeper with items that are already expired, or that
// expire within the next second or two.
TEST_F(TtlEngineTest, ItemsWrittenWhileTheSweeperRunsAreAllFound) {
  Open(/*sweep_ms=*/5);
  CreateTable("tbl");
  EnableTtl("tbl");
  constexpr int kThreads = 4, kItems = 400;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kItems; ++i) {
        const int64_t expiry = Now() - (i % 3 == 0 ? 1 : 0) + (i % 3 == 2 ? 1 : 0);
        Put("tbl", std::to_string(t) + "-" + std::to_string(i), N(expiry));
        if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
      }
    });
  }
  for (auto& th : threads) th.join();
  WaitForDeleted(kThreads * kItems);
  EXPECT_EQ(engine_->GetMetrics().tables.at(0).item_count, 0);
  EXPECT_EQ(engine_->GetMetrics().ttl_delete_errors, 0u);
}

TEST_F(TtlEngineTest, EnablingTtlOnAPopulatedTableBackfills) {
  Open();
  CreateTable("tbl");
  const int64_t now = Now();
  int expired = 0;
  for (int i = 0; i < 2500; ++i) {  // more than one backfill chunk
    bool past = i % 10 == 0;
    expired += past;
    Put("tbl", "k" + std::to_string(i), N(past ? now - 100 - i : now + 3600));
  }
  LetSweep();
  EXPECT_EQ(engine_->GetMetrics().ttl_deleted_items, 0u);  // TTL is not enabled yet
  EnableTtl("tbl");
  WaitForDeleted(expired);
  for (int i = 0; i < 2500; ++i) {
    EXPECT_EQ(Exists("tbl", "k" + std::to_string(i)), i % 10 != 0) << i;
  }
  EXPECT_EQ(engine_->GetMetrics().ttl_examined_entries, static_cast<uint64_t>(expired));
  // Written after enabling, while or after the backfill ran.
  Put("tbl", "new", N(now - 1));
  WaitForDeleted(expired + 1);
}

TEST_F(TtlEngineTest, DisablingTtlStopsDeletesAndReEnablingRebuilds) {
  Open();
  CreateTable("tbl");
  EnableTtl("tbl");
  EnableTtl("tbl", false);
  const int64_t now = Now();
  Put("tbl", "a", N(now - 10));
  LetSweep();
  EXPECT_TRUE(Exists("tbl", "a"));
  EnableTtl("tbl");
  WaitForDeleted(1);
}

TEST_F(TtlEngineTest, DeletesByTtlAreStreamRecordsWithTheTtlOrigin) {
  Open();
  CreateTable("str", /*stream=*/true);
  EnableTtl("str");
  Put("str", "expires", N(Now() - 1));
  WaitForDeleted(1);
  Put("str", "user", std::nullopt);
  DeleteItemRequest del;
  del.table_name = "str";
  del.key = {{"pk", AttributeValue::S("user")}};
  ASSERT_TRUE(engine_->DeleteItem(del).ok());

  auto d = engine_->DescribeTable(ctx_, "str");
  ASSERT_TRUE(d.ok());
  std::string arn = *d->latest_stream_arn;
  auto stream = engine_->DescribeStream(ctx_, {arn, std::nullopt, 100});
  ASSERT_TRUE(stream.ok());
  auto it = engine_->GetShardIterator(
      ctx_, {arn, stream->shards.at(0).shard_id, ShardIteratorType::kTrimHorizon, std::nullopt});
  ASSERT_TRUE(it.ok());
  auto page = engine_->GetRecords(ctx_, {it.value(), 1000});
  ASSERT_TRUE(page.ok()) << page.error().message();
  std::vector<std::tuple<std::string, std::string, bool>> seen;
  for (const StreamRecord& r : page->records) {
    seen.emplace_back(r.event_name, r.keys.at("pk").scalar(), r.by_time_to_live);
  }
  EXPECT_EQ(seen,
            (std::vector<std::tuple<std::string, std::string, bool>>{{"INSERT", "expires", false},
                                                                     {"REMOVE", "expires", true},
                                                                     {"INSERT", "user", false},
                                                                     {"REMOVE", "user", false}}));
  ASSERT_EQ(page->records.size(), 4u);
  EXPECT_EQ(page->records[1].old_image->at("exp").type(), AttributeType::kN);
}

TEST_F(TtlEngineTest, TheRecordSurvivesARestart) {
  Open(kNoSweepMs, /*on_disk=*/true);
  CreateTable("tbl");
  EnableTtl("tbl");
  const int64_t now = Now();
  for (int i = 0; i < 20; ++i)
    Put("tbl", "k" + std::to_string(i), N(i < 7 ? now - 10 : now + 3600));
  // On disk: an entry per item, and the built marker once the backfill (of the empty
  // table) has finished; a close before that makes the next open run it again.
  std::optional<std::string> built;
  for (int attempt = 0; attempt < 100 && !built; ++attempt) {
    if (attempt > 0) {
      Open(kNoSweepMs, /*on_disk=*/true);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    engine_.reset();
    auto storage = Storage::Open(StorageOptions{dir_, false});
    ASSERT_TRUE(storage.ok()) << storage.error().message();
    EXPECT_EQ(MetaKeys(storage.value().get(), "ttl/", "ttl0").size(), 20u);
    built = storage.value()->Get(Cf::kMeta, TtlBuiltKey(1)).value();
  }
  EXPECT_EQ(built, std::optional<std::string>("exp"));
  Open(kFastSweepMs, /*on_disk=*/true);
  WaitForDeleted(7);
  EXPECT_EQ(engine_->GetMetrics().ttl_examined_entries, 7u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Exists("tbl", "k" + std::to_string(i)), i >= 7) << i;
}

TEST_F(TtlEngineTest, AnOldFormatTableIsBackfilledOnOpen) {
  Open(kNoSweepMs, /*on_disk=*/true);
  CreateTable("tbl");
  EnableTtl("tbl");
  const int64_t now = Now();
  for (int i = 0; i < 20; ++i)
    Put("tbl", "k" + std::to_string(i), N(i < 4 ? now - 10 : now + 3600));
  engine_.reset();
  {
    // Make it look written by a version without the record: no entries, no marker.
    auto storage = Storage::Open(StorageOptions{dir_, false});
    ASSERT_TRUE(storage.ok()) << storage.error().message();
    ASSERT_TRUE(storage.value()->DeleteRange(Cf::kMeta, "ttl/", "ttl0").ok());
    Storage::Batch batch(*storage.value());
    batch.Delete(Cf::kMeta, TtlBuiltKey(1));
    ASSERT_TRUE(storage.value()->Write(batch).ok());
  }
  Open(kFastSweepMs, /*on_disk=*/true);
  WaitForDeleted(4);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Exists("tbl", "k" + std::to_string(i)), i >= 4) << i;
  engine_.reset();
  auto storage = Storage::Open(StorageOptions{dir_, false});
  ASSERT_TRUE(storage.ok());
  EXPECT_EQ(MetaKeys(storage.value().get(), "ttl/", "ttl0").size(), 16u);
  EXPECT_EQ(storage.value()->Get(Cf::kMeta, TtlBuiltKey(1)).value(),
            std::optional<std::string>("exp"));
}

TEST_F(TtlEngineTest, DisablingTtlAndDeletingTheTableDropTheRecord) {
  Open(kNoSweepMs, /*on_disk=*/true);
  CreateTable("aaa");
  CreateTable("bbb");
  EnableTtl("aaa");
  EnableTtl("bbb");
  const int64_t now = Now();
  for (int i = 0; i < 10; ++i) {
    Put("aaa", "k" + std::to_string(i), N(now + 100));
    Put("bbb", "k" + std::to_string(i), N(now + 100));
  }
  EnableTtl("aaa", false);
  ASSERT_TRUE(engine_->DeleteTable(ctx_, "bbb").ok());
  CreateTable("ccc");
  EnableTtl("ccc");
  Put("ccc", "k", N(now + 100));
  engine_.reset();
  auto storage = Storage::Open(StorageOptions{dir_, false});
  ASSERT_TRUE(storage.ok());
  // Only table c (id 3) has entries left, and only a and b lost their markers.
  EXPECT_EQ(MetaKeys(storage.value().get(), "ttl/", "ttl0").size(), 1u);
  EXPECT_EQ(MetaKeys(storage.value().get(), TtlTablePrefix(3), TtlTablePrefixEnd(3)).size(), 1u);
  EXPECT_FALSE(storage.value()->Get(Cf::kMeta, TtlBuiltKey(1)).value());
  EXPECT_FALSE(storage.value()->Get(Cf::kMeta, TtlBuiltKey(2)).value());
  // (Table c's marker may be missing: its backfill may not have finished before the close,
  // and then runs again on the next open.)
}

}  // namespace
}  // namespace ddb
