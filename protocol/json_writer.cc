#include "protocol/json_writer.h"

#include <charconv>
#include <cstdio>

namespace ddb::protocol {

void JsonWriter::Double(double v) {
  Sep();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  out_ += buf;
}

void JsonWriter::Number(double v) {
  Sep();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // "%.17g" of a half-unit multiple is exact; add ".0" so that it reads as a double.
  out_ += buf;
  if (out_.find_first_of(".e", out_.size() - std::char_traits<char>::length(buf)) ==
      std::string::npos) {
    out_ += ".0";
  }
}

void JsonWriter::Int(int64_t v) {
  Sep();
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, end);
}

}  // namespace ddb::protocol
