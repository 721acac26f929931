#include "cli/output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ddb::cli {
namespace {

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The first max code points of s.
std::string Truncate(const std::string& s, size_t max) {
  if (CodePoints(s) <= max) return s;
  size_t n = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == max - 3) break;
      ++n;
    }
  }
  return s.substr(0, i) + "...";
}

std::string Pad(const std::string& s, size_t width) {
  return s + std::string(width - std::min(width, CodePoints(s)), ' ');
}

void AppendList(simdjson::dom::array a, std::string* out) {
  *out += "[";
  bool first = true;
  for (simdjson::dom::element e : a) {
    if (!first) *out += ", ";
    first = false;
    if (e.is_string()) {
      *out += std::string(std::string_view(e));
    } else {
      *out += ValueText(e);
    }
  }
  *out += "]";
}

}  // namespace

std::string ValueText(simdjson::dom::element value) {
  simdjson::dom::object obj;
  if (value.get(obj)) return simdjson::to_string(value);
  for (auto field : obj) {
    const std::string_view type = field.key;
    simdjson::dom::element v = field.value;
    std::string out;
    if (type == "S" || type == "N" || type == "B") {
      std::string_view s;
      if (!v.get(s)) return std::string(s);
    } else if (type == "BOOL") {
      bool b = false;
      if (!v.get(b)) return b ? "true" : "false";
    } else if (type == "NULL") {
      return "null";
    } else if (type == "SS" || type == "NS" || type == "BS" || type == "L") {
      simdjson::dom::array a;
      if (!v.get(a)) {
        AppendList(a, &out);
        return out;
      }
    } else if (type == "M") {
      simdjson::dom::object m;
      if (!v.get(m)) {
        out += "{";
        bool first = true;
        for (auto f : m) {
          if (!first) out += ", ";
          first = false;
          out += std::string(f.key) + ": " + ValueText(f.value);
        }
        out += "}";
        return out;
      }
    }
    break;
  }
  return simdjson::to_string(value);
}

std::string RenderTable(const std::vector<std::string>& headers,
                        const std::vector<std::vector<std::string>>& rows, size_t max_width) {
  std::vector<size_t> widths(headers.size(), 0);
  auto cell = [&](const std::vector<std::string>& row, size_t c) {
    return c < row.size() ? Truncate(row[c], max_width) : std::string();
  };
  for (size_t c = 0; c < headers.size(); ++c) {
    widths[c] = CodePoints(headers[c]);
    for (const auto& row : rows) widths[c] = std::max(widths[c], CodePoints(cell(row, c)));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (size_t c = 0; c < headers.size(); ++c) {
      if (c > 0) l += "  ";
      l += c + 1 == headers.size() ? cell(row, c) : Pad(cell(row, c), widths[c]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  const bool has_header =
      std::any_of(headers.begin(), headers.end(), [](const std::string& h) { return !h.empty(); });
  if (has_header) {
    line(headers);
    std::vector<std::string> dashes;
    for (size_t w : widths) dashes.push_back(std::string(w, '-'));
    line(dashes);
  }
  for (const auto& row : rows) line(row);
  return out;
}

std::string RenderItems(const std::vector<simdjson::dom::element>& items,
                        const std::vector<std::string>& key_names) {
  std::vector<std::string> columns = key_names;
  for (simdjson::dom::element item : items) {
    simdjson::dom::object obj;
    if (item.get(obj)) continue;
    for (auto f : obj) {
      const std::string name(f.key);
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) {
        columns.push_back(name);
      }
    }
  }
  std::vector<std::vector<std::string>> rows;
  rows.reserve(items.size());
  for (simdjson::dom::element item : items) {
    std::vector<std::string> row;
    for (const std::string& c : columns) {
      simdjson::dom::element v;
      row.push_back(item[c].get(v) ? std::string() : ValueText(v));
    }
    rows.push_back(std::move(row));
  }
  return RenderTable(columns, rows);
}

std::string Bar(double fraction, int width, bool unicode) {
  fraction = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
  const int eighths = static_cast<int>(std::lround(fraction * width * 8));
  std::string out;
  if (!unicode) {
    const int full = (eighths + 4) / 8;
    return std::string(full, '#') + std::string(width - full, ' ');
  }
  static const char* const kParts[] = {"",       "\u258F", "\u258E", "\u258D",
                                       "\u258C", "\u258B", "\u258A", "\u2589"};
  const int full = eighths / 8;
  for (int i = 0; i < full; ++i) out += "\u2588";
  int cells = full;
  if (eighths % 8 != 0) {
    out += kParts[eighths % 8];
    ++cells;
  }
  out += std::string(width - cells, ' ');
  return out;
}

std::string Grouped(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

std::string HumanBytes(double bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  } else if (bytes < 1024.0 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024);
  } else if (bytes < 1024.0 * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  }
  return buf;
}

}  // namespace ddb::cli
