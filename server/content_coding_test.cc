#include "server/content_coding.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb {
namespace {

TEST(ContentCoding, ChoosesFromAcceptEncodingAsTheServiceDoes) {
  EXPECT_EQ(ChooseResponseCoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("gzip"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("gzip, deflate, br"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0.5, deflate;q=0.8"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("GZIP ; Q=1"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("*"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("*;q=0.1, gzip;q=0"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("identity"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("br"), ContentCoding::kIdentity);
  // The service's answers where they differ from RFC 9110's reading (alternator's
  // test_compressed_response_accept_encodings, recorded against DynamoDB).
  EXPECT_EQ(ChooseResponseCoding("x-gzip"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("br, identity, deflate, gzip"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("br, gzip;q=0, deflate; q = 0.5 , identity;q=0"),
            ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("*, deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("*;q=0.5,identity"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0.5,identity;q=0.8"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("deflate;q=0.5, gzip;q=31"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=31,deflate;q=51"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("deflate;q=0.5, gzip;q=1;q=0.2"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("deflate;q=0.5,gzip;q=0.x"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0, gzip;q=1, gzip;q=0"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("br,identity;q=0.5,gzip;q=0.0001"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("deflate, gzip"), ContentCoding::kDeflate);
}

TEST(ContentCoding, CompressAndInflateRoundTrip) {
  std::string body(20000, 'a');
  for (size_t i = 0; i < body.size(); i += 7) body[i] = static_cast<char>('a' + i % 26);
  for (ContentCoding c : {ContentCoding::kGzip, ContentCoding::kDeflate}) {
    std::string compressed, back;
    ASSERT_TRUE(Compress(c, body, &compressed));
    EXPECT_LT(compressed.size(), body.size());
    ASSERT_EQ(Inflate(c, compressed, 1 << 20, &back), InflateResult::kOk);
    EXPECT_EQ(back, body);
    back.clear();
    EXPECT_EQ(Inflate(c, compressed, 100, &back), InflateResult::kTooLarge);
    back.clear();
    EXPECT_EQ(Inflate(c, compressed.substr(0, compressed.size() / 2), 1 << 20, &back),
              InflateResult::kCorrupt);
  }
}

TEST(ContentCoding, ParsesRequestContentEncodings) {
  ContentCoding c;
  ASSERT_TRUE(ParseContentEncoding("", &c));
  EXPECT_EQ(c, ContentCoding::kIdentity);
  ASSERT_TRUE(ParseContentEncoding("Identity", &c));
  EXPECT_EQ(c, ContentCoding::kIdentity);
  ASSERT_TRUE(ParseContentEncoding("GZIP", &c));
  EXPECT_EQ(c, ContentCoding::kGzip);
  ASSERT_TRUE(ParseContentEncoding("deflate", &c));
  EXPECT_EQ(c, ContentCoding::kDeflate);
  EXPECT_FALSE(ParseContentEncoding("br", &c));
}

}  // namespace
}  // namespace ddb
