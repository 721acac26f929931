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

#include "util/iso8601.h"

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
  std::string line = util::FormatIso8601Millis(int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000);
  line.push_back(' ');
  line.append(kNames[static_cast<int>(level)]);
  line.push_back(' ');
  line.append(message);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ddb::server
