#include "server/s3/s3_payload.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ddb::server {
namespace {

S3Status Read(const std::vector<HeaderField>& headers, std::string body, S3Payload* out) {
  return ReadS3Payload(headers, std::move(body), out);
}

TEST(S3Payload, PlainBodyPassesThrough) {
  S3Payload p;
  ASSERT_TRUE(Read({}, "hello", &p).ok());
  EXPECT_EQ(p.data, "hello");
  EXPECT_TRUE(p.checksums.empty());
}

TEST(S3Payload, UndoesAwsChunkedWithSignaturesAndTrailers) {
  // crc32("hello world") = 0x0d4a1185 -> base64 "DUoRhQ==".
  const std::vector<HeaderField> headers = {
      {"Content-Encoding", "aws-chunked"},
      {"x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"},
      {"x-amz-decoded-content-length", "11"},
      {"x-amz-trailer", "x-amz-checksum-crc32"}};
  S3Payload p;
  S3Status s = Read(headers,
                    "6;chunk-signature=abc\r\nhello \r\n5\r\nworld\r\n0\r\n"
                    "x-amz-checksum-crc32:DUoRhQ==\r\n\r\n",
                    &p);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(p.data, "hello world");
  ASSERT_EQ(p.checksums.size(), 1u);
  EXPECT_EQ(p.checksums[0].first, "x-amz-checksum-crc32");
  EXPECT_EQ(p.checksums[0].second, "DUoRhQ==");
}

TEST(S3Payload, RefusesBadFramingAndLengths) {
  const std::vector<HeaderField> chunked = {{"Content-Encoding", "aws-chunked"}};
  S3Payload p;
  EXPECT_EQ(Read(chunked, "zz\r\nhello\r\n0\r\n\r\n", &p).error().code, "InvalidArgument");
  EXPECT_EQ(Read(chunked, "10\r\nhello\r\n", &p).error().code, "IncompleteBody");
  EXPECT_EQ(Read(chunked, "5\r\nhello", &p).error().code, "IncompleteBody");
  EXPECT_EQ(Read(chunked, "5\r\nhelloXX0\r\n\r\n", &p).error().code, "InvalidArgument");
  const std::vector<HeaderField> wrong_length = {{"Content-Encoding", "aws-chunked"},
                                                 {"x-amz-decoded-content-length", "4"}};
  EXPECT_EQ(Read(wrong_length, "5\r\nhello\r\n0\r\n\r\n", &p).error().code, "IncompleteBody");
}

TEST(S3Payload, ChecksContentMd5AndChecksums) {
  S3Payload p;
  // md5("hello world") = 5eb63bbbe01eeed093cb22bb8f5acdc3 -> "XrY7u+Ae7tCTyyK7j1rNww==".
  EXPECT_TRUE(Read({{"Content-MD5", "XrY7u+Ae7tCTyyK7j1rNww=="}}, "hello world", &p).ok());
  S3Status bad = Read({{"Content-MD5", "XrY7u+Ae7tCTyyK7j1rNww=="}}, "hello there", &p);
  EXPECT_EQ(bad.error().code, "BadDigest");
  EXPECT_EQ(Read({{"Content-MD5", "nope"}}, "x", &p).error().code, "InvalidDigest");
  EXPECT_TRUE(Read({{"x-amz-checksum-crc32", "DUoRhQ=="}}, "hello world", &p).ok());
  S3Status crc = Read({{"x-amz-checksum-crc32", "AAAAAA=="}}, "hello world", &p);
  EXPECT_EQ(crc.error().code, "BadDigest");
  EXPECT_EQ(crc.error().message, "The CRC32 you specified did not match the calculated checksum.");
  EXPECT_EQ(Read({{"x-amz-checksum-sha256", "AAAA"}}, "x", &p).error().code, "InvalidRequest");
  // CRC32C is accepted as sent, and echoed.
  ASSERT_TRUE(Read({{"x-amz-checksum-crc32c", "yZRlqg=="}}, "hello world", &p).ok());
  EXPECT_EQ(p.checksums.size(), 1u);
  // x-amz-checksum-algorithm names an algorithm; it is not a checksum.
  EXPECT_TRUE(Read({{"x-amz-checksum-algorithm", "CRC32"}}, "x", &p).ok());
}

}  // namespace
}  // namespace ddb::server
