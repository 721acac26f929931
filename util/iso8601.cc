#include "util/iso8601.h"

#include <cstdio>
#include <ctime>

namespace ddb::util {
namespace {

// The number written in text[at, at + n), all digits; -1 when one is not.
int Digits(std::string_view text, size_t at, size_t n) {
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::tm Utc(int64_t epoch_seconds) {
  const std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

}  // namespace

std::string FormatIso8601Millis(int64_t epoch_ms, bool zone) {
  const std::tm tm = Utc(epoch_ms / 1000);
  char text[96];  // room for any int fields, which -Wformat-truncation counts
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(epoch_ms % 1000), zone ? "Z" : "");
  return text;
}

std::optional<int64_t> ParseIso8601Millis(std::string_view text, bool zone) {
  constexpr size_t kSize = 23;  // "2026-11-30T13:47:12.053"
  if (text.size() != kSize + (zone ? 1 : 0)) return std::nullopt;
  if (zone && text.back() != 'Z') return std::nullopt;
  for (size_t i = 0; i < kSize; ++i) {
    const char want = i == 4 || i == 7     ? '-'
                      : i == 10            ? 'T'
                      : i == 13 || i == 16 ? ':'
                      : i == 19            ? '.'
                                           : 0;
    if (want ? text[i] != want : (text[i] < '0' || text[i] > '9')) return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = Digits(text, 0, 4) - 1900;
  tm.tm_mon = Digits(text, 5, 2) - 1;
  tm.tm_mday = Digits(text, 8, 2);
  tm.tm_hour = Digits(text, 11, 2);
  tm.tm_min = Digits(text, 14, 2);
  tm.tm_sec = Digits(text, 17, 2);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 59) {
    return std::nullopt;
  }
  const std::time_t seconds = timegm(&tm);
  if (seconds < 0) return std::nullopt;
  const int64_t ms = static_cast<int64_t>(seconds) * 1000 + Digits(text, 20, 3);
  if (FormatIso8601Millis(ms, zone) != text) return std::nullopt;  // e.g. February 30th
  return ms;
}

std::string FormatIso8601Basic(int64_t epoch_seconds) {
  const std::tm tm = Utc(epoch_seconds);
  char text[80];  // room for any int fields, which -Wformat-truncation counts
  std::snprintf(text, sizeof text, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return text;
}

std::optional<int64_t> ParseIso8601Basic(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  int v[6];
  const size_t offsets[6] = {0, 4, 6, 9, 11, 13};
  const size_t lengths[6] = {4, 2, 2, 2, 2, 2};
  for (int f = 0; f < 6; ++f) {
    v[f] = Digits(text, offsets[f], lengths[f]);
    if (v[f] < 0) return std::nullopt;
  }
  if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = v[0] - 1900;
  tm.tm_mon = v[1] - 1;
  tm.tm_mday = v[2];
  tm.tm_hour = v[3];
  tm.tm_min = v[4];
  tm.tm_sec = v[5];
  return static_cast<int64_t>(timegm(&tm));
}

std::string FormatJavaDateUtc(uint64_t epoch_ms) {
  const time_t seconds = static_cast<time_t>(epoch_ms / 1000);
  struct tm tm;
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm);
  return buf;
}

}  // namespace ddb::util
