// Kinesis Data Streams in the engine: the hash-range, shard, sequence-number, iterator and
// record codecs; and, through the Engine, puts and reads, iterator expiry and retention
// under a test clock, and a table's destination writing each change once.
#include "engine/kinesis/kinesis_streams.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "ddb/engine.h"

namespace ddb {
namespace {

TEST(KinesisCodecs, HashRangesAreTheServicesSplit) {
  // The Kinesis API reference's DescribeStream sample, 3 shards.
  EXPECT_EQ(KinesisStartingHashKey(0, 3), "0");
  EXPECT_EQ(KinesisEndingHashKey(0, 3), "113427455640312821154458202477256070484");
  EXPECT_EQ(KinesisStartingHashKey(1, 3), "113427455640312821154458202477256070485");
  EXPECT_EQ(KinesisEndingHashKey(2, 3), "340282366920938463463374607431768211455");
  // A power of two splits exactly.
  EXPECT_EQ(KinesisStartingHashKey(1, 2), "170141183460469231731687303715884105728");
  EXPECT_EQ(KinesisEndingHashKey(0, 2), "170141183460469231731687303715884105727");
  unsigned char hash[16];
  ASSERT_TRUE(ParseKinesisHashKey("170141183460469231731687303715884105727", hash));
  EXPECT_EQ(KinesisShardOfHash(hash, 2), 0u);
  ASSERT_TRUE(ParseKinesisHashKey("170141183460469231731687303715884105728", hash));
  EXPECT_EQ(KinesisShardOfHash(hash, 2), 1u);
  ASSERT_TRUE(ParseKinesisHashKey("340282366920938463463374607431768211455", hash));
  EXPECT_EQ(KinesisShardOfHash(hash, 3), 2u);
  EXPECT_EQ(KinesisShardOfHash(hash, 1), 0u);
  ASSERT_TRUE(ParseKinesisHashKey("0", hash));
  EXPECT_EQ(KinesisShardOfHash(hash, 7), 0u);
  EXPECT_FALSE(ParseKinesisHashKey("340282366920938463463374607431768211456", hash));
  EXPECT_FALSE(ParseKinesisHashKey("01", hash));
  EXPECT_FALSE(ParseKinesisHashKey("", hash));
  EXPECT_FALSE(ParseKinesisHashKey("12a", hash));
  EXPECT_FALSE(ParseKinesisHashKey(std::string(40, '9'), hash));
}

TEST(KinesisCodecs, ShardIdsAndSequenceNumbers) {
  EXPECT_EQ(KinesisShardId(3), "shardId-000000000003");
  uint32_t shard = 0;
  EXPECT_TRUE(ParseKinesisShardId("shardId-000000000012", &shard));
  EXPECT_EQ(shard, 12u);
  EXPECT_FALSE(ParseKinesisShardId("shardId-12", &shard));
  EXPECT_FALSE(ParseKinesisShardId("shardId-00000000001x", &shard));
  std::string seq = FormatKinesisSequence(7, 2, 123456789);
  uint32_t id = 0;
  uint64_t sequence = 0;
  ASSERT_TRUE(ParseKinesisSequence(seq, &id, &shard, &sequence));
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(shard, 2u);
  EXPECT_EQ(sequence, 123456789u);
  // Fixed width: later sequences compare greater as numbers and as text.
  EXPECT_LT(FormatKinesisSequence(7, 2, 99), FormatKinesisSequence(7, 2, 100));
  EXPECT_FALSE(ParseKinesisSequence("1", &id, &shard, &sequence));
  EXPECT_FALSE(ParseKinesisSequence(seq.substr(1), &id, &shard, &sequence));
  std::string over = "49" + std::string(10, '0') + std::string(5, '0') + std::string(20, '9');
  EXPECT_FALSE(ParseKinesisSequence(over, &id, &shard, &sequence));
}

TEST(KinesisCodecs, IteratorsRoundTripAndRefuseTampering) {
  KinesisIterator it{5, 1, 42, 1000, 7};
  std::string text = EncodeKinesisIterator(it);
  EXPECT_EQ(text.substr(0, 11), "AAAAAAAAAAE");  // as the service's iterators start
  KinesisIterator back;
  ASSERT_TRUE(DecodeKinesisIterator(text, &back));
  EXPECT_EQ(back.stream_id, 5u);
  EXPECT_EQ(back.shard, 1u);
  EXPECT_EQ(back.position, 42u);
  EXPECT_EQ(back.issued_ms, 1000u);
  EXPECT_EQ(back.min_arrival_ms, 7u);
  std::string bent = text;
  bent[20] = bent[20] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(DecodeKinesisIterator(bent, &back));
  EXPECT_FALSE(DecodeKinesisIterator("", &back));
  EXPECT_FALSE(DecodeKinesisIterator("not base64!", &back));
}

TEST(KinesisCodecs, RecordsRoundTrip) {
  DecodedKinesisRecord out;
  ASSERT_TRUE(DecodeKinesisRecord(EncodeKinesisData(12, "pk", std::string("a\0b", 3)), &out));
  EXPECT_EQ(out.arrival_ms, 12u);
  EXPECT_EQ(out.partition_key, "pk");
  EXPECT_EQ(out.data, std::string("a\0b", 3));
  EXPECT_FALSE(out.change);
  KinesisChangeImage c{1, 2, 99, "tbl", "k", "", "n"};
  ASSERT_TRUE(DecodeKinesisRecord(EncodeKinesisChange(13, "PK", c), &out));
  ASSERT_TRUE(out.change);
  EXPECT_EQ(out.change->table_name, "tbl");
  EXPECT_EQ(out.change->creation_us, 99u);
  EXPECT_EQ(out.change->old_image, "");
  EXPECT_EQ(out.change->new_image, "n");
  std::string cut = EncodeKinesisChange(13, "PK", c);
  cut.pop_back();
  EXPECT_FALSE(DecodeKinesisRecord(cut, &out));
  EXPECT_FALSE(DecodeKinesisRecord("", &out));
}

class KinesisEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.in_memory = true;
    options.clock_for_testing = [this] { return now_ms_.load(); };
    options.ttl_sweep_interval_ms = 3600 * 1000;  // housekeeping runs when the test says
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
    CreateKinesisStreamRequest req;
    req.name = "s";
    req.shard_count = 1;
    ASSERT_TRUE(engine_->CreateKinesisStream(ctx_, req).ok());
  }

  std::string Iterator(KinesisIteratorType type = KinesisIteratorType::kTrimHorizon) {
    KinesisShardIteratorRequest req{"s", "shardId-000000000000", type, std::nullopt, std::nullopt};
    auto it = engine_->GetKinesisShardIterator(ctx_, req);
    EXPECT_TRUE(it.ok()) << it.error().message();
    return it.ok() ? *it : "";
  }

  void Put(const std::string& data) {
    auto r = engine_->PutKinesisRecords(ctx_, "s", {{data, "pk", std::nullopt}});
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  std::atomic<uint64_t> now_ms_{uint64_t{1'800'000'000'000}};
  RequestContext ctx_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(KinesisEngineTest, ReadsInOrderAndStopsAtTheLimit) {
  for (int i = 0; i < 5; ++i) Put("r" + std::to_string(i));
  auto page = engine_->GetKinesisRecords(ctx_, Iterator(), 3);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->records.size(), 3u);
  EXPECT_EQ(page->records[2].data, "r2");
  auto rest = engine_->GetKinesisRecords(ctx_, page->next_shard_iterator, 100);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->records.size(), 2u);
  EXPECT_EQ(rest->records[0].data, "r3");
  EXPECT_EQ(rest->millis_behind_latest, 0u);
}

TEST_F(KinesisEngineTest, IteratorsExpireAfterFiveMinutes) {
  std::string it = Iterator();
  now_ms_ += kKinesisIteratorLifetimeMs + 1;
  auto page = engine_->GetKinesisRecords(ctx_, it, 10);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code(), ErrorCode::kExpiredIterator);
}

TEST_F(KinesisEngineTest, DeletedStreamsAreNotReadByTheirOldIterators) {
  Put("old");
  std::string it = Iterator();
  ASSERT_TRUE(engine_->DeleteKinesisStream(ctx_, "s").ok());
  CreateKinesisStreamRequest req;
  req.name = "s";
  req.shard_count = 1;
  ASSERT_TRUE(engine_->CreateKinesisStream(ctx_, req).ok());
  auto page = engine_->GetKinesisRecords(ctx_, it, 10);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code(), ErrorCode::kResourceNotFound);
  auto fresh = engine_->GetKinesisRecords(ctx_, Iterator(), 10);
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->records.empty());
}

TEST_F(KinesisEngineTest, TheAccountsShardLimitHolds) {
  CreateKinesisStreamRequest req;
  req.name = "big";
  req.shard_count = kMaxKinesisShardsPerAccount;  // one is taken by "s"
  Status s = engine_->CreateKinesisStream(ctx_, req);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kLimitExceeded);
  req.shard_count = kMaxKinesisShardsPerAccount - 1;
  EXPECT_TRUE(engine_->CreateKinesisStream(ctx_, req).ok());
}

TEST_F(KinesisEngineTest, TableChangesReachTheDestinationOnce) {
  CreateTableRequest table;
  table.table_name = "tbl";
  table.attribute_definitions = {{"pk", ScalarType::kS}};
  table.key_schema = {{"pk", KeyType::kHash}};
  table.billing_mode = BillingMode::kPayPerRequest;
  ASSERT_TRUE(engine_->CreateTable(ctx_, table).ok());
  auto arn = engine_->DescribeKinesisStream(ctx_, "s");
  ASSERT_TRUE(arn.ok());
  auto enabled = engine_->EnableKinesisStreamingDestination(ctx_, "tbl", arn->arn, std::nullopt);
  ASSERT_TRUE(enabled.ok()) << enabled.error().message();
  EXPECT_EQ(enabled->status, KinesisDestinationStatus::kEnabling);
  PutItemRequest put;
  put.table_name = "tbl";
  put.item = {{"pk", AttributeValue::S("a")}};
  ASSERT_TRUE(engine_->PutItem(put).ok());
  ASSERT_TRUE(engine_->PutItem(put).ok());  // unchanged: no record
  auto page = engine_->GetKinesisRecords(ctx_, Iterator(), 100);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->records.size(), 1u);
  ASSERT_TRUE(page->records[0].change);
  EXPECT_EQ(page->records[0].change->event_name, "INSERT");
  EXPECT_EQ(page->records[0].change->creation_us, now_ms_.load() * 1000);
  EXPECT_EQ(page->records[0].partition_key.size(), 32u);
}

}  // namespace
}  // namespace ddb
