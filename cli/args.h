// The command line of `ddb`: global flags, the command, its arguments and options, checked
// against each command's shape before anything is opened (a usage error exits 2).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ddb/error.h"

namespace ddb::cli {

// Exit codes (ddb --help and docs/cli.md list them).
inline constexpr int kExitOk = 0;
inline constexpr int kExitServiceError = 1;  // the service answered an error
inline constexpr int kExitUsage = 2;         // bad command line
inline constexpr int kExitIo = 3;            // no connection, unreadable input, I/O failure

struct Invocation {
  // Where the tables are: exactly one of them (endpoint defaults to $DDB_ENDPOINT, then
  // http://127.0.0.1:8000).
  std::string endpoint;
  std::string data_dir;
  bool json = false;              // --json: JSON on stdout instead of tables
  bool quiet = false;             // --quiet: no progress bar
  bool help = false;              // --help, -h, or `ddb help`
  bool version = false;           // --version
  std::string command;            // "tables", "get", ...
  std::vector<std::string> args;  // the command's positional arguments
  // Options of reads.
  std::optional<std::string> sk_prefix;                           // query --sk-prefix P
  std::optional<std::pair<std::string, std::string>> sk_between;  // query --sk-between A B
  std::string index;                                              // --index I
  std::string filter;            // --filter EXPR (FilterExpression)
  std::string names;             // --names JSON (ExpressionAttributeNames)
  std::string values;            // --values JSON (ExpressionAttributeValues)
  std::string projection;        // --projection EXPR
  std::string key;               // --key JSON (get, delete: the whole key in DynamoDB JSON)
  std::optional<int64_t> limit;  // --limit N: at most N items in all
  bool consistent = false;       // --consistent: strongly consistent reads
  bool descending = false;       // query --desc
  int parallel = 0;              // load --parallel N (requests in flight), dump --segments
  int top = 10;                  // hot-keys --top N
  int64_t timeout_ms = 60000;    // --timeout SECONDS: each connect, request, response (HTTP)
};

// argv[1..]: flags may come before or after the command. Errors: kValidation, with the
// message to print above the usage.
Result<Invocation> ParseArgs(const std::vector<std::string>& args);

// The full usage text (ddb --help).
std::string Usage();

}  // namespace ddb::cli
