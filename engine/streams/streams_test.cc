// DynamoDB Streams in the engine: the label, ARN, sequence-number and shard-iterator codecs;
// record order under concurrent writers; iterator expiry; retention (StreamRegistry::Trim
// and, end to end, TrimmedDataAccess after the sweeper ran).
#include "engine/streams/streams.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "ddb/number.h"

namespace ddb {
namespace {

uint64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

TEST(StreamCodecs, LabelRoundTrip) {
  EXPECT_EQ(StreamLabelAt(0), "1970-01-01T00:00:00.000");
  uint64_t ms = 1796046432053;  // 2026-11-30T13:47:12.053
  EXPECT_EQ(StreamLabelAt(ms), "2026-11-30T13:47:12.053");
  EXPECT_EQ(ParseStreamLabel(StreamLabelAt(ms)), ms);
  for (const char* bad :
       {"2026-02-30T00:00:00.000", "2026-11-30 13:47:12.053", "2026-11-30T13:47:12.05",
        "2026-11-30T13:47:12.0533", "2026-11-30T24:00:00.000", "abcd-11-30T13:47:12.053", ""}) {
    EXPECT_FALSE(ParseStreamLabel(bad)) << bad;
  }
}

TEST(StreamCodecs, ArnRoundTrip) {
  std::string arn = StreamArn(RequestContext{.region = "eu-west-1", .account_id = "123456789012"},
                              "my.table-1", "2026-11-30T13:47:12.053");
  EXPECT_EQ(arn,
            "arn:aws:dynamodb:eu-west-1:123456789012:table/my.table-1/stream/"
            "2026-11-30T13:47:12.053");
  std::string table, label;
  ASSERT_TRUE(ParseStreamArn(arn, &table, &label));
  EXPECT_EQ(table, "my.table-1");
  EXPECT_EQ(label, "2026-11-30T13:47:12.053");
  for (const char* bad :
       {"arn:aws:dynamodb:us-east-1:000000000000:table/t1/stream/2026-11-30T13:47:12.053",
        "arn:aws:dynamodb:us-east-1:000000000000:table/tab/stream/2026-11-30T13:47:12",
        "arn:aws:dynamodb:us-east-1:000000000000:table/tab/index/2026-11-30T13:47:12.053",
        "arn:aws:dynamodb::000000000000:table/tab/stream/2026-11-30T13:47:12.053",
        "arn:aws:kinesis:us-east-1:000000000000:table/tab/stream/2026-11-30T13:47:12.053",
        "arn:aws:dynamodb:us-east-1:000000000000:table/t a b/stream/2026-11-30T13:47:12.053",
        "sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf", ""}) {
    EXPECT_FALSE(ParseStreamArn(bad, &table, &label)) << bad;
  }
}

TEST(StreamCodecs, SequenceNumbers) {
  EXPECT_EQ(FormatSequenceNumber(1), "000000000000000000001");
  EXPECT_EQ(FormatSequenceNumber(UINT64_MAX), "018446744073709551615");
  uint64_t v = 0;
  ASSERT_TRUE(ParseSequenceNumber("000000000000000000042", &v));
  EXPECT_EQ(v, 42u);
  ASSERT_TRUE(ParseSequenceNumber(FormatSequenceNumber(UINT64_MAX), &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ParseSequenceNumber("18446744073709551616", &v));  // 2^64
  EXPECT_FALSE(ParseSequenceNumber("12a", &v));
  EXPECT_FALSE(ParseSequenceNumber("", &v));
  EXPECT_FALSE(ParseSequenceNumber(std::string(41, '0'), &v));
  // Formatted numbers sort as numbers do.
  EXPECT_LT(FormatSequenceNumber(9), FormatSequenceNumber(10));
}

TEST(StreamCodecs, ShardIteratorRoundTripAndTampering) {
  ShardIteratorToken t{"tbl", "2026-11-30T13:47:12.053", 7, 123456789, 1796046432053};
  std::string text = EncodeShardIterator(RequestContext{}, t);
  EXPECT_EQ(text.rfind(StreamArn(RequestContext{}, "tbl", t.label) + "|1|", 0), 0u);
  EXPECT_LE(text.size(), 2048u);
  ShardIteratorToken back;
  ASSERT_TRUE(DecodeShardIterator(text, &back));
  EXPECT_EQ(back.table_name, "tbl");
  EXPECT_EQ(back.label, t.label);
  EXPECT_EQ(back.table_id, 7u);
  EXPECT_EQ(back.position, 123456789u);
  EXPECT_EQ(back.issued_ms, 1796046432053u);
  // Any single changed character is refused (checksum, base64, ARN or separator).
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = bad[i] == 'A' ? 'B' : 'A';
    ShardIteratorToken ignored;
    EXPECT_FALSE(DecodeShardIterator(bad, &ignored)) << i;
  }
  // The same token for another table (same label) does not verify either.
  std::string other = EncodeShardIterator(RequestContext{}, {"tbm", t.label, 7, 1, 1});
  std::string spliced = text.substr(0, text.find('|')) + other.substr(other.find('|'));
  ShardIteratorToken ignored;
  EXPECT_FALSE(DecodeShardIterator(spliced, &ignored));
  EXPECT_FALSE(DecodeShardIterator("", &ignored));
  EXPECT_FALSE(DecodeShardIterator(text.substr(0, text.size() - 4), &ignored));
}

class StreamsEngineTest : public ::testing::Test {
 protected:
  void Open(int64_t retention_ms = int64_t{24} * 3600 * 1000) {
    EngineOptions options;
    options.in_memory = true;
    options.stream_retention_ms = retention_ms;
    auto opened = Engine::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    engine_ = std::move(opened).value();
    CreateTableRequest req;
    req.table_name = "tbl";
    req.attribute_definitions = {{"pk", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    req.stream_specification = StreamSpecification{true, StreamViewType::kNewImage};
    auto r = engine_->CreateTable(ctx_, req);
    ASSERT_TRUE(r.ok()) << r.error().message();
    arn_ = *r->latest_stream_arn;
    auto d = engine_->DescribeStream(ctx_, {arn_, std::nullopt, 100});
    ASSERT_TRUE(d.ok()) << d.error().message();
    shard_ = d->shards.at(0).shard_id;
  }

  void Put(const std::string& pk, int64_t v) {
    PutItemRequest req;
    req.table_name = "tbl";
    req.item = {{"pk", AttributeValue::S(pk)},
                {"v", AttributeValue::N(NormalizeNumber(std::to_string(v)).value())}};
    auto r = engine_->PutItem(req);
    ASSERT_TRUE(r.ok()) << r.error().message();
  }

  Result<std::string> Iterator(ShardIteratorType type, std::optional<std::string> seq = {}) {
    return engine_->GetShardIterator(ctx_, {arn_, shard_, type, std::move(seq)});
  }

  std::vector<StreamRecord> ReadAll() {
    std::vector<StreamRecord> out;
    auto it = Iterator(ShardIteratorType::kTrimHorizon);
    EXPECT_TRUE(it.ok());
    std::string next = it.value();
    while (true) {
      auto page = engine_->GetRecords(ctx_, {next, 1000});
      EXPECT_TRUE(page.ok()) << page.error().message();
      if (!page.ok() || page->records.empty()) break;
      for (auto& r : page->records) out.push_back(std::move(r));
      next = *page->next_shard_iterator;
    }
    return out;
  }

  RequestContext ctx_;
  std::unique_ptr<Engine> engine_;
  std::string arn_, shard_;
};

TEST_F(StreamsEngineTest, ConcurrentWritersRecordsAreOrdered) {
  Open();
  constexpr int kThreads = 4, kWrites = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 1; i <= kWrites; ++i) Put("k" + std::to_string((t * 7 + i) % 10), t * 1000 + i);
    });
  }
  for (auto& th : threads) th.join();
  std::vector<StreamRecord> records = ReadAll();
  ASSERT_EQ(records.size(), size_t{kThreads * kWrites});
  uint64_t previous = 0;
  // Per item, records come in the order its writes were applied: each record's new image
  // is the item as its next record's old image would see it (v from the same thread rises).
  std::map<std::pair<std::string, int>, int64_t> last_v;
  for (const StreamRecord& r : records) {
    uint64_t seq = 0;
    ASSERT_TRUE(ParseSequenceNumber(r.sequence_number, &seq));
    EXPECT_GT(seq, previous);
    previous = seq;
    int64_t v = std::stoll(r.new_image->at("v").scalar());
    auto key = std::make_pair(r.keys.at("pk").scalar(), static_cast<int>(v / 1000));
    EXPECT_GT(v, last_v[key]);
    last_v[key] = v;
  }
}

TEST_F(StreamsEngineTest, ExpiredIterator) {
  Open();
  auto it = Iterator(ShardIteratorType::kTrimHorizon);
  ASSERT_TRUE(it.ok());
  ShardIteratorToken token;
  ASSERT_TRUE(DecodeShardIterator(it.value(), &token));
  token.issued_ms = NowMs() - kShardIteratorLifetimeMs - 1000;
  auto r = engine_->GetRecords(ctx_, {EncodeShardIterator(RequestContext{}, token), 100});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kExpiredIterator);
  EXPECT_NE(r.error().message().find("Iterator expired"), std::string::npos);
  token.issued_ms = NowMs() - kShardIteratorLifetimeMs + 60000;  // still valid
  EXPECT_TRUE(engine_->GetRecords(ctx_, {EncodeShardIterator(RequestContext{}, token), 100}).ok());
}

TEST_F(StreamsEngineTest, RecordsPastRetentionAreTrimmed) {
  Open(/*retention_ms=*/1000);
  Put("a", 1);
  Put("b", 2);
  auto first = ReadAll();
  ASSERT_FALSE(first.empty());  // the sweeper may already have trimmed some
  std::string seq = first.front().sequence_number;
  // The sweeper trims every few seconds; afterwards the old position is gone.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  Result<std::string> at = Iterator(ShardIteratorType::kAtSequenceNumber, seq);
  while (at.ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    at = Iterator(ShardIteratorType::kAtSequenceNumber, seq);
  }
  ASSERT_FALSE(at.ok());
  EXPECT_EQ(at.error().code(), ErrorCode::kTrimmedDataAccess);
  // "b" may be a few milliseconds younger than "a" and so go one round later (a slow build,
  // ASan, can put them that far apart): wait for it rather than race the sweeper.
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (!ReadAll().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(ReadAll().empty());
  // An iterator issued before the trim is refused the same way.
  ShardIteratorToken token;
  auto horizon = Iterator(ShardIteratorType::kTrimHorizon);
  ASSERT_TRUE(horizon.ok());
  ASSERT_TRUE(DecodeShardIterator(horizon.value(), &token));
  uint64_t old_position = 0;
  ASSERT_TRUE(ParseSequenceNumber(seq, &old_position));
  token.position = old_position;
  auto r = engine_->GetRecords(ctx_, {EncodeShardIterator(RequestContext{}, token), 10});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kTrimmedDataAccess);
  // New writes are readable again from TRIM_HORIZON.
  Put("c", 3);
  auto after = ReadAll();
  ASSERT_LE(after.size(), 1u);
}

TEST(StreamRegistry, TrimDropsOldRecordsAndAgedOutStreams) {
  auto storage = Storage::Open(StorageOptions{"", /*in_memory=*/true});
  ASSERT_TRUE(storage.ok());
  Storage* s = storage.value().get();
  auto loaded = StreamRegistry::Load(s);
  ASSERT_TRUE(loaded.ok());
  StreamRegistry& registry = *loaded.value();
  const uint64_t now = 10'000'000;
  for (const char* label : {"2026-11-30T00:00:00.000", "2026-11-30T00:00:00.001"}) {
    StreamInfo info;
    info.table_id = 1;
    info.table_name = "t";
    info.label = label;
    info.view_type = StreamViewType::kKeysOnly;
    info.key_schema = {{"pk", KeyType::kHash}};
    info.created_ms = ParseStreamLabel(label).value();
    info.start_sequence = 1;
    ASSERT_TRUE(registry.Add(info).ok());
  }
  const std::string live = "2026-11-30T00:00:00.001", dead = "2026-11-30T00:00:00.000";
  // Records 1..5 committed at now-5000 .. now-1000 (ms).
  Storage::Batch batch(*s);
  for (uint64_t seq = 1; seq <= 5; ++seq) {
    Item item{{"pk", AttributeValue::S("k")}};
    std::string change = EncodeChange(1, now - (6 - seq) * 1000, "key", std::nullopt, item);
    batch.Put(Cf::kStreams, StreamRecordKey(1, live, seq),
              EncodeStreamRecord(WriteOrigin::kRequest, change));
    batch.Put(Cf::kStreams, StreamRecordKey(1, dead, seq),
              EncodeStreamRecord(WriteOrigin::kRequest, change));
  }
  ASSERT_TRUE(s->Write(batch).ok());
  ASSERT_TRUE(registry.Close("t", dead, 5, now - 4000).ok());
  EXPECT_EQ(registry.LastSequence(), 5u);

  ASSERT_TRUE(registry.Trim(now, /*retention_ms=*/2500).ok());  // keeps now-2000 and later
  auto kept = registry.Find("t", live);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->trimmed_before, 4u);
  EXPECT_EQ(kept->FirstReadable(), 4u);
  EXPECT_FALSE(registry.Find("t", dead)) << "disabled longer ago than the retention";
  std::vector<uint64_t> left;
  ASSERT_TRUE(s->ForEach(Cf::kStreams, "", "", [&](std::string_view key, std::string_view value) {
                 ChangeRecord r;
                 WriteOrigin origin;
                 EXPECT_TRUE(DecodeStreamRecord(key, value, &r, &origin));
                 EXPECT_EQ(key.substr(4, kStreamLabelSize), live);
                 left.push_back(r.sequence);
                 return true;
               }).ok());
  EXPECT_EQ(left, (std::vector<uint64_t>{4, 5}));

  // The trim point is persisted.
  auto reloaded = StreamRegistry::Load(s);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(reloaded.value()->Find("t", live)->trimmed_before, 4u);
  EXPECT_FALSE(reloaded.value()->Find("t", dead));
  // Labels of a table's new streams always move forward.
  EXPECT_EQ(registry.NewLabel("t", 0), StreamLabelAt(ParseStreamLabel(live).value() + 1));
  EXPECT_EQ(registry.NewLabel("u", 5), StreamLabelAt(5));
}

}  // namespace
}  // namespace ddb
