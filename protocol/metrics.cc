#include "protocol/metrics.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>

#include "protocol/handler.h"
#include "util/hex.h"

namespace ddb::protocol {
namespace {

constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                             0.05,   0.1,   0.25,   0.5,   1,    2.5};

struct OperationStats {
  std::array<uint64_t, kBuckets.size() + 1> buckets{};  // the last is +Inf
  uint64_t count = 0;
  double sum = 0;
  std::map<std::string, uint64_t, std::less<>> errors;  // by error type
};

std::mutex& StatsMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, OperationStats, std::less<>>& Stats() {
  static std::map<std::string, OperationStats, std::less<>> stats;
  return stats;
}

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void Header(std::string* out, const char* name, const char* type, const char* help) {
  *out += "# HELP ";
  *out += name;
  *out += " ";
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += " ";
  *out += type;
  *out += "\n";
}

void Sample(std::string* out, const char* name, const std::string& labels, double value) {
  *out += name;
  if (!labels.empty()) *out += "{" + labels + "}";
  *out += " " + Num(value) + "\n";
}

std::string TableLabels(const std::string& table, const std::string& index) {
  std::string l = "table=\"" + Escape(table) + "\"";
  if (!index.empty()) l += ",index=\"" + Escape(index) + "\"";
  return l;
}

std::atomic<uint64_t> overdue_requests_total{0};
std::atomic<int> overdue_requests_now{0};

std::string Hex(uint64_t v) { return "0x" + util::Hex64(v); }

}  // namespace

std::string KeyLabel(std::string_view key) {
  bool printable = true;
  for (size_t i = 0; i < key.size() && printable;) {
    auto c = static_cast<unsigned char>(key[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > key.size()) printable = false;
    for (size_t k = 1; k < len && printable; ++k) {
      if ((static_cast<unsigned char>(key[i + k]) >> 6) != 2) printable = false;
    }
    i += len ? len : 1;
  }
  if (printable) return std::string(key);
  std::string out = "0x";
  util::AppendHex(&out, key);
  return out;
}

void RecordRequest(std::string_view operation, double seconds, int status,
                   std::string_view error_type) {
  std::lock_guard lock(StatsMutex());
  auto it = Stats().find(operation);
  if (it == Stats().end()) it = Stats().emplace(std::string(operation), OperationStats()).first;
  OperationStats& s = it->second;
  size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  ++s.buckets[b];
  ++s.count;
  s.sum += seconds;
  if (status != 200) {
    auto e = s.errors.find(error_type);
    if (e == s.errors.end()) e = s.errors.emplace(std::string(error_type), 0).first;
    ++e->second;
  }
}

void RecordOverdueRequest() { overdue_requests_total.fetch_add(1, std::memory_order_relaxed); }

void SetOverdueRequests(int running) {
  overdue_requests_now.store(running, std::memory_order_relaxed);
}

std::string RenderMetrics(const std::vector<MetricsSource>& sources) {
  std::string out;
  {
    std::lock_guard lock(StatsMutex());
    Header(&out, "ddb_request_duration_seconds", "histogram",
           "Time to answer a request, by operation.");
    for (const auto& [op, s] : Stats()) {
      uint64_t cumulative = 0;
      for (size_t b = 0; b <= kBuckets.size(); ++b) {
        cumulative += s.buckets[b];
        char bound[16];
        std::snprintf(bound, sizeof bound, "%g", b < kBuckets.size() ? kBuckets[b] : 0.0);
        std::string le = b < kBuckets.size() ? bound : "+Inf";
        Sample(&out, "ddb_request_duration_seconds_bucket",
               "operation=\"" + op + "\",le=\"" + le + "\"", static_cast<double>(cumulative));
      }
      Sample(&out, "ddb_request_duration_seconds_sum", "operation=\"" + op + "\"", s.sum);
      Sample(&out, "ddb_request_duration_seconds_count", "operation=\"" + op + "\"",
             static_cast<double>(s.count));
    }
    Header(&out, "ddb_request_errors_total", "counter",
           "Requests answered with an error, by operation and error type (user errors are "
           "4xx, system errors InternalServerError).");
    for (const auto& [op, s] : Stats()) {
      for (const auto& [type, n] : s.errors) {
        Sample(&out, "ddb_request_errors_total",
               "operation=\"" + op + "\",type=\"" + Escape(type) + "\"", static_cast<double>(n));
      }
    }
  }

  Header(&out, "ddb_requests_overdue_total", "counter",
         "Requests that ran past --request-watchdog-seconds (each counted once, when found).");
  Sample(&out, "ddb_requests_overdue_total", "",
         static_cast<double>(overdue_requests_total.load(std::memory_order_relaxed)));
  Header(&out, "ddb_requests_overdue", "gauge",
         "Requests running past --request-watchdog-seconds now (at the watchdog's last look).");
  Sample(&out, "ddb_requests_overdue", "",
         static_cast<double>(overdue_requests_now.load(std::memory_order_relaxed)));

  // The engines' figures: every series labelled with its namespace (none when shared).
  std::vector<std::pair<std::string, EngineMetrics>> all;
  for (const MetricsSource& source : sources) {
    all.emplace_back(source.labels, source.engine->GetMetrics());
  }
  auto with = [](const std::string& ns, std::string labels) {
    if (ns.empty()) return labels;
    return labels.empty() ? ns : ns + "," + labels;
  };
  auto single = [&](const char* name, const char* type, const char* help, auto value_of) {
    Header(&out, name, type, help);
    for (const auto& [ns, m] : all) Sample(&out, name, ns, static_cast<double>(value_of(m)));
  };
  Header(&out, "ddb_table_items", "gauge", "Items in a table or index.");
  for (const auto& [ns, m] : all) {
    for (const auto& t : m.tables) {
      Sample(&out, "ddb_table_items", with(ns, TableLabels(t.name, "")),
             static_cast<double>(t.item_count));
      for (const IndexFigures& index : t.indexes) {
        Sample(&out, "ddb_table_items", with(ns, TableLabels(t.name, index.index_name)),
               static_cast<double>(index.item_count));
      }
    }
  }
  Header(&out, "ddb_table_size_bytes", "gauge", "Item bytes in a table or index.");
  for (const auto& [ns, m] : all) {
    for (const auto& t : m.tables) {
      Sample(&out, "ddb_table_size_bytes", with(ns, TableLabels(t.name, "")),
             static_cast<double>(t.size_bytes));
      for (const IndexFigures& index : t.indexes) {
        Sample(&out, "ddb_table_size_bytes", with(ns, TableLabels(t.name, index.index_name)),
               static_cast<double>(index.size_bytes));
      }
    }
  }
  single("ddb_gsi_pending_changes", "gauge",
         "Committed writes the change-log applier has not yet applied to global secondary "
         "indexes (0 unless --gsi-propagation-delay-ms is set: GSIs are otherwise written with "
         "their items).",
         [](const EngineMetrics& m) { return m.gsi_pending_changes; });
  single("ddb_gsi_lag_seconds", "gauge",
         "Age of the oldest committed write not yet applied to global secondary indexes.",
         [](const EngineMetrics& m) { return static_cast<double>(m.gsi_lag_ms) / 1000.0; });
  single("ddb_gsi_unreadable_changes_total", "counter",
         "Change records the GSI applier skipped because they did not decode (logged).",
         [](const EngineMetrics& m) { return m.gsi_unreadable_changes; });
  single("ddb_gsi_apply_errors_total", "counter",
         "GSI applier rounds that failed to read the change log or write the index (retried).",
         [](const EngineMetrics& m) { return m.gsi_apply_errors; });
  single("ddb_gsi_wait_timeouts_total", "counter",
         "Waits for the GSI applier (an index backfill under simulated lag) that ran out "
         "without progress.",
         [](const EngineMetrics& m) { return m.gsi_wait_timeouts; });
  single("ddb_storage_read_only", "gauge",
         "1 while the store refuses writes after a background error (a full disk, an I/O "
         "error); it retries and resumes by itself.",
         [](const EngineMetrics& m) { return m.storage_read_only ? 1 : 0; });
  single("ddb_storage_disk_full", "gauge",
         "1 while the store refuses writes because its disk is full.",
         [](const EngineMetrics& m) { return m.storage_disk_full ? 1 : 0; });
  single("ddb_storage_write_stops_total", "counter",
         "Times the store stopped taking writes after a background error.",
         [](const EngineMetrics& m) { return m.storage_write_stops; });
  single("ddb_storage_write_resumes_total", "counter",
         "Times the store resumed taking writes by itself after such a stop.",
         [](const EngineMetrics& m) { return m.storage_write_resumes; });
  single("ddb_storage_cache_capacity_bytes", "gauge",
         "The block cache's capacity (--cache-size), shared by every namespace.",
         [](const EngineMetrics& m) { return m.storage_cache_capacity_bytes; });
  single("ddb_storage_cache_usage_bytes", "gauge",
         "What the block cache holds: cached blocks, and the memtables charged to it.",
         [](const EngineMetrics& m) { return m.storage_cache_usage_bytes; });
  single("ddb_storage_memtable_bytes", "gauge",
         "Memory of every namespace's memtables (at most half the cache, at least 32 MiB).",
         [](const EngineMetrics& m) { return m.storage_memtable_bytes; });
  single("ddb_storage_pending_compaction_bytes", "gauge",
         "Bytes RocksDB estimates the store's compactions still have to rewrite: a bulk load "
         "leaves such a debt, which reads pay for until it is worked off.",
         [](const EngineMetrics& m) { return m.storage_pending_compaction_bytes; });
  single("ddb_storage_running_compactions", "gauge", "Compactions of the store running now.",
         [](const EngineMetrics& m) { return m.storage_running_compactions; });

  Header(&out, "ddb_consumed_capacity_units_total", "counter",
         "Capacity units consumed by a table or index, by kind (read, write).");
  for (const auto& [ns, m] : all) {
    for (const auto& r : m.resources) {
      std::string l = with(ns, TableLabels(r.table, r.index));
      Sample(&out, "ddb_consumed_capacity_units_total", l + ",kind=\"read\"",
             r.consumed_read_units);
      Sample(&out, "ddb_consumed_capacity_units_total", l + ",kind=\"write\"",
             r.consumed_write_units);
    }
  }
  Header(&out, "ddb_throttled_requests_total", "counter",
         "Requests throttled (ProvisionedThroughputExceededException), by kind.");
  for (const auto& [ns, m] : all) {
    for (const auto& r : m.resources) {
      std::string l = with(ns, TableLabels(r.table, r.index));
      Sample(&out, "ddb_throttled_requests_total", l + ",kind=\"read\"",
             static_cast<double>(r.read_throttles));
      Sample(&out, "ddb_throttled_requests_total", l + ",kind=\"write\"",
             static_cast<double>(r.write_throttles));
    }
  }
  single("ddb_ttl_deleted_items_total", "counter",
         "Items deleted by Time to Live because their expiry time passed.",
         [](const EngineMetrics& m) { return m.ttl_deleted_items; });
  single("ddb_ttl_delete_errors_total", "counter",
         "Time to Live deletes that failed (retried by the next sweep).",
         [](const EngineMetrics& m) { return m.ttl_delete_errors; });
  Header(&out, "ddb_housekeeping_rounds_total", "counter",
         "Rounds of a background job (the engine's housekeeping task named by the label).");
  for (const auto& [ns, m] : all) {
    for (const HousekeepingFigures& h : m.housekeeping) {
      Sample(&out, "ddb_housekeeping_rounds_total", with(ns, "task=\"" + h.task + "\""),
             static_cast<double>(h.rounds));
    }
  }
  Header(&out, "ddb_housekeeping_failures_total", "counter",
         "Rounds of a background job that failed (logged when a streak starts; retried).");
  for (const auto& [ns, m] : all) {
    for (const HousekeepingFigures& h : m.housekeeping) {
      Sample(&out, "ddb_housekeeping_failures_total", with(ns, "task=\"" + h.task + "\""),
             static_cast<double>(h.failures));
    }
  }
  Header(&out, "ddb_partition_splits_total", "counter", "Partition splits of a table or index.");
  for (const auto& [ns, m] : all) {
    for (const auto& r : m.resources) {
      Sample(&out, "ddb_partition_splits_total", with(ns, TableLabels(r.table, r.index)),
             static_cast<double>(r.splits));
    }
  }
  Header(&out, "ddb_partition_consumed_capacity_units_total", "counter",
         "Capacity units consumed in one partition (a range of the partition-key hash).");
  Header(&out, "ddb_partition_throttled_requests_total", "counter",
         "Requests throttled in one partition.");
  Header(&out, "ddb_partition_items", "gauge", "Items in one partition (since start).");
  Header(&out, "ddb_partition_size_bytes", "gauge", "Item bytes in one partition (since start).");
  for (const auto& [ns, m] : all) {
    for (const auto& r : m.resources) {
      for (size_t i = 0; i < r.partitions.size(); ++i) {
        const PartitionSnapshot& p = r.partitions[i];
        std::string l = with(ns, TableLabels(r.table, r.index)) + ",partition=\"" +
                        std::to_string(i) + "\",range_start=\"" + Hex(p.start) + "\",range_end=\"" +
                        Hex(p.end) + "\"";
        Sample(&out, "ddb_partition_consumed_capacity_units_total", l + ",kind=\"read\"",
               p.consumed_read_units);
        Sample(&out, "ddb_partition_consumed_capacity_units_total", l + ",kind=\"write\"",
               p.consumed_write_units);
        Sample(&out, "ddb_partition_throttled_requests_total", l + ",kind=\"read\"",
               static_cast<double>(p.read_throttles));
        Sample(&out, "ddb_partition_throttled_requests_total", l + ",kind=\"write\"",
               static_cast<double>(p.write_throttles));
        Sample(&out, "ddb_partition_items", l, static_cast<double>(p.items));
        Sample(&out, "ddb_partition_size_bytes", l, static_cast<double>(p.bytes));
      }
    }
  }
  Header(&out, "ddb_hot_key_consumed_capacity_units", "gauge",
         "The partition keys that consumed the most capacity units (contributor insights).");
  for (const auto& [ns, m] : all) {
    for (const auto& r : m.resources) {
      for (size_t i = 0; i < r.hottest_keys.size(); ++i) {
        Sample(&out, "ddb_hot_key_consumed_capacity_units",
               with(ns, TableLabels(r.table, r.index)) + ",rank=\"" + std::to_string(i + 1) +
                   "\",key=\"" + Escape(KeyLabel(r.hottest_keys[i].key)) + "\"",
               r.hottest_keys[i].units);
      }
    }
  }
  Header(&out, "ddb_contributor_insights_top_keys", "gauge",
         "Contributor insights (tables and GSIs where enabled): the keys that consumed the most "
         "capacity units, or were throttled most, since insights were enabled.");
  for (const auto& [ns, m] : all) {
    for (const ContributorRanking& r : m.contributor_insights) {
      for (size_t i = 0; i < r.keys.size(); ++i) {
        std::string labels = with(ns, TableLabels(r.table, r.index)) + ",rule=\"" + r.rule +
                             "\",rank=\"" + std::to_string(i + 1) + "\",partition_key=\"" +
                             Escape(r.keys[i].partition_key) + "\"";
        if (!r.keys[i].sort_key.empty()) {
          labels += ",sort_key=\"" + Escape(r.keys[i].sort_key) + "\"";
        }
        Sample(&out, "ddb_contributor_insights_top_keys", labels, r.keys[i].value);
      }
    }
  }
  // Vector indexes (in memory: engine/vector/vector_index.h).
  Header(&out, "ddb_vector_index_vectors", "gauge", "Vectors held by a vector index.");
  for (const auto& [ns, m] : all) {
    for (const VectorIndexFigures& f : m.vector_indexes) {
      Sample(&out, "ddb_vector_index_vectors", with(ns, TableLabels(f.table, f.index)),
             static_cast<double>(f.vectors));
    }
  }
  Header(&out, "ddb_vector_index_memory_bytes", "gauge",
         "Memory of a vector index: its flat float32 store plus, when built, its HNSW graph.");
  for (const auto& [ns, m] : all) {
    for (const VectorIndexFigures& f : m.vector_indexes) {
      Sample(&out, "ddb_vector_index_memory_bytes", with(ns, TableLabels(f.table, f.index)),
             static_cast<double>(f.memory_bytes));
    }
  }
  Header(&out, "ddb_vector_index_graph", "gauge",
         "1 when a vector index is searched through its approximate (HNSW) graph, 0 when exactly.");
  for (const auto& [ns, m] : all) {
    for (const VectorIndexFigures& f : m.vector_indexes) {
      Sample(&out, "ddb_vector_index_graph", with(ns, TableLabels(f.table, f.index)),
             f.graph ? 1 : 0);
    }
  }
  Header(&out, "ddb_vector_index_graph_declined", "gauge",
         "1 when a vector index's last graph build cost more per search than the exact scan at "
         "the recall target (searched exactly; built again at twice the size).");
  for (const auto& [ns, m] : all) {
    for (const VectorIndexFigures& f : m.vector_indexes) {
      Sample(&out, "ddb_vector_index_graph_declined", with(ns, TableLabels(f.table, f.index)),
             f.graph_declined ? 1 : 0);
    }
  }
  return out;
}

std::string RenderMetrics(Engine& engine) { return RenderMetrics({{"", &engine}}); }

std::string RenderMetricsText(const std::vector<MetricsSource>& sources) {
  return RenderMetrics(sources);
}

std::string RenderMetricsText(Engine& engine) { return RenderMetrics(engine); }

}  // namespace ddb::protocol
