// Splitting a fuzz input into lines, for the targets whose inputs are line-structured.
#pragma once

#include <string_view>

// The next line of *in (without its "\n" or "\r\n"), which is consumed.
inline std::string_view TakeLine(std::string_view* in) {
  size_t end = in->find('\n');
  std::string_view line = in->substr(0, end);
  in->remove_prefix(end == std::string_view::npos ? in->size() : end + 1);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}
