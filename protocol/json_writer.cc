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
  out_.reserve(out_.size() + s.size() + 2);
  out_.push_back('"');
  // Append runs of bytes that need no escaping in one go: most strings are one run.
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u != '"' && u != '\\') continue;
    out_.append(s.data() + run, i - run);
    run = i + 1;
    switch (u) {
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
        out_ += "\\u00";
        out_.push_back(kHex[u >> 4]);
        out_.push_back(kHex[u & 0xf]);
    }
  }
  out_.append(s.data() + run, s.size() - run);
  out_.push_back('"');
}

}  // namespace ddb::protocol
