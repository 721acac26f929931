// The Prometheus text of GET /metrics (protocol/metrics.cc) read back: the partitions of a
// table and its GSIs, and its hot keys, for `ddb partitions` and `ddb hot-keys`.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ddb::cli {

struct MetricSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Every sample line ("name{a=\"x\",b=\"y\"} 1.5"); comments and malformed lines are skipped.
std::vector<MetricSample> ParseMetricsText(std::string_view text);

struct PartitionRow {
  std::string index;  // "" for the table
  int partition = 0;
  std::string range_start;  // "0x0000000000000000"
  std::string range_end;
  double items = 0;
  double bytes = 0;
  double read_units = 0;
  double write_units = 0;
  double read_throttles = 0;
  double write_throttles = 0;
  // False for a table or index with no reads or writes since the engine opened: the partition
  // model has no figures of it yet, so it is shown as one partition of the whole token range
  // with the stored item count and size (ddb_table_items, ddb_table_size_bytes).
  bool active = true;
};

// The partitions of `table` (the table's first, then each index's), in partition order.
std::vector<PartitionRow> PartitionsOf(const std::vector<MetricSample>& samples,
                                       const std::string& table);

struct HotKeyRow {
  std::string index;  // "" for the table
  int rank = 0;
  std::string key;
  double units = 0;
};

// The hottest partition keys of `table` and its GSIs, most units first.
std::vector<HotKeyRow> HotKeysOf(const std::vector<MetricSample>& samples,
                                 const std::string& table);

}  // namespace ddb::cli
