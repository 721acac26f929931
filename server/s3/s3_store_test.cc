#include "server/s3/s3_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace ddb::server {
namespace {

class S3StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("ddb-s3-store-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    store_ = std::make_unique<LocalS3Store>(root_, /*sync=*/false);
    bool existed = true;
    ASSERT_TRUE(store_->CreateBucket("bucket", &existed).ok());
    EXPECT_FALSE(existed);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Put(std::string_view key, std::string_view data) {
    std::string etag;
    S3Status s = store_->PutObject("bucket", key, data, &etag);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }

  std::filesystem::path root_;
  std::unique_ptr<LocalS3Store> store_;
};

TEST(S3Names, BucketAndKeyRules) {
  EXPECT_TRUE(CheckBucketName("my-bucket.1").ok());
  EXPECT_FALSE(CheckBucketName("ab").ok());
  EXPECT_FALSE(CheckBucketName("Upper").ok());
  EXPECT_FALSE(CheckBucketName("-start").ok());
  EXPECT_FALSE(CheckBucketName("a..b").ok());
  EXPECT_FALSE(CheckBucketName("192.168.1.1").ok());
  EXPECT_FALSE(CheckBucketName(".ddb-tmp").ok());
  EXPECT_TRUE(CheckObjectKey("a/b c/d.json").ok());
  EXPECT_TRUE(CheckObjectKey("folder/").ok());
  EXPECT_EQ(CheckObjectKey("../escape").error().code, "InvalidArgument");
  EXPECT_EQ(CheckObjectKey("a/./b").error().code, "InvalidArgument");
  EXPECT_EQ(CheckObjectKey("a//b").error().code, "InvalidArgument");
  EXPECT_EQ(CheckObjectKey("/abs").error().code, "InvalidArgument");
  EXPECT_EQ(CheckObjectKey(std::string(1025, 'k')).error().code, "KeyTooLongError");
}

TEST_F(S3StoreTest, PutGetListDelete) {
  Put("b/2.json", "two");
  Put("a.json", "one");
  Put("b/1.json", "1");
  Put("c/d/e.json", "deep");
  S3ObjectInfo info;
  std::string data;
  ASSERT_TRUE(store_->GetObject("bucket", "b/2.json", 1, 5, &info, &data).ok());
  EXPECT_EQ(data, "wo");
  EXPECT_EQ(info.size, 3u);
  EXPECT_EQ(info.etag, "\"" + std::string("b8a9f715dbb64fd5c56e7783c6820a61") + "\"");
  EXPECT_EQ(store_->GetObject("bucket", "b", 0, std::nullopt, &info, &data).error().code,
            "NoSuchKey");

  S3ListResult all;
  ASSERT_TRUE(store_->List("bucket", {}, &all).ok());
  ASSERT_EQ(all.objects.size(), 4u);
  EXPECT_EQ(all.objects[0].key, "a.json");
  EXPECT_EQ(all.objects[3].key, "c/d/e.json");

  S3ListResult grouped;
  ASSERT_TRUE(store_
                  ->List("bucket", {.prefix = "", .delimiter = "/", .after = "", .max_keys = 1000},
                         &grouped)
                  .ok());
  ASSERT_EQ(grouped.objects.size(), 1u);
  EXPECT_EQ(grouped.common_prefixes, (std::vector<std::string>{"b/", "c/"}));

  S3ListResult page;
  ASSERT_TRUE(
      store_->List("bucket", {.prefix = "b/", .delimiter = "", .after = "", .max_keys = 1}, &page)
          .ok());
  ASSERT_EQ(page.objects.size(), 1u);
  EXPECT_TRUE(page.truncated);
  S3ListResult next;
  ASSERT_TRUE(store_
                  ->List("bucket",
                         {.prefix = "b/", .delimiter = "", .after = page.last, .max_keys = 1},
                         &next)
                  .ok());
  ASSERT_EQ(next.objects.size(), 1u);
  EXPECT_EQ(next.objects[0].key, "b/2.json");
  EXPECT_FALSE(next.truncated);

  EXPECT_EQ(store_->DeleteBucket("bucket").error().code, "BucketNotEmpty");
  for (const char* key : {"a.json", "b/1.json", "b/2.json", "c/d/e.json", "never-there"}) {
    EXPECT_TRUE(store_->DeleteObject("bucket", key).ok());
  }
  EXPECT_TRUE(store_->DeleteBucket("bucket").ok());
  EXPECT_FALSE(store_->BucketExists("bucket"));
}

TEST_F(S3StoreTest, KeysThatCannotBeFilesAreRefusedNotCorrupted) {
  Put("a", "file");
  std::string etag;
  EXPECT_EQ(store_->PutObject("bucket", "a/b", "x", &etag).error().code, "InvalidArgument");
  Put("dir/x", "1");
  EXPECT_EQ(store_->PutObject("bucket", "dir", "x", &etag).error().code, "InvalidArgument");
  S3ObjectInfo info;
  std::string data;
  ASSERT_TRUE(store_->GetObject("bucket", "a", 0, std::nullopt, &info, &data).ok());
  EXPECT_EQ(data, "file");
  EXPECT_EQ(store_->PutObject("nobucket", "k", "x", &etag).error().code, "NoSuchBucket");
}

TEST_F(S3StoreTest, MultipartUploadJoinsPartsInOrder) {
  std::string id, e1, e2;
  ASSERT_TRUE(store_->CreateMultipartUpload("bucket", "big", &id).ok());
  const std::string first(5 * 1024 * 1024, 'a');
  ASSERT_TRUE(store_->UploadPart("bucket", "big", id, 1, first, &e1).ok());
  ASSERT_TRUE(store_->UploadPart("bucket", "big", id, 2, "tail", &e2).ok());
  std::string etag;
  EXPECT_EQ(
      store_->CompleteMultipartUpload("bucket", "big", id, {{2, e2}, {1, e1}}, &etag).error().code,
      "InvalidPartOrder");
  EXPECT_EQ(
      store_->CompleteMultipartUpload("bucket", "big", id, {{1, e2}, {2, e2}}, &etag).error().code,
      "InvalidPart");
  EXPECT_EQ(store_->CompleteMultipartUpload("bucket", "other", id, {{1, e1}}, &etag).error().code,
            "NoSuchUpload");
  ASSERT_TRUE(store_->CompleteMultipartUpload("bucket", "big", id, {{1, e1}, {2, e2}}, &etag).ok());
  S3ObjectInfo info;
  ASSERT_TRUE(store_->HeadObject("bucket", "big", &info).ok());
  EXPECT_EQ(info.size, first.size() + 4);
  EXPECT_EQ(store_->AbortMultipartUpload("bucket", "big", id).error().code, "NoSuchUpload");

  std::string small;
  ASSERT_TRUE(store_->CreateMultipartUpload("bucket", "small", &small).ok());
  ASSERT_TRUE(store_->UploadPart("bucket", "small", small, 1, "tiny", &e1).ok());
  ASSERT_TRUE(store_->UploadPart("bucket", "small", small, 2, "tail", &e2).ok());
  EXPECT_EQ(store_->CompleteMultipartUpload("bucket", "small", small, {{1, e1}, {2, e2}}, &etag)
                .error()
                .code,
            "EntityTooSmall");
  EXPECT_TRUE(store_->AbortMultipartUpload("bucket", "small", small).ok());
}

TEST_F(S3StoreTest, OpeningRemovesEarlierProcessesHalfWrittenObjects) {
  const std::filesystem::path temp = root_ / ".ddb-tmp";
  std::filesystem::create_directories(temp);
  std::ofstream(temp / "put-1-0") << "half";
  std::ofstream(temp / "unrelated") << "kept";
  LocalS3Store reopened(root_, /*sync=*/false);
  EXPECT_FALSE(std::filesystem::exists(temp / "put-1-0"));
  EXPECT_TRUE(std::filesystem::exists(temp / "unrelated"));
  S3ListResult all;
  ASSERT_TRUE(reopened.List("bucket", {}, &all).ok());
  EXPECT_TRUE(all.objects.empty());
}

}  // namespace
}  // namespace ddb::server
