// Where the engine's messages go. An embedder passes EngineOptions::logger to send them to its
// own log; the engine never writes to stderr or stdout itself.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace ddb {

enum class LogSeverity : uint8_t {
  kError,    // something failed that a request or a background job needed (a storage error)
  kWarning,  // something was skipped or will be retried (an unreadable change record)
  kInfo,     // a notable event in a background job
};

// Called from any engine thread, concurrently, with one line's text (no trailing newline).
// It must not call back into the engine, and should return quickly: background jobs and
// request threads call it as they go.
using Logger = std::function<void(LogSeverity severity, std::string_view message)>;

// Writes "ddb: <message>\n" to stderr, one fwrite per message (EngineOptions' default).
Logger StderrLogger();

// "error", "warning", "info".
std::string_view LogSeverityName(LogSeverity severity);

}  // namespace ddb
