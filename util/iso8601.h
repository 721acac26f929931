// ISO 8601 times in UTC, the two forms the service uses (and Java's Date.toString()):
// - extended, with milliseconds: "2020-11-04T07:28:34.028Z" (export manifests, S3's XML,
//   log lines); without the 'Z' it is a stream label ("2026-11-30T13:47:12.053");
// - basic, whole seconds: "20201104T072834Z" (SigV4's X-Amz-Date).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ddb::util {

// "2020-11-04T07:28:34.028Z" for `epoch_ms` (>= 0); with zone false, without the 'Z'.
std::string FormatIso8601Millis(int64_t epoch_ms, bool zone = true);

// The milliseconds since the epoch of exactly what FormatIso8601Millis(ms, zone) writes for
// some ms >= 0: 23 characters (24 with the 'Z'), digits in place; nullopt for anything else,
// including dates that do not exist ("2026-02-30T...").
std::optional<int64_t> ParseIso8601Millis(std::string_view text, bool zone = true);

// Java's Date.toString() in UTC, "Thu Jan 22 01:22:02 UTC 2015", for `epoch_ms`: how the
// services' iterator-expiry messages (DynamoDB Streams, Kinesis) write times.
std::string FormatJavaDateUtc(uint64_t epoch_ms);

// "20201104T072834Z" for `epoch_seconds`.
std::string FormatIso8601Basic(int64_t epoch_seconds);

// The seconds since the epoch of "YYYYMMDDTHHMMSSZ": 16 characters, digits in place, month
// 1..12, day 1..31, hour 0..23, minute 0..59, second 0..60 (a leap second); an overflowing
// day or second carries over as timegm does ("20260230T000000Z" is March 2nd, as SigV4
// verifiers that use it read it). nullopt for anything else.
std::optional<int64_t> ParseIso8601Basic(std::string_view text);

}  // namespace ddb::util
