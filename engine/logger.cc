#include "ddb/logger.h"

#include <cstdio>
#include <string>

namespace ddb {

Logger StderrLogger() {
  return [](LogSeverity, std::string_view message) {
    std::string line = "ddb: ";
    line.append(message);
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
  };
}

std::string_view LogSeverityName(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kError:
      return "error";
    case LogSeverity::kWarning:
      return "warning";
    case LogSeverity::kInfo:
      return "info";
  }
  return "error";
}

}  // namespace ddb
