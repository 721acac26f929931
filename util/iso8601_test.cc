#include "util/iso8601.h"

#include <gtest/gtest.h>

#include <string>

namespace ddb::util {
namespace {

TEST(Iso8601, ExtendedWithMilliseconds) {
  EXPECT_EQ(FormatIso8601Millis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso8601Millis(1604474914028), "2020-11-04T07:28:34.028Z");
  EXPECT_EQ(FormatIso8601Millis(1604474914028, /*zone=*/false), "2020-11-04T07:28:34.028");
  EXPECT_EQ(ParseIso8601Millis("2020-11-04T07:28:34.028Z"), 1604474914028);
  EXPECT_EQ(ParseIso8601Millis("2020-11-04T07:28:34.028", /*zone=*/false), 1604474914028);
  EXPECT_EQ(ParseIso8601Millis("1970-01-01T00:00:00.000Z"), 0);
}

TEST(Iso8601, ExtendedRefusesAnythingItWouldNotWrite) {
  for (const char* bad :
       {"2020-11-04T07:28:34.028", "2020-11-04T07:28:34.028z", "2020-11-04 07:28:34.028Z",
        "2020-11-04T07:28:34Z", "2020-11-04T07:28:34.0280Z", "2020-13-04T07:28:34.028Z",
        "2026-02-30T00:00:00.000Z", "2020-11-04T24:00:00.000Z", "2020-11-04T07:28:60.000Z",
        "1969-12-31T23:59:59.999Z", "2020-11-0xT07:28:34.028Z", ""}) {
    EXPECT_EQ(ParseIso8601Millis(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(ParseIso8601Millis("2020-11-04T07:28:34.028Z", /*zone=*/false), std::nullopt);
}

TEST(Iso8601, BasicSeconds) {
  EXPECT_EQ(FormatIso8601Basic(0), "19700101T000000Z");
  EXPECT_EQ(FormatIso8601Basic(1440938160), "20150830T123600Z");
  EXPECT_EQ(ParseIso8601Basic("20150830T123600Z"), 1440938160);
  // As timegm carries: a leap second and February 30th are read, not refused.
  EXPECT_EQ(ParseIso8601Basic("20150830T123560Z"), 1440938160);
  EXPECT_EQ(ParseIso8601Basic("20260230T000000Z"), ParseIso8601Basic("20260302T000000Z"));
  for (const char* bad : {"20150830T123600", "20150830 123600Z", "2015083T1236000Z",
                          "20151330T123600Z", "20150800T123600Z", "20150830T243600Z",
                          "20150830T126000Z", "20150830T123661Z", "2015083OT123600Z", ""}) {
    EXPECT_EQ(ParseIso8601Basic(bad), std::nullopt) << bad;
  }
}

TEST(Iso8601, JavaDateUtc) {
  // kinesalite's record of the service's iterator-expiry message.
  EXPECT_EQ(FormatJavaDateUtc(uint64_t{1421889722} * 1000 + 999), "Thu Jan 22 01:22:02 UTC 2015");
  EXPECT_EQ(FormatJavaDateUtc(0), "Thu Jan 01 00:00:00 UTC 1970");
}

}  // namespace
}  // namespace ddb::util
