// Leveled logging to stderr for the server layer: one line per call, "<UTC time> <LEVEL> msg".
// Header-only on purpose: four small functions do not justify a library or a dependency
// (spdlog/glog), and keeping it inline adds no build target.
// Thread safety: all functions may be called concurrently. Each line is written with a single
// fwrite on stderr, which glibc locks, so lines from different threads do not interleave.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace ddb::server {

// Ordered by verbosity: a message is printed when its level <= the current level.
enum class LogLevel : uint8_t { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// "error", "warn", "info", "debug" -> the level; anything else -> nullopt.
inline std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  if (name == "error") return LogLevel::kError;
  if (name == "warn") return LogLevel::kWarn;
  if (name == "info") return LogLevel::kInfo;
  if (name == "debug") return LogLevel::kDebug;
  return std::nullopt;
}

namespace log_internal {
inline std::atomic<LogLevel> current_level{LogLevel::kInfo};
}  // namespace log_internal

inline void SetLogLevel(LogLevel level) {
  log_internal::current_level.store(level, std::memory_order_relaxed);
}

// Callers building an expensive message check this first (per-request debug lines).
inline bool LogEnabled(LogLevel level) {
  return level <= log_internal::current_level.load(std::memory_order_relaxed);
}

// Writes "2026-11-30T11:10:00.123Z INFO message\n" to stderr when `level` is enabled.
inline void Log(LogLevel level, std::string_view message) {
  if (!LogEnabled(level)) return;
  static constexpr const char* kNames[] = {"ERROR", "WARN", "INFO", "DEBUG"};
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char stamp[48];
  const int n =
      std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ",
                    utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                    utc.tm_sec, now.tv_nsec / 1000000, kNames[static_cast<int>(level)]);
  std::string line(stamp, n > 0 ? static_cast<size_t>(n) : 0);
  line.append(message);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ddb::server
