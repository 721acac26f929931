#include "cli/args.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace ddb::cli {
namespace {

struct CommandShape {
  std::string_view name;
  size_t min_args;
  size_t max_args;
};

constexpr CommandShape kCommands[] = {
    {"tables", 0, 0},   {"describe", 1, 1}, {"get", 1, 3},  {"put", 1, 2},
    {"delete", 1, 3},   {"query", 2, 2},    {"scan", 1, 1}, {"partitions", 1, 1},
    {"hot-keys", 1, 1}, {"dump", 1, 1},     {"load", 1, 1}, {"region", 1, 2},
};

Result<int64_t> Integer(std::string_view flag, const std::string& text, int64_t min) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min) {
    return Error::Validation(std::string(flag) + " needs an integer of at least " +
                             std::to_string(min) + ", not '" + text + "'");
  }
  return v;
}

}  // namespace

Result<Invocation> ParseArgs(const std::vector<std::string>& args) {
  Invocation inv;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // The value of a flag that takes one.
    auto value = [&](std::string* out) -> Status {
      if (i + 1 >= args.size()) return Error::Validation(a + " needs a value");
      *out = args[++i];
      return Status::Ok();
    };
    Status st = Status::Ok();
    std::string text;
    if (a == "--help" || a == "-h") {
      inv.help = true;
    } else if (a == "--version") {
      inv.version = true;
    } else if (a == "--json") {
      inv.json = true;
    } else if (a == "--quiet" || a == "-q") {
      inv.quiet = true;
    } else if (a == "--consistent") {
      inv.consistent = true;
    } else if (a == "--desc") {
      inv.descending = true;
    } else if (a == "--endpoint") {
      st = value(&inv.endpoint);
    } else if (a == "--data-dir") {
      st = value(&inv.data_dir);
    } else if (a == "--index") {
      st = value(&inv.index);
    } else if (a == "--filter") {
      st = value(&inv.filter);
    } else if (a == "--names") {
      st = value(&inv.names);
    } else if (a == "--values") {
      st = value(&inv.values);
    } else if (a == "--projection") {
      st = value(&inv.projection);
    } else if (a == "--key") {
      st = value(&inv.key);
    } else if (a == "--sk-prefix") {
      st = value(&text);
      inv.sk_prefix = text;
    } else if (a == "--sk-between") {
      if (i + 2 >= args.size()) return Error::Validation("--sk-between needs two values");
      inv.sk_between = std::make_pair(args[i + 1], args[i + 2]);
      i += 2;
    } else if (a == "--timeout") {
      st = value(&text);
      if (!st.ok()) return st.error();
      char* end = nullptr;
      const double seconds = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !(seconds > 0) || seconds > 86400) {
        return Error::Validation("--timeout needs a number of seconds, not '" + text + "'");
      }
      inv.timeout_ms = static_cast<int64_t>(seconds * 1000);
    } else if (a == "--limit" || a == "--parallel" || a == "--segments" || a == "--top") {
      const std::string flag = a;
      st = value(&text);
      if (!st.ok()) return st.error();
      Result<int64_t> n = Integer(flag, text, 1);
      if (!n.ok()) return n.error();
      if (flag == "--limit") {
        inv.limit = n.value();
      } else if (flag == "--top") {
        inv.top = static_cast<int>(std::min<int64_t>(n.value(), 1000));
      } else {
        inv.parallel = static_cast<int>(std::min<int64_t>(n.value(), 256));
      }
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return Error::Validation("unknown option " + a);
    } else {
      positional.push_back(a);
    }
    if (!st.ok()) return st.error();
  }
  if (!positional.empty() && positional[0] == "help") {
    inv.help = true;
    return inv;
  }
  if (inv.help || inv.version) return inv;
  if (positional.empty()) return Error::Validation("no command given");
  inv.command = positional[0];
  inv.args.assign(positional.begin() + 1, positional.end());
  const CommandShape* shape = nullptr;
  for (const CommandShape& c : kCommands) {
    if (c.name == inv.command) shape = &c;
  }
  if (shape == nullptr) return Error::Validation("unknown command '" + inv.command + "'");
  if (inv.args.size() < shape->min_args || inv.args.size() > shape->max_args) {
    return Error::Validation("wrong number of arguments for '" + inv.command + "'");
  }
  if ((inv.command == "get" || inv.command == "delete") && inv.args.size() == 1 &&
      inv.key.empty()) {
    return Error::Validation(inv.command + " needs a key: PK [SK] or --key JSON");
  }
  if (inv.sk_prefix && inv.sk_between) {
    return Error::Validation("--sk-prefix and --sk-between exclude each other");
  }
  if ((inv.sk_prefix || inv.sk_between || inv.descending) && inv.command != "query") {
    return Error::Validation("--sk-prefix, --sk-between and --desc are options of query");
  }
  if (!inv.endpoint.empty() && !inv.data_dir.empty()) {
    return Error::Validation("--endpoint and --data-dir exclude each other");
  }
  if (inv.endpoint.empty() && inv.data_dir.empty()) {
    const char* env = std::getenv("DDB_ENDPOINT");
    inv.endpoint = env && *env ? env : "http://127.0.0.1:8000";
  }
  return inv;
}

std::string Usage() {
  return R"(usage: ddb [--endpoint URL | --data-dir DIR] [--json] COMMAND [ARGS] [OPTIONS]

Where the tables are:
  --endpoint URL     a running server (default $DDB_ENDPOINT, else http://127.0.0.1:8000);
                     requests are signed (SigV4) when AWS_ACCESS_KEY_ID and
                     AWS_SECRET_ACCESS_KEY are set (region: AWS_REGION, else us-east-1)
  --timeout S        give up on a server that does not connect or answer within S seconds
                     (default 60; exit code 3)
  --data-dir DIR     the data directory itself, opened in this process (no server may be
                     running on it); a server's --isolation account keeps each account's
                     tables in DIR/accounts/ACCOUNT/REGION: name that directory

Commands:
  tables                         the table names
  describe T                     keys, indexes, item count and size of table T
  get T PK [SK]                  one item (key values typed from the table's schema, B in
                                 base64; or --key '{"pk":{"S":"a"}}')
  put T ITEM                     write an item, DynamoDB JSON ('{"pk":{"S":"a"},...}'; - or
                                 none reads it from stdin)
  delete T PK [SK]               delete one item (or --key JSON)
  query T PK [--sk-prefix P | --sk-between A B] [--index I] [--desc]
                                 the items of one partition key, of the table or index I
  scan T                         every item
  partitions T                   each partition of T and its GSIs: token range, items,
                                 bytes, consumed RCU/WCU, throttles
  hot-keys T [--top N]           the partition keys that consumed the most units, as bars
  dump T > FILE                  every item as DynamoDB JSON lines ({"Item":{...}} a line,
                                 the export format) [--segments N: parallel scan]
  load T < FILE                  write DynamoDB JSON lines into T (BatchWriteItem of 25,
                                 unprocessed items retried) [--parallel N]
  region offline|online R        take Region R of a server on this machine offline (its
                                 requests fail, global tables stop replicating to and from
                                 it) or bring it back; region list: the offline Regions

Options of get, query and scan:
  --filter EXPR      FilterExpression (query, scan)
  --names JSON       ExpressionAttributeNames, e.g. '{"#s":"status"}'
  --values JSON      ExpressionAttributeValues, e.g. '{":v":{"S":"done"}}'
  --projection EXPR  ProjectionExpression
  --limit N          at most N items
  --consistent       strongly consistent reads

Output:
  --json             JSON on stdout (items in DynamoDB JSON) instead of tables
  --quiet, -q        no progress bar (dump and load show one on a terminal's stderr)

Exit codes:
  0  success
  1  the service answered an error; stderr has "ErrorType: message", e.g.
     "ResourceNotFoundException: Requested resource not found"
  2  usage error (the usage is printed)
  3  connection or I/O error (no server at the endpoint, a data directory that cannot be
     opened, unreadable input)
)";
}

}  // namespace ddb::cli
