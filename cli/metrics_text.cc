#include "cli/metrics_text.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace ddb::cli {
namespace {

// Labels between the braces: name="value" pairs, values with \\, \" and \n escapes.
bool ParseLabels(std::string_view s, std::map<std::string, std::string>* labels) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t eq = s.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') return false;
    std::string name(s.substr(i, eq - i));
    std::string value;
    size_t j = eq + 2;
    for (; j < s.size() && s[j] != '"'; ++j) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        ++j;
        value.push_back(s[j] == 'n' ? '\n' : s[j]);
      } else {
        value.push_back(s[j]);
      }
    }
    if (j >= s.size()) return false;
    (*labels)[std::move(name)] = std::move(value);
    i = j + 1;
    if (i < s.size() && s[i] == ',') ++i;
  }
  return true;
}

}  // namespace

std::vector<MetricSample> ParseMetricsText(std::string_view text) {
  std::vector<MetricSample> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    MetricSample sample;
    size_t value_at = 0;
    const size_t brace = line.find('{');
    const size_t space = line.find(' ');
    if (brace != std::string_view::npos && (space == std::string_view::npos || brace < space)) {
      // The closing brace is the last '}' before the value (label values may hold braces).
      const size_t close = line.rfind('}');
      if (close == std::string_view::npos || close < brace) continue;
      sample.name = std::string(line.substr(0, brace));
      if (!ParseLabels(line.substr(brace + 1, close - brace - 1), &sample.labels)) continue;
      value_at = close + 1;
    } else {
      if (space == std::string_view::npos) continue;
      sample.name = std::string(line.substr(0, space));
      value_at = space;
    }
    const std::string value(line.substr(value_at));
    char* parsed_end = nullptr;
    sample.value = std::strtod(value.c_str(), &parsed_end);
    if (parsed_end == value.c_str()) continue;
    out.push_back(std::move(sample));
  }
  return out;
}

std::vector<PartitionRow> PartitionsOf(const std::vector<MetricSample>& samples,
                                       const std::string& table) {
  std::map<std::pair<std::string, int>, PartitionRow> rows;
  for (const MetricSample& s : samples) {
    if (s.name.rfind("ddb_partition_", 0) != 0) continue;
    auto t = s.labels.find("table");
    auto p = s.labels.find("partition");
    if (t == s.labels.end() || t->second != table || p == s.labels.end()) continue;
    auto label = [&](const char* name) {
      auto it = s.labels.find(name);
      return it == s.labels.end() ? std::string() : it->second;
    };
    const std::string index = label("index");
    const int partition = std::atoi(p->second.c_str());
    PartitionRow& row = rows[{index, partition}];
    row.index = index;
    row.partition = partition;
    row.range_start = label("range_start");
    row.range_end = label("range_end");
    const bool read = label("kind") == "read";
    if (s.name == "ddb_partition_items") {
      row.items = s.value;
    } else if (s.name == "ddb_partition_size_bytes") {
      row.bytes = s.value;
    } else if (s.name == "ddb_partition_consumed_capacity_units_total") {
      (read ? row.read_units : row.write_units) = s.value;
    } else if (s.name == "ddb_partition_throttled_requests_total") {
      (read ? row.read_throttles : row.write_throttles) = s.value;
    }
  }
  // Tables and indexes the partition model has not seen since the engine opened.
  for (const MetricSample& s : samples) {
    if (s.name != "ddb_table_items" && s.name != "ddb_table_size_bytes") continue;
    auto t = s.labels.find("table");
    if (t == s.labels.end() || t->second != table) continue;
    auto i = s.labels.find("index");
    const std::string index = i == s.labels.end() ? "" : i->second;
    auto seen = rows.lower_bound({index, 0});
    if (seen != rows.end() && seen->first.first == index && seen->second.active) continue;
    PartitionRow& row = rows[{index, 0}];
    row.index = index;
    row.active = false;
    row.range_start = "0x0000000000000000";
    row.range_end = "0xffffffffffffffff";
    (s.name == "ddb_table_items" ? row.items : row.bytes) = s.value;
  }
  std::vector<PartitionRow> out;
  for (auto& entry : rows) out.push_back(std::move(entry.second));
  return out;  // the map's order: the table ("") first, then indexes by name
}

std::vector<HotKeyRow> HotKeysOf(const std::vector<MetricSample>& samples,
                                 const std::string& table) {
  std::vector<HotKeyRow> out;
  for (const MetricSample& s : samples) {
    if (s.name != "ddb_hot_key_consumed_capacity_units") continue;
    auto t = s.labels.find("table");
    if (t == s.labels.end() || t->second != table) continue;
    HotKeyRow row;
    auto get = [&](const char* name) {
      auto it = s.labels.find(name);
      return it == s.labels.end() ? std::string() : it->second;
    };
    row.index = get("index");
    row.rank = std::atoi(get("rank").c_str());
    row.key = get("key");
    row.units = s.value;
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const HotKeyRow& a, const HotKeyRow& b) {
    return std::tie(a.index, a.rank) < std::tie(b.index, b.rank);
  });
  return out;
}

}  // namespace ddb::cli
