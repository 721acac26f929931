// tables, describe, get, put, delete, query, scan, partitions, hot-keys (dump and load are in
// bulk.cc).
#include "cli/commands.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>

#include "cli/json_text.h"
#include "cli/metrics_text.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "util/json_escape.h"

namespace ddb::cli {
namespace {

void Print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

// A key attribute: its name and type ("S", "N", "B").
struct KeyAttribute {
  std::string name;
  std::string type;
};

struct KeySchema {
  KeyAttribute partition;
  std::optional<KeyAttribute> sort;
};

// What the commands need of DescribeTable: the table's and each index's key.
struct TableKeys {
  KeySchema table;
  std::map<std::string, KeySchema> indexes;
};

KeySchema ReadKeySchema(simdjson::dom::element key_schema,
                        const std::map<std::string, std::string>& types) {
  KeySchema ks;
  simdjson::dom::array a;
  if (key_schema.get(a)) return ks;
  for (simdjson::dom::element k : a) {
    std::string_view name;
    std::string_view kind;
    if (k["AttributeName"].get(name) || k["KeyType"].get(kind)) continue;
    auto it = types.find(std::string(name));
    KeyAttribute attr{std::string(name), it == types.end() ? "S" : it->second};
    if (kind == "HASH") {
      ks.partition = attr;
    } else {
      ks.sort = attr;
    }
  }
  return ks;
}

TableKeys ReadTableKeys(simdjson::dom::element table) {
  std::map<std::string, std::string> types;
  simdjson::dom::array defs;
  if (!table["AttributeDefinitions"].get(defs)) {
    for (simdjson::dom::element d : defs) {
      std::string_view name;
      std::string_view type;
      if (!d["AttributeName"].get(name) && !d["AttributeType"].get(type)) {
        types[std::string(name)] = std::string(type);
      }
    }
  }
  TableKeys keys;
  keys.table = ReadKeySchema(table["KeySchema"], types);
  for (const char* member : {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"}) {
    simdjson::dom::array indexes;
    if (table[member].get(indexes)) continue;
    for (simdjson::dom::element index : indexes) {
      std::string_view name;
      if (index["IndexName"].get(name)) continue;
      keys.indexes[std::string(name)] = ReadKeySchema(index["KeySchema"], types);
    }
  }
  return keys;
}

// DescribeTable's "Table" (the parser owns it).
bool Describe(Transport& transport, const std::string& table, simdjson::dom::parser& parser,
              simdjson::dom::element* out, int* exit_code) {
  std::string body;
  if (!CallOrReport(transport, "DescribeTable", "{\"TableName\":" + util::JsonString(table) + "}",
                    &body, exit_code)) {
    return false;
  }
  if (parser.parse(body)["Table"].get(*out)) {
    std::fprintf(stderr, "ddb: DescribeTable: unexpected answer\n");
    *exit_code = kExitIo;
    return false;
  }
  return true;
}

std::string TypedValue(const KeyAttribute& attr, const std::string& text) {
  return "{" + util::JsonString(attr.type) + ":" + util::JsonString(text) + "}";
}

// The members of a JSON object given on the command line, without its braces, for merging
// into a request's map ("" when empty). False (after printing the usage error) when the
// text is not a JSON object.
bool ObjectMembers(const std::string& flag, const std::string& json, std::string* members,
                   int* exit_code) {
  members->clear();
  if (json.empty()) return true;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json).get(obj)) {
    std::fprintf(stderr, "ddb: %s needs a JSON object, not '%s'\n", flag.c_str(), json.c_str());
    *exit_code = kExitUsage;
    return false;
  }
  for (auto f : obj) {
    if (!members->empty()) *members += ",";
    *members += util::JsonString(f.key) + ":" + simdjson::to_string(f.value);
  }
  return true;
}

// The key of get and delete: --key JSON, or PK [SK] typed by the table's schema.
bool KeyOf(const Invocation& inv, Transport& transport, std::string* key, int* exit_code) {
  if (!inv.key.empty()) {
    std::string members;
    if (!ObjectMembers("--key", inv.key, &members, exit_code)) return false;
    *key = "{" + members + "}";
    return true;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element table;
  if (!Describe(transport, inv.args[0], parser, &table, exit_code)) return false;
  const TableKeys keys = ReadTableKeys(table);
  const size_t given = inv.args.size() - 1;
  const size_t needed = keys.table.sort ? 2 : 1;
  if (given != needed) {
    std::fprintf(stderr, "ddb: table %s has %s: give %s\n", inv.args[0].c_str(),
                 keys.table.sort ? "a partition and a sort key" : "a partition key only",
                 keys.table.sort ? "PK SK" : "PK");
    *exit_code = kExitUsage;
    return false;
  }
  *key = "{" + util::JsonString(keys.table.partition.name) + ":" +
         TypedValue(keys.table.partition, inv.args[1]);
  if (keys.table.sort)
    *key += "," + util::JsonString(keys.table.sort->name) + ":" +
            TypedValue(*keys.table.sort, inv.args[2]);
  *key += "}";
  return true;
}

// Expression members shared by get, query and scan; `names`/`values` are the command's own
// placeholders, merged with --names and --values.
bool ExpressionMembers(const Invocation& inv, std::string names, std::string values,
                       std::string* out, int* exit_code) {
  std::string user_names;
  std::string user_values;
  if (!ObjectMembers("--names", inv.names, &user_names, exit_code) ||
      !ObjectMembers("--values", inv.values, &user_values, exit_code)) {
    return false;
  }
  auto join = [](std::string a, const std::string& b) {
    if (!a.empty() && !b.empty()) a += ",";
    return a + b;
  };
  names = join(names, user_names);
  values = join(values, user_values);
  if (!inv.filter.empty()) *out += ",\"FilterExpression\":" + util::JsonString(inv.filter);
  if (!inv.projection.empty())
    *out += ",\"ProjectionExpression\":" + util::JsonString(inv.projection);
  if (!names.empty()) *out += ",\"ExpressionAttributeNames\":{" + names + "}";
  if (!values.empty()) *out += ",\"ExpressionAttributeValues\":{" + values + "}";
  if (inv.consistent) *out += ",\"ConsistentRead\":true";
  return true;
}

// Query and Scan through every page (up to --limit items): items printed as a JSON array
// as they come (--json), or collected for one table at the end.
int ReadPages(const Invocation& inv, Transport& transport, std::string_view operation,
              const std::string& request_members, const std::vector<std::string>& key_names) {
  int exit_code = kExitOk;
  std::string start_key;
  int64_t count = 0;
  std::string collected = "[";  // table mode: every item, as one JSON array
  if (inv.json) Print("[");
  simdjson::dom::parser parser;
  while (true) {
    std::string body = "{" + request_members;
    if (inv.limit) body += ",\"Limit\":" + std::to_string(*inv.limit - count);
    if (!start_key.empty()) body += ",\"ExclusiveStartKey\":" + start_key;
    body += "}";
    std::string response;
    if (!CallOrReport(transport, operation, std::move(body), &response, &exit_code)) {
      if (inv.json) Print("]\n");
      return exit_code;
    }
    simdjson::dom::element page;
    simdjson::dom::array items;
    if (parser.parse(response).get(page) || page["Items"].get(items)) {
      std::fprintf(stderr, "ddb: %.*s: unexpected answer\n", static_cast<int>(operation.size()),
                   operation.data());
      return kExitIo;
    }
    for (simdjson::dom::element item : items) {
      const std::string text = simdjson::to_string(item);
      if (inv.json) {
        Print((count > 0 ? ",\n" : "\n") + text);
      } else {
        collected += (count > 0 ? "," : "") + text;
      }
      ++count;
    }
    simdjson::dom::element lek;
    if (page["LastEvaluatedKey"].get(lek) || (inv.limit && count >= *inv.limit)) break;
    start_key = simdjson::to_string(lek);
  }
  if (inv.json) {
    Print(count > 0 ? "\n]\n" : "]\n");
    return kExitOk;
  }
  collected += "]";
  simdjson::dom::array all;
  if (parser.parse(collected).get(all)) return kExitIo;
  std::vector<simdjson::dom::element> rows(all.begin(), all.end());
  Print(RenderItems(rows, key_names));
  std::fprintf(stderr, "(%s %s)\n", Grouped(count).c_str(), count == 1 ? "item" : "items");
  return kExitOk;
}

std::vector<std::string> KeyNames(const KeySchema& ks, const KeySchema* table = nullptr) {
  std::vector<std::string> names{ks.partition.name};
  if (ks.sort) names.push_back(ks.sort->name);
  if (table) {
    for (const std::string& n : KeyNames(*table)) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  return names;
}

int Tables(const Invocation& inv, Transport& transport) {
  std::vector<std::string> names;
  std::string start;
  simdjson::dom::parser parser;
  int exit_code = kExitOk;
  while (true) {
    std::string body =
        start.empty() ? "{}" : "{\"ExclusiveStartTableName\":" + util::JsonString(start) + "}";
    std::string response;
    if (!CallOrReport(transport, "ListTables", std::move(body), &response, &exit_code)) {
      return exit_code;
    }
    simdjson::dom::element page;
    simdjson::dom::array list;
    if (parser.parse(response).get(page) || page["TableNames"].get(list)) return kExitIo;
    for (simdjson::dom::element n : list) names.emplace_back(std::string_view(n));
    std::string_view last;
    if (page["LastEvaluatedTableName"].get(last)) break;
    start = std::string(last);
  }
  if (inv.json) {
    std::string out = "[";
    for (size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + util::JsonString(names[i]);
    Print(out + "]\n");
  } else {
    for (const std::string& n : names) Print(n + "\n");
  }
  return kExitOk;
}

std::string KeyText(const KeySchema& ks) {
  std::string s = ks.partition.name + " (" + ks.partition.type + ")";
  if (ks.sort) s += ", " + ks.sort->name + " (" + ks.sort->type + ")";
  return s;
}

std::string Member(simdjson::dom::element e, const char* name) {
  simdjson::dom::element v;
  if (e[name].get(v)) return "";
  if (v.is_string()) return std::string(std::string_view(v));
  return simdjson::to_string(v);
}

int DescribeCommand(const Invocation& inv, Transport& transport) {
  simdjson::dom::parser parser;
  simdjson::dom::element table;
  int exit_code = kExitOk;
  if (!Describe(transport, inv.args[0], parser, &table, &exit_code)) return exit_code;
  if (inv.json) {
    Print(simdjson::to_string(table) + "\n");
    return kExitOk;
  }
  const TableKeys keys = ReadTableKeys(table);
  std::vector<std::vector<std::string>> rows = {
      {"table", Member(table, "TableName")},
      {"status", Member(table, "TableStatus")},
      {"key", KeyText(keys.table)},
      {"items", Grouped(std::atoll(Member(table, "ItemCount").c_str()))},
      {"size", HumanBytes(std::atof(Member(table, "TableSizeBytes").c_str()))},
  };
  simdjson::dom::element billing;
  if (!table["BillingModeSummary"]["BillingMode"].get(billing)) {
    rows.push_back({"billing", std::string(std::string_view(billing))});
  } else {
    rows.push_back({"billing", "PROVISIONED"});
  }
  std::string_view stream;
  if (!table["LatestStreamArn"].get(stream)) rows.push_back({"stream", std::string(stream)});
  for (const char* member : {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"}) {
    simdjson::dom::array indexes;
    if (table[member].get(indexes)) continue;
    const bool global = member[0] == 'G';
    for (simdjson::dom::element index : indexes) {
      const std::string name = Member(index, "IndexName");
      std::string text = std::string(global ? "GSI " : "LSI ") + name + ": " +
                         KeyText(keys.indexes.at(name)) + ", " +
                         Member(index["Projection"], "ProjectionType") + ", " +
                         Grouped(std::atoll(Member(index, "ItemCount").c_str())) + " items";
      if (global) text += ", " + Member(index, "IndexStatus");
      rows.push_back({"index", text});
    }
  }
  rows.push_back({"arn", Member(table, "TableArn")});
  Print(RenderTable({"", ""}, rows, 200));
  return kExitOk;
}

int Get(const Invocation& inv, Transport& transport) {
  if (!inv.filter.empty()) {
    std::fprintf(stderr, "ddb: get takes no --filter\n");
    return kExitUsage;
  }
  int exit_code = kExitOk;
  std::string key;
  if (!KeyOf(inv, transport, &key, &exit_code)) return exit_code;
  std::string body = "{\"TableName\":" + util::JsonString(inv.args[0]) + ",\"Key\":" + key;
  if (!ExpressionMembers(inv, "", "", &body, &exit_code)) return exit_code;
  std::string response;
  if (!CallOrReport(transport, "GetItem", body + "}", &response, &exit_code)) return exit_code;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(response).get(doc)) return kExitIo;
  simdjson::dom::object item;
  if (doc["Item"].get(item)) {
    if (inv.json) {
      Print("null\n");
    } else {
      std::fputs("(no item)\n", stderr);
    }
    return kExitOk;
  }
  if (inv.json) {
    Print(simdjson::to_string(item) + "\n");
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (auto f : item) {
    simdjson::dom::object typed;
    std::string type;
    if (!f.value.get(typed)) {
      for (auto t : typed) type = std::string(t.key);
    }
    rows.push_back({std::string(f.key), type, ValueText(f.value)});
  }
  Print(RenderTable({"attribute", "type", "value"}, rows, 200));
  return kExitOk;
}

// put's item: the argument, or stdin; a bare map or {"Item":{...}}.
int Put(const Invocation& inv, Transport& transport) {
  std::string text;
  if (inv.args.size() > 1 && inv.args[1] != "-") {
    text = inv.args[1];
  } else {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(text).get(obj)) {
    std::fprintf(stderr, "ddb: put needs an item in DynamoDB JSON ({\"pk\":{\"S\":\"a\"}})\n");
    return kExitUsage;
  }
  simdjson::dom::object inner;
  if (obj.size() == 1 && !obj["Item"].get(inner)) obj = inner;
  int exit_code = kExitOk;
  std::string response;
  if (!CallOrReport(transport, "PutItem",
                    "{\"TableName\":" + util::JsonString(inv.args[0]) +
                        ",\"Item\":" + simdjson::to_string(obj) + "}",
                    &response, &exit_code)) {
    return exit_code;
  }
  if (inv.json) Print(response + "\n");
  return kExitOk;
}

int Delete(const Invocation& inv, Transport& transport) {
  int exit_code = kExitOk;
  std::string key;
  if (!KeyOf(inv, transport, &key, &exit_code)) return exit_code;
  std::string response;
  if (!CallOrReport(transport, "DeleteItem",
                    "{\"TableName\":" + util::JsonString(inv.args[0]) + ",\"Key\":" + key +
                        ",\"ReturnValues\":\"ALL_OLD\"}",
                    &response, &exit_code)) {
    return exit_code;
  }
  const bool existed = response.find("\"Attributes\"") != std::string::npos;
  if (inv.json) {
    Print(response + "\n");
  } else if (!existed) {
    std::fputs("(no item)\n", stderr);
  }
  return kExitOk;
}

int Query(const Invocation& inv, Transport& transport) {
  simdjson::dom::parser parser;
  simdjson::dom::element table;
  int exit_code = kExitOk;
  if (!Describe(transport, inv.args[0], parser, &table, &exit_code)) return exit_code;
  const TableKeys keys = ReadTableKeys(table);
  const KeySchema* ks = &keys.table;
  if (!inv.index.empty()) {
    auto it = keys.indexes.find(inv.index);
    if (it == keys.indexes.end()) {
      std::fprintf(stderr, "ValidationException: The table does not have the specified index: %s\n",
                   inv.index.c_str());
      return kExitServiceError;
    }
    ks = &it->second;
  }
  if ((inv.sk_prefix || inv.sk_between) && !ks->sort) {
    std::fprintf(stderr, "ddb: %s has no sort key: --sk-prefix and --sk-between need one\n",
                 inv.index.empty() ? inv.args[0].c_str() : inv.index.c_str());
    return kExitUsage;
  }
  std::string condition = "#ddb_pk = :ddb_pk";
  std::string names = "\"#ddb_pk\":" + util::JsonString(ks->partition.name);
  std::string values = "\":ddb_pk\":" + TypedValue(ks->partition, inv.args[1]);
  if (inv.sk_prefix || inv.sk_between) {
    names += ",\"#ddb_sk\":" + util::JsonString(ks->sort->name);
    if (inv.sk_prefix) {
      condition += " AND begins_with(#ddb_sk, :ddb_sk)";
      values += ",\":ddb_sk\":" + TypedValue(*ks->sort, *inv.sk_prefix);
    } else {
      condition += " AND #ddb_sk BETWEEN :ddb_a AND :ddb_b";
      values += ",\":ddb_a\":" + TypedValue(*ks->sort, inv.sk_between->first) +
                ",\":ddb_b\":" + TypedValue(*ks->sort, inv.sk_between->second);
    }
  }
  std::string members = "\"TableName\":" + util::JsonString(inv.args[0]) +
                        ",\"KeyConditionExpression\":" + util::JsonString(condition);
  if (!inv.index.empty()) members += ",\"IndexName\":" + util::JsonString(inv.index);
  if (inv.descending) members += ",\"ScanIndexForward\":false";
  if (!ExpressionMembers(inv, names, values, &members, &exit_code)) return exit_code;
  return ReadPages(inv, transport, "Query", members, KeyNames(*ks, &keys.table));
}

int Scan(const Invocation& inv, Transport& transport) {
  simdjson::dom::parser parser;
  simdjson::dom::element table;
  int exit_code = kExitOk;
  if (!Describe(transport, inv.args[0], parser, &table, &exit_code)) return exit_code;
  const TableKeys keys = ReadTableKeys(table);
  std::string members = "\"TableName\":" + util::JsonString(inv.args[0]);
  if (!inv.index.empty()) members += ",\"IndexName\":" + util::JsonString(inv.index);
  if (!ExpressionMembers(inv, "", "", &members, &exit_code)) return exit_code;
  std::vector<std::string> key_names = KeyNames(keys.table);
  if (auto it = keys.indexes.find(inv.index); it != keys.indexes.end()) {
    key_names = KeyNames(it->second, &keys.table);
  }
  return ReadPages(inv, transport, "Scan", members, key_names);
}

std::string Num(double v, const char* format = "%.1f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

bool LoadMetrics(const Invocation& inv, Transport& transport, std::vector<MetricSample>* out,
                 int* exit_code) {
  simdjson::dom::parser parser;
  simdjson::dom::element table;
  if (!Describe(transport, inv.args[0], parser, &table, exit_code)) return false;
  Result<std::string> text = transport.Metrics();
  if (!text.ok()) {
    std::fprintf(stderr, "ddb: %s\n", text.error().message().c_str());
    *exit_code = kExitIo;
    return false;
  }
  *out = ParseMetricsText(text.value());
  return true;
}

int Partitions(const Invocation& inv, Transport& transport) {
  std::vector<MetricSample> samples;
  int exit_code = kExitOk;
  if (!LoadMetrics(inv, transport, &samples, &exit_code)) return exit_code;
  const std::vector<PartitionRow> parts = PartitionsOf(samples, inv.args[0]);
  if (inv.json) {
    std::string out = "[";
    for (size_t i = 0; i < parts.size(); ++i) {
      const PartitionRow& p = parts[i];
      out += std::string(i ? ",\n" : "\n") + "{\"index\":" + util::JsonString(p.index) +
             ",\"partition\":" + std::to_string(p.partition) +
             ",\"range_start\":" + util::JsonString(p.range_start) +
             ",\"range_end\":" + util::JsonString(p.range_end) +
             ",\"items\":" + Num(p.items, "%.0f") + ",\"bytes\":" + Num(p.bytes, "%.0f") +
             ",\"read_units\":" + Num(p.read_units, "%.17g") +
             ",\"write_units\":" + Num(p.write_units, "%.17g") +
             ",\"read_throttles\":" + Num(p.read_throttles, "%.0f") +
             ",\"write_throttles\":" + Num(p.write_throttles, "%.0f") +
             ",\"active\":" + (p.active ? "true" : "false") + "}";
    }
    Print(out + (parts.empty() ? "]\n" : "\n]\n"));
    return kExitOk;
  }
  double hottest = 0;
  for (const PartitionRow& p : parts) hottest = std::max(hottest, p.read_units + p.write_units);
  const bool unicode = StdoutIsTerminal();
  std::vector<std::vector<std::string>> rows;
  for (const PartitionRow& p : parts) {
    rows.push_back({p.index.empty() ? "(table)" : p.index, std::to_string(p.partition),
                    p.range_start + ".." + p.range_end, Grouped(static_cast<int64_t>(p.items)),
                    HumanBytes(p.bytes), Num(p.read_units), Num(p.write_units),
                    Num(p.read_throttles, "%.0f") + "/" + Num(p.write_throttles, "%.0f"),
                    Bar(hottest > 0 ? (p.read_units + p.write_units) / hottest : 0, 20, unicode)});
  }
  Print(RenderTable({"index", "partition", "token range", "items", "bytes", "RCU", "WCU",
                     "throttles r/w", "heat (RCU+WCU)"},
                    rows, 60));
  if (std::any_of(parts.begin(), parts.end(), [](const PartitionRow& p) { return !p.active; })) {
    std::fputs(
        "(rows with no RCU/WCU: no reads or writes since the engine opened, so one "
        "range with the stored figures)\n",
        stderr);
  }
  return kExitOk;
}

int HotKeys(const Invocation& inv, Transport& transport) {
  std::vector<MetricSample> samples;
  int exit_code = kExitOk;
  if (!LoadMetrics(inv, transport, &samples, &exit_code)) return exit_code;
  std::vector<HotKeyRow> keys = HotKeysOf(samples, inv.args[0]);
  std::map<std::string, int> shown;
  std::vector<HotKeyRow> top;
  for (const HotKeyRow& k : keys) {
    if (shown[k.index]++ < inv.top) top.push_back(k);
  }
  if (inv.json) {
    std::string out = "[";
    for (size_t i = 0; i < top.size(); ++i) {
      out += std::string(i ? ",\n" : "\n") + "{\"index\":" + util::JsonString(top[i].index) +
             ",\"rank\":" + std::to_string(top[i].rank) +
             ",\"key\":" + util::JsonString(top[i].key) +
             ",\"units\":" + Num(top[i].units, "%.17g") + "}";
    }
    Print(out + (top.empty() ? "]\n" : "\n]\n"));
    return kExitOk;
  }
  if (top.empty()) {
    std::fputs("(no reads or writes recorded on this table since the engine opened)\n", stderr);
    return kExitOk;
  }
  std::map<std::string, double> hottest;
  for (const HotKeyRow& k : top) hottest[k.index] = std::max(hottest[k.index], k.units);
  const bool unicode = StdoutIsTerminal();
  std::vector<std::vector<std::string>> rows;
  for (const HotKeyRow& k : top) {
    const double h = hottest[k.index];
    rows.push_back({k.index.empty() ? "(table)" : k.index, std::to_string(k.rank), k.key,
                    Num(k.units), Bar(h > 0 ? k.units / h : 0, 30, unicode)});
  }
  Print(RenderTable({"index", "rank", "partition key", "units", ""}, rows, 60));
  return kExitOk;
}

// region offline|online R, region list: the server's admin endpoint (server/admin.h).
int Region(const Invocation& inv, Transport& transport) {
  const std::string& action = inv.args[0];
  const bool list = action == "list";
  if (list ? inv.args.size() != 1
           : (action != "offline" && action != "online") || inv.args.size() != 2) {
    std::fprintf(stderr, "ddb: usage: ddb region offline|online REGION, or ddb region list\n");
    return kExitUsage;
  }
  Result<Response> r =
      list ? transport.Admin("GET", "/admin/regions")
           : transport.Admin("POST", "/admin/regions/" + inv.args[1] + "/" + action);
  if (!r.ok()) {
    std::fprintf(stderr, "ddb: %s\n", r.error().message().c_str());
    return kExitIo;
  }
  if (r.value().status != 200) {
    std::fprintf(stderr, "ddb: HTTP %d: %s", r.value().status, r.value().body.c_str());
    return kExitServiceError;
  }
  if (inv.json || list) {
    Print(r.value().body);
  } else {
    Print(inv.args[1] + " is " + action + "\n");
  }
  return kExitOk;
}

}  // namespace

bool CallOrReport(Transport& transport, std::string_view operation, std::string body,
                  std::string* response, int* exit_code) {
  Result<Response> r = transport.Call(operation, std::move(body));
  if (!r.ok()) {
    std::fprintf(stderr, "ddb: %s\n", r.error().message().c_str());
    *exit_code = kExitIo;
    return false;
  }
  if (r.value().status != 200) {
    std::fprintf(stderr, "%s\n", ErrorText(r.value().status, r.value().body).c_str());
    *exit_code = kExitServiceError;
    return false;
  }
  *response = std::move(r.value().body);
  return true;
}

int RunCommand(const Invocation& inv, Transport& transport) {
  const std::string& c = inv.command;
  int rc = kExitUsage;
  if (c == "tables") rc = Tables(inv, transport);
  if (c == "describe") rc = DescribeCommand(inv, transport);
  if (c == "get") rc = Get(inv, transport);
  if (c == "put") rc = Put(inv, transport);
  if (c == "delete") rc = Delete(inv, transport);
  if (c == "query") rc = Query(inv, transport);
  if (c == "scan") rc = Scan(inv, transport);
  if (c == "partitions") rc = Partitions(inv, transport);
  if (c == "hot-keys") rc = HotKeys(inv, transport);
  if (c == "dump") rc = RunDump(inv, transport);
  if (c == "load") rc = RunLoad(inv, transport);
  if (c == "region") rc = Region(inv, transport);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "ddb: cannot write the output\n");
    return kExitIo;
  }
  return rc;
}

}  // namespace ddb::cli
