// The on-disk format versions (store_format.h): the store's record written at creation and
// checked at open, newer table records, index key formats and stores refused with a clear
// error and left as they were, and change records of format 0 (no version byte) still read.
#include "engine/storage/store_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "ddb/engine.h"
#include "ddb/stored_item.h"
#include "engine/change_log.h"
#include "engine/storage/coding.h"

namespace ddb {
namespace {

class StoreFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (std::filesystem::temp_directory_path() / "ddb-format-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<std::unique_ptr<Engine>> OpenEngine() {
    EngineOptions options;
    options.data_dir = dir_;
    return Engine::Open(options);
  }

  void CreateTableWithGsi() {
    auto engine = OpenEngine();
    ASSERT_TRUE(engine.ok()) << engine.error().message();
    CreateTableRequest req;
    req.table_name = "tab";
    req.attribute_definitions = {{"pk", ScalarType::kS}, {"g", ScalarType::kS}};
    req.key_schema = {{"pk", KeyType::kHash}};
    req.billing_mode = BillingMode::kPayPerRequest;
    SecondaryIndexDefinition gsi;
    gsi.index_name = "byG";
    gsi.key_schema = {{"g", KeyType::kHash}};
    gsi.projection.projection_type = ProjectionType::kAll;
    req.global_secondary_indexes = {gsi};
    auto created = (*engine)->CreateTable(RequestContext{}, req);
    ASSERT_TRUE(created.ok()) << created.error().message();
  }

  // Runs `change` on the raw store, with no engine open.
  template <typename F>
  void WithStorage(F change) {
    auto storage = Storage::Open(StorageOptions{dir_});
    ASSERT_TRUE(storage.ok()) << storage.error().message();
    change(**storage);
  }

  // Rewrites the table record of "tab" with `edit` applied.
  template <typename F>
  void EditTableRecord(F edit) {
    WithStorage([&](Storage& storage) {
      auto raw = storage.Get(Cf::kCatalog, "tab");
      ASSERT_TRUE(raw.ok() && raw.value().has_value());
      Item record;
      ASSERT_TRUE(DecodeItem(*raw.value(), &record));
      edit(&record);
      std::string encoded;
      EncodeItem(record, &encoded);
      Storage::Batch batch(storage);
      batch.Put(Cf::kCatalog, "tab", encoded);
      ASSERT_TRUE(storage.Write(batch).ok());
    });
  }

  std::string dir_;
};

TEST_F(StoreFormatTest, ANewStoreRecordsItsFormat) {
  ASSERT_TRUE(OpenEngine().ok());
  WithStorage([](Storage& storage) {
    auto record = storage.Get(Cf::kMeta, "format");
    ASSERT_TRUE(record.ok() && record.value().has_value());
    std::string_view in = *record.value();
    uint64_t format = 0;
    ASSERT_TRUE(GetFixedBE(&in, 4, &format));
    EXPECT_EQ(format, kStoreFormat);
    EXPECT_TRUE(in.starts_with("ddb ")) << in;
  });
}

TEST_F(StoreFormatTest, AStoreWithoutARecordIsReadAndGetsOne) {
  CreateTableWithGsi();
  WithStorage([](Storage& storage) {  // as the stores before the record existed
    Storage::Batch batch(storage);
    batch.Delete(Cf::kMeta, "format");
    ASSERT_TRUE(storage.Write(batch).ok());
  });
  auto engine = OpenEngine();
  ASSERT_TRUE(engine.ok()) << engine.error().message();
  EXPECT_TRUE((*engine)->DescribeTable(RequestContext{}, "tab").ok());
  engine->reset();
  WithStorage([](Storage& storage) {
    auto record = storage.Get(Cf::kMeta, "format");
    EXPECT_TRUE(record.ok() && record.value().has_value());
  });
}

TEST_F(StoreFormatTest, ANewerStoreIsRefusedAndLeftAsItWas) {
  CreateTableWithGsi();
  std::string newer;
  PutFixed32BE(&newer, kStoreFormat + 1);
  newer += "ddb 9.0.0";
  WithStorage([&](Storage& storage) {
    Storage::Batch batch(storage);
    batch.Put(Cf::kMeta, "format", newer);
    ASSERT_TRUE(storage.Write(batch).ok());
  });
  auto engine = OpenEngine();
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().message(),
            "the store (written by 'ddb 9.0.0') has on-disk format " +
                std::to_string(kStoreFormat + 1) + ", newer than this build reads (" +
                std::to_string(kStoreFormat) + "): open it with the newer ddb that wrote it");
  WithStorage([&](Storage& storage) {
    EXPECT_EQ(storage.Get(Cf::kMeta, "format").value(), newer);
    EXPECT_TRUE(storage.Get(Cf::kCatalog, "tab").value().has_value());
  });
}

TEST_F(StoreFormatTest, TableRecordsCarryTheirFormatAndANewerOneIsRefused) {
  CreateTableWithGsi();
  EditTableRecord([](Item* record) {
    // A table without replicas keeps format 2, which builds before global tables read.
    EXPECT_EQ(record->at("Format").scalar(), std::to_string(kTableRecordFormatBeforeReplicas));
    (*record)["Format"] = AttributeValue::N(std::to_string(kTableRecordFormat + 1));
  });
  auto engine = OpenEngine();
  ASSERT_FALSE(engine.ok());
  const std::string want =
      "the record of table tab has on-disk format " + std::to_string(kTableRecordFormat + 1);
  EXPECT_EQ(engine.error().message().rfind(want, 0), 0) << engine.error().message();
}

// New tables hash their keys the service's way (key format 2); a newer key format is refused.
TEST_F(StoreFormatTest, TablesCarryTheirKeyFormatAndANewerOneIsRefused) {
  CreateTableWithGsi();
  EditTableRecord([](Item* record) {
    EXPECT_EQ(record->at("KeyFormat").scalar(), std::to_string(kTableKeyFormat));
    (*record)["KeyFormat"] = AttributeValue::N(std::to_string(kTableKeyFormat + 1));
  });
  auto engine = OpenEngine();
  ASSERT_FALSE(engine.ok());
  const std::string want =
      "the keys of table tab has on-disk format " + std::to_string(kTableKeyFormat + 1);
  EXPECT_EQ(engine.error().message().rfind(want, 0), 0) << engine.error().message();
}

TEST_F(StoreFormatTest, IndexesCarryTheirKeyFormatAndANewerOneIsRefused) {
  CreateTableWithGsi();
  EditTableRecord([](Item* record) {
    AttributeMap gsi = record->at("GlobalSecondaryIndexes").list().at(0).map();
    EXPECT_EQ(gsi.at("KeyFormat").scalar(), std::to_string(kIndexKeyFormat));
    gsi["KeyFormat"] = AttributeValue::N(std::to_string(kIndexKeyFormat + 1));
    (*record)["GlobalSecondaryIndexes"] = AttributeValue::L({AttributeValue::M(std::move(gsi))});
  });
  auto engine = OpenEngine();
  ASSERT_FALSE(engine.ok());
  const std::string want =
      "index byG of table tab has on-disk format " + std::to_string(kIndexKeyFormat + 1);
  EXPECT_EQ(engine.error().message().rfind(want, 0), 0) << engine.error().message();
}

TEST_F(StoreFormatTest, RecordsWithoutFormatsAreFormatOne) {
  CreateTableWithGsi();
  EditTableRecord([](Item* record) {
    record->erase("Format");
    AttributeMap gsi = record->at("GlobalSecondaryIndexes").list().at(0).map();
    gsi.erase("KeyFormat");
    (*record)["GlobalSecondaryIndexes"] = AttributeValue::L({AttributeValue::M(std::move(gsi))});
  });
  auto engine = OpenEngine();
  ASSERT_TRUE(engine.ok()) << engine.error().message();
}

TEST(ChangeRecordFormat, FormatZeroAndOneAreReadNewerIsNot) {
  const Item image{{"pk", AttributeValue::S("a")}};
  const std::string current = EncodeChange(7, 99, "key", std::nullopt, image);
  ASSERT_EQ(static_cast<uint8_t>(current[0]), kChangeRecordFormat);
  ChangeRecord r;
  ASSERT_TRUE(DecodeChange(ChangeKey(5), current, &r));
  EXPECT_EQ(r.table_id, 7u);
  // Format 0: the same without the version byte.
  ASSERT_TRUE(DecodeChange(ChangeKey(5), current.substr(1), &r));
  EXPECT_EQ(r.table_id, 7u);
  EXPECT_EQ(r.commit_time_ms, 99u);
  EXPECT_EQ(r.new_image, image);
  std::string newer = current;
  newer[0] = static_cast<char>(kChangeRecordFormat + 1);
  EXPECT_FALSE(DecodeChange(ChangeKey(5), newer, &r));
}

}  // namespace
}  // namespace ddb
