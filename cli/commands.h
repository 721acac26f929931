// The commands of `ddb`: each builds DynamoDB requests, sends them through a Transport and
// prints the answer (a table, or JSON with --json). Errors go to stderr; the return value is
// the process's exit code (args.h: kExit*).
// Thread safety: one command at a time per Transport (dump and load run their own threads).
#pragma once

#include <string>
#include <string_view>

#include "cli/args.h"
#include "cli/transport.h"

namespace ddb::cli {

// Runs inv.command (ParseArgs checked its shape).
int RunCommand(const Invocation& inv, Transport& transport);

// dump and load (bulk.cc).
int RunDump(const Invocation& inv, Transport& transport);
int RunLoad(const Invocation& inv, Transport& transport);

// One call: the response body on success (status 200). Otherwise prints the error to stderr
// ("ErrorType: message", or "ddb: <connection error>") and returns the exit code in *exit_code
// (kExitServiceError or kExitIo).
bool CallOrReport(Transport& transport, std::string_view operation, std::string body,
                  std::string* response, int* exit_code);

}  // namespace ddb::cli
