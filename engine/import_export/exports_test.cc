// ExportTableToPointInTime through the Engine API of an in-memory engine
// (engine/import_export/exports.cc): a full export as of an earlier time, and INCREMENTAL_EXPORT,
// whose 15-minute minimum period a test can only reach with EngineOptions::clock_for_testing moving
// time forward.
#include "engine/import_export/exports.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "ddb/engine.h"
#include "engine/import_export/local_s3.h"

namespace ddb {
namespace {

uint64_t WallMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

class ExportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ddb-exports-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    s3_ = tmpl;
    std::filesystem::create_directories(s3_ + "/out");
    EngineOptions options;
    options.in_memory = true;
    options.pitr_lag_ms = 0;
    options.s3_dir = s3_;
    options.clock_for_testing = [this] { return WallMs() + skew_ms_.load(); };
    engine_ = Engine::Open(options).value();
    CreateTableRequest t;
    t.table_name = "tbl";
    t.billing_mode = BillingMode::kPayPerRequest;
    t.attribute_definitions = {{"pk", ScalarType::kS}};
    t.key_schema = {{"pk", KeyType::kHash}};
    ASSERT_TRUE(engine_->CreateTable(ctx_, t).ok());
    ASSERT_TRUE(engine_->UpdateContinuousBackups("tbl", true, std::nullopt).ok());
  }
  void TearDown() override {
    engine_.reset();
    std::filesystem::remove_all(s3_);
  }

  // Moves the engine's clock forward and returns its new now (seconds).
  double Advance(uint64_t ms) {
    skew_ms_ += ms;
    return Now();
  }
  double Now() const { return static_cast<double>(WallMs() + skew_ms_.load()) / 1000.0; }

  void Put(const std::string& pk, const std::string& v) {
    PutItemRequest p;
    p.table_name = "tbl";
    p.item = {{"pk", AttributeValue::S(pk)}, {"v", AttributeValue::S(v)}};
    ASSERT_TRUE(engine_->PutItem(p).ok());
  }
  void Delete(const std::string& pk) {
    DeleteItemRequest d;
    d.table_name = "tbl";
    d.key = {{"pk", AttributeValue::S(pk)}};
    ASSERT_TRUE(engine_->DeleteItem(d).ok());
  }

  ExportDescription Wait(const std::string& arn) {
    for (int i = 0; i < 2000; ++i) {
      auto d = engine_->DescribeExport(ctx_, arn);
      EXPECT_TRUE(d.ok());
      if (!d.ok() || d.value().status != ExportStatus::kInProgress) return d.value();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "export never ended";
    return {};
  }

  // The data lines of a finished export, read through its manifest.
  std::vector<std::string> Lines(const ExportDescription& d) {
    std::vector<std::string> out;
    const std::string base = s3_ + "/out/";
    std::ifstream summary(base + *d.export_manifest);
    std::string text((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
    summary_ = text;
    std::string files_key = *d.export_manifest;
    files_key.replace(files_key.rfind("manifest-summary.json"), 21, "manifest-files.json");
    std::ifstream files(base + files_key);
    std::string entry;
    while (std::getline(files, entry)) {
      const std::string marker = "\"dataFileS3Key\":\"";
      size_t at = entry.find(marker);
      EXPECT_NE(at, std::string::npos) << entry;
      if (at == std::string::npos) continue;
      at += marker.size();
      const std::string key = entry.substr(at, entry.find('"', at) - at);
      data_keys_.push_back(key);
      auto reader = OpenObject(base + key, InputCompression::kGzip);
      EXPECT_TRUE(reader.ok());
      if (!reader.ok()) continue;
      std::string body;
      for (;;) {
        auto more = reader.value()->Read(&body, 1 << 20);
        EXPECT_TRUE(more.ok());
        if (!more.ok() || !more.value()) break;
      }
      size_t pos = 0;
      for (size_t nl; (nl = body.find('\n', pos)) != std::string::npos; pos = nl + 1) {
        out.push_back(body.substr(pos, nl - pos));
      }
    }
    return out;
  }

  ExportTableRequest Incremental(double from, std::optional<double> to,
                                 std::optional<ExportViewType> view = std::nullopt) {
    ExportTableRequest r;
    r.table_arn = "tbl";
    r.s3_bucket = "out";
    r.export_type = ExportType::kIncrementalExport;
    r.incremental = IncrementalExportSpecification{from, to, view};
    return r;
  }

  RequestContext ctx_;
  std::string s3_;
  std::atomic<uint64_t> skew_ms_{0};
  std::unique_ptr<Engine> engine_;
  std::string summary_;
  std::vector<std::string> data_keys_;
};

TEST_F(ExportsTest, FullExportAtAnEarlierTimeHasTheOldValues) {
  Put("a", "1");
  Put("b", "1");
  const double between = Advance(60000);
  Advance(1000);
  Put("a", "2");
  Delete("b");
  Put("c", "2");
  Advance(5000);
  ExportTableRequest r;
  r.table_arn = "tbl";
  r.s3_bucket = "out";
  r.export_time = between;
  auto started = engine_->ExportTableToPointInTime(ctx_, r);
  ASSERT_TRUE(started.ok()) << started.error().message();
  EXPECT_DOUBLE_EQ(started.value().export_time, between);
  ExportDescription done = Wait(started.value().export_arn);
  ASSERT_EQ(done.status, ExportStatus::kCompleted) << done.failure_message.value_or("");
  EXPECT_EQ(*done.item_count, 2);
  std::set<std::string> lines;
  for (const std::string& l : Lines(done)) lines.insert(l);
  EXPECT_EQ(lines, (std::set<std::string>{R"({"Item":{"pk":{"S":"a"},"v":{"S":"1"}}})",
                                          R"({"Item":{"pk":{"S":"b"},"v":{"S":"1"}}})"}));
  // Before point-in-time recovery was enabled: outside the window.
  r.export_time = between - 3600;
  r.client_token = "other";
  auto refused = engine_->ExportTableToPointInTime(ctx_, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kInvalidExportTime);
  EXPECT_EQ(refused.error().message(), "Export Time is invalid");
}

TEST_F(ExportsTest, IncrementalExportWritesEachChangedItemOnce) {
  Put("a", "1");
  Put("b", "1");
  Put("e", "1");
  const double from = Advance(60000);
  Put("a", "2");
  Put("a", "3");
  Delete("b");
  Put("c", "1");
  Put("d", "1");
  Delete("d");  // created and deleted inside the window: not exported
  const double to = Advance(20 * 60000);
  Put("a", "4");  // after the window
  Put("e", "2");
  Advance(60000);

  auto started = engine_->ExportTableToPointInTime(ctx_, Incremental(from, to));
  ASSERT_TRUE(started.ok()) << started.error().message();
  ASSERT_TRUE(started.value().incremental);
  EXPECT_EQ(started.value().incremental->view_type, ExportViewType::kNewAndOldImages);
  ExportDescription done = Wait(started.value().export_arn);
  ASSERT_EQ(done.status, ExportStatus::kCompleted) << done.failure_message.value_or("");
  std::vector<std::string> lines = Lines(done);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(*done.item_count, 3);
  // In key order (hash order); compare without the timestamps.
  std::map<std::string, std::string> by_key;
  for (const std::string& l : lines) {
    const std::string head = "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"";
    ASSERT_EQ(l.compare(0, head.size(), head), 0) << l;
    const size_t end = l.find('"', head.size());
    const uint64_t micros = std::stoull(l.substr(head.size(), end - head.size()));
    EXPECT_GE(micros, static_cast<uint64_t>(from * 1e6));
    EXPECT_LT(micros, static_cast<uint64_t>(to * 1e6));
    std::string rest = l.substr(l.find("\"Keys\""));
    by_key[rest.substr(0, rest.find('}') + 2)] = rest;
  }
  EXPECT_EQ(by_key.at(R"("Keys":{"pk":{"S":"a"}})"),
            R"("Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"S":"3"}},)"
            R"("OldImage":{"pk":{"S":"a"},"v":{"S":"1"}}})");
  EXPECT_EQ(by_key.at(R"("Keys":{"pk":{"S":"b"}})"),
            R"("Keys":{"pk":{"S":"b"}},"OldImage":{"pk":{"S":"b"},"v":{"S":"1"}}})");
  EXPECT_EQ(by_key.at(R"("Keys":{"pk":{"S":"c"}})"),
            R"("Keys":{"pk":{"S":"c"}},"NewImage":{"pk":{"S":"c"},"v":{"S":"1"}}})");
  // The service's incremental layout: data in the prefix's shared data folder, manifests in
  // the export's own.
  ASSERT_EQ(data_keys_.size(), 1u);
  EXPECT_EQ(data_keys_[0].rfind("AWSDynamoDB/data/", 0), 0u) << data_keys_[0];
  EXPECT_NE(summary_.find("\"exportType\":\"INCREMENTAL_EXPORT\""), std::string::npos);
  EXPECT_NE(summary_.find("\"outputView\":\"NEW_AND_OLD_IMAGES\""), std::string::npos);
  EXPECT_NE(summary_.find("\"exportFromTime\":"), std::string::npos);
  EXPECT_NE(summary_.find("\"exportToTime\":"), std::string::npos);
  EXPECT_EQ(summary_.find("\"exportTime\":"), std::string::npos);

  // NEW_IMAGE: no old images; a deleted item is its keys alone.
  data_keys_.clear();
  auto news =
      engine_->ExportTableToPointInTime(ctx_, Incremental(from, to, ExportViewType::kNewImage));
  ASSERT_TRUE(news.ok()) << news.error().message();
  ExportDescription news_done = Wait(news.value().export_arn);
  ASSERT_EQ(news_done.status, ExportStatus::kCompleted);
  int deleted = 0;
  for (const std::string& l : Lines(news_done)) {
    EXPECT_EQ(l.find("OldImage"), std::string::npos) << l;
    deleted += l.find("NewImage") == std::string::npos;
  }
  EXPECT_EQ(deleted, 1);

  // ION: the same records in Ion text (a guess at the service's form).
  data_keys_.clear();
  ExportTableRequest ion = Incremental(from, to);
  ion.export_format = ExportFormat::kIon;
  auto ions = engine_->ExportTableToPointInTime(ctx_, ion);
  ASSERT_TRUE(ions.ok()) << ions.error().message();
  ExportDescription ions_done = Wait(ions.value().export_arn);
  ASSERT_EQ(ions_done.status, ExportStatus::kCompleted);
  std::vector<std::string> ion_lines = Lines(ions_done);
  ASSERT_EQ(ion_lines.size(), 3u);
  for (const std::string& l : ion_lines) {
    EXPECT_EQ(l.rfind("$ion_1_0 {Metadata:{WriteTimestampMicros:", 0), 0u) << l;
    EXPECT_NE(l.find("},Keys:{pk:\""), std::string::npos) << l;
  }
  ASSERT_EQ(data_keys_.size(), 1u);
  EXPECT_EQ(data_keys_[0].substr(data_keys_[0].size() - 7), ".ion.gz");
}

TEST_F(ExportsTest, IncrementalExportValidation) {
  const double start = Now();
  Advance(2 * 86400000ull);  // a recovery window of two days
  const double now = Now();
  auto code = [&](const ExportTableRequest& r) {
    auto e = engine_->ExportTableToPointInTime(ctx_, r);
    if (e.ok()) return std::string("ok");
    const char* kind = e.error().code() == ErrorCode::kInvalidExportTime ? "InvalidExportTime"
                       : e.error().code() == ErrorCode::kValidation      ? "Validation"
                                                                         : "other";
    return std::string(kind) + ": " + e.error().message();
  };
  auto invalid = [](const std::string& text) { return "InvalidExportTime: " + text; };
  EXPECT_EQ(code(Incremental(now - 600, now)),
            invalid("Difference between export period start time and end time should be at "
                    "least 15 minutes"));
  EXPECT_EQ(code(Incremental(now - 25 * 3600, now)),
            invalid("Difference between export period start time and end time should be at "
                    "most 24 hours"));
  EXPECT_EQ(code(Incremental(now - 3600, now - 7200)),
            invalid("ExportFromTime must be earlier than ExportToTime"));
  EXPECT_EQ(code(Incremental(start - 3600, start)),
            invalid("The export period must lie within the point in time recovery window"));
  EXPECT_EQ(code(Incremental(now - 1800, now + 3600)),
            invalid("The export period must lie within the point in time recovery window"));
  ExportTableRequest no_from = Incremental(now - 1800, now);
  no_from.incremental->from_time.reset();
  EXPECT_EQ(code(no_from).rfind("Validation: ", 0), 0u);
  // Exactly 15 minutes, and ExportToTime left out (the latest restorable time).
  EXPECT_EQ(code(Incremental(now - 900, now)), "ok");
  auto open_ended = engine_->ExportTableToPointInTime(ctx_, Incremental(now - 3600, std::nullopt));
  ASSERT_TRUE(open_ended.ok()) << open_ended.error().message();
  ASSERT_TRUE(open_ended.value().incremental->to_time);
  EXPECT_NEAR(*open_ended.value().incremental->to_time, now, 5);
}

}  // namespace
}  // namespace ddb
