#include "server/s3/s3_api.h"

#include <gtest/gtest.h>

namespace ddb::server {
namespace {

// Which requests the S3 endpoint takes: by the signature's scope (service "s3"), wherever
// the Credential parameter is, or by a presigned query; DynamoDB's are not.
TEST(IsS3Signed, ByTheCredentialScopeOrThePresignedQuery) {
  constexpr std::string_view kSigned =
      ", SignedHeaders=host;x-amz-date, Signature=0123456789abcdef0123456789abcdef";
  EXPECT_TRUE(IsS3Signed(
      "AWS4-HMAC-SHA256 Credential=AKID/20261207/us-east-1/s3/aws4_request" + std::string(kSigned),
      "/bucket/key"));
  EXPECT_FALSE(
      IsS3Signed("AWS4-HMAC-SHA256 Credential=AKID/20261207/us-east-1/dynamodb/"
                 "aws4_request" +
                     std::string(kSigned),
                 "/"));
  // Credential not first: still found.
  EXPECT_TRUE(
      IsS3Signed("AWS4-HMAC-SHA256 SignedHeaders=host, "
                 "Credential=AKID/20261207/us-east-1/s3/aws4_request, Signature=00",
                 "/bucket"));
  EXPECT_TRUE(IsS3Signed("AWS AKID:c2lnbmF0dXJl", "/bucket"));
  EXPECT_FALSE(IsS3Signed(std::nullopt, "/"));
  EXPECT_TRUE(IsS3Signed(std::nullopt,
                         "/b/k?X-Amz-Credential=AKID%2F20261207%2Fus-east-1%2Fs3%2Faws4_request"));
  EXPECT_FALSE(IsS3Signed(std::nullopt,
                          "/b/k?X-Amz-Credential=AKID%2F20261207%2Fus-east-1%2F"
                          "dynamodb%2Faws4_request"));
}

}  // namespace
}  // namespace ddb::server
