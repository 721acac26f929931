#include "protocol/json_writer.h"

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

void JsonWriter::WriteString(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out_.push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      case '\b':
        out_ += "\\b";
        break;
      case '\f':
        out_ += "\\f";
        break;
      default:
        if (u < 0x20) {
          out_ += "\\u00";
          out_.push_back(kHex[u >> 4]);
          out_.push_back(kHex[u & 0xf]);
        } else {
          out_.push_back(c);
        }
    }
  }
  out_.push_back('"');
}

}  // namespace ddb::protocol
