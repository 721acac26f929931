// The web console's JSON endpoints (handler.h RenderConsoleApi; docs/CONSOLE.md).
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "protocol/handler.h"
#include "protocol/json_writer.h"
#include "protocol/metrics.h"
#include "protocol/operations.h"

namespace ddb::protocol {
namespace {

WireResponse Json(int status, std::string body) { return WireResponse{status, std::move(body)}; }

WireResponse Problem(int status, std::string_view message) {
  JsonWriter w;
  w.BeginObject();
  w.Key("error");
  w.String(message);
  w.EndObject();
  return Json(status, w.Take());
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The value of `name` in a query string, percent-decoded ('+' is a space); nullopt when
// absent.
std::optional<std::string> QueryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      std::string_view raw = eq == std::string_view::npos ? "" : pair.substr(eq + 1);
      std::string value;
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '+') {
          value.push_back(' ');
        } else if (raw[i] == '%' && i + 2 < raw.size() && HexDigit(raw[i + 1]) >= 0 &&
                   HexDigit(raw[i + 2]) >= 0) {
          value.push_back(static_cast<char>(HexDigit(raw[i + 1]) * 16 + HexDigit(raw[i + 2])));
          i += 2;
        } else {
          value.push_back(raw[i]);
        }
      }
      return value;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A 64-bit token as 16 hex digits: JSON numbers lose precision past 2^53.
std::string Token(uint64_t t) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(t));
  return buf;
}

void WriteHotKeys(JsonWriter& w, const std::vector<HotKey>& keys) {
  w.BeginArray();
  for (const HotKey& k : keys) {
    w.BeginObject();
    w.Key("key");
    w.String(KeyLabel(k.key));
    w.Key("units");
    w.Number(k.units);
    w.EndObject();
  }
  w.EndArray();
}

WireResponse RenderTables(const std::vector<MetricsSource>& sources) {
  JsonWriter w;
  w.BeginObject();
  w.Key("time_ms");
  w.Int(NowMs());
  w.Key("tables");
  w.BeginArray();
  const RequestContext ctx;
  for (const MetricsSource& source : sources) {
    const EngineMetrics metrics = source.engine->GetMetrics();
    for (const TableFigures& t : metrics.tables) {
      Result<TableDescription> d = source.engine->DescribeTable(ctx, t.name);
      if (!d.ok()) continue;  // deleted meanwhile
      w.BeginObject();
      w.Key("name");
      w.String(t.name);
      w.Key("namespace");
      w.String(source.labels);
      w.Key("item_count");
      w.Int(t.item_count);
      w.Key("size_bytes");
      w.Int(t.size_bytes);
      w.Key("indexes");
      w.BeginArray();
      for (const IndexFigures& i : t.indexes) {
        w.BeginObject();
        w.Key("name");
        w.String(i.index_name);
        w.Key("item_count");
        w.Int(i.item_count);
        w.Key("size_bytes");
        w.Int(i.size_bytes);
        w.EndObject();
      }
      w.EndArray();
      w.Key("ttl_attribute");
      Result<std::optional<std::string>> ttl = source.engine->DescribeTimeToLive(t.name);
      if (ttl.ok() && ttl.value()) {
        w.String(*ttl.value());
      } else {
        w.RawValue() += "null";
      }
      // DescribeTable's answer, {"Table": {...}}, as the API writes it.
      w.Key("description");
      w.RawValue() += RenderTableDescription("Table", d.value());
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  return Json(200, w.Take());
}

void WritePartition(JsonWriter& w, const PartitionSnapshot& p, const std::vector<HotKey>* hot) {
  w.BeginObject();
  w.Key("start");
  w.String(Token(p.start));
  w.Key("end");
  w.String(Token(p.end));
  // Where the range starts and ends in the key space, 0..1, for drawing.
  w.Key("start_fraction");
  w.Double(static_cast<double>(p.start) / 18446744073709551616.0);
  w.Key("end_fraction");
  w.Double((static_cast<double>(p.end) + 1) / 18446744073709551616.0);
  w.Key("items");
  w.Int(p.items);
  w.Key("bytes");
  w.Int(p.bytes);
  w.Key("consumed_read_units");
  w.Number(p.consumed_read_units);
  w.Key("consumed_write_units");
  w.Number(p.consumed_write_units);
  w.Key("read_throttles");
  w.Int(p.read_throttles);
  w.Key("write_throttles");
  w.Int(p.write_throttles);
  w.Key("read_key_range_throttles");
  w.Int(p.read_key_range_throttles);
  w.Key("write_key_range_throttles");
  w.Int(p.write_key_range_throttles);
  w.Key("read_limit");
  w.Number(p.read_limit);
  w.Key("write_limit");
  w.Number(p.write_limit);
  w.Key("read_tokens");
  w.Number(p.read_tokens);
  w.Key("write_tokens");
  w.Number(p.write_tokens);
  w.Key("hot_keys");
  if (hot) {
    WriteHotKeys(w, *hot);
  } else {
    w.RawValue() += "[]";
  }
  w.EndObject();
}

void WriteResource(JsonWriter& w, const ResourceSnapshot& r, std::string_view labels) {
  w.BeginObject();
  w.Key("table");
  w.String(r.table);
  w.Key("index");
  w.String(r.index);
  w.Key("namespace");
  w.String(labels);
  w.Key("simulated");
  w.Bool(r.simulated);
  w.Key("on_demand");
  w.Bool(r.on_demand);
  w.Key("read_limit");
  w.Number(r.read_limit);
  w.Key("write_limit");
  w.Number(r.write_limit);
  w.Key("consumed_read_units");
  w.Number(r.consumed_read_units);
  w.Key("consumed_write_units");
  w.Number(r.consumed_write_units);
  w.Key("read_throttles");
  w.Int(r.read_throttles);
  w.Key("write_throttles");
  w.Int(r.write_throttles);
  w.Key("splits");
  w.Int(r.splits);
  w.Key("hot_keys");
  WriteHotKeys(w, r.hottest_keys);
  w.Key("partitions");
  w.BeginArray();
  for (const PartitionSnapshot& p : r.partitions) {
    const std::vector<HotKey>* hot = nullptr;
    for (const PartitionHotKeys& h : r.partition_hot_keys) {
      if (h.start == p.start) hot = &h.keys;
    }
    WritePartition(w, p, hot);
  }
  w.EndArray();
  w.EndObject();
}

WireResponse RenderPartitions(const std::vector<MetricsSource>& sources, std::string_view query) {
  std::optional<std::string> table = QueryParam(query, "table");
  if (!table || table->empty()) return Problem(400, "the table= parameter is required");
  JsonWriter w;
  w.BeginObject();
  w.Key("time_ms");
  w.Int(NowMs());
  w.Key("table");
  w.String(*table);
  bool found = false;
  uint64_t pending = 0, lag_ms = 0;
  w.Key("resources");
  w.BeginArray();
  for (const MetricsSource& source : sources) {
    const EngineMetrics metrics = source.engine->GetMetrics();
    bool here = false;
    for (const TableFigures& t : metrics.tables) here = here || t.name == *table;
    if (!here) continue;
    found = true;
    pending += metrics.gsi_pending_changes;
    lag_ms = std::max(lag_ms, metrics.gsi_lag_ms);
    for (const ResourceSnapshot& r : metrics.resources) {
      if (r.table == *table) WriteResource(w, r, source.labels);
    }
  }
  w.EndArray();
  // The GSI applier is one per engine: its backlog covers every table of the namespace.
  w.Key("gsi_pending_changes");
  w.Int(static_cast<int64_t>(pending));
  w.Key("gsi_lag_ms");
  w.Int(static_cast<int64_t>(lag_ms));
  w.EndObject();
  // The name comes from the URL, any bytes: echoed only as valid UTF-8 (the answer is JSON).
  if (!found && !simdjson::validate_utf8(table->data(), table->size())) {
    return Problem(404, "no table by that name (it is not UTF-8)");
  }
  if (!found) return Problem(404, "no table named " + *table);
  return Json(200, w.Take());
}

}  // namespace

WireResponse RenderConsoleApi(const std::vector<MetricsSource>& sources, std::string_view resource,
                              std::string_view query) {
  if (resource == "tables") return RenderTables(sources);
  if (resource == "partitions") return RenderPartitions(sources, query);
  return Problem(404, "unknown console resource");
}

}  // namespace ddb::protocol
