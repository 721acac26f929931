// ddb: the command line (issue 20). Parses the command line, opens the transport (a server
// at --endpoint, or the engine on --data-dir in this process) and runs one command. Exit
// codes: args.h (0 ok, 1 service error, 2 usage, 3 connection or I/O error).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/transport.h"

namespace ddb::cli {
namespace {

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  Result<Invocation> parsed = ParseArgs(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "ddb: %s\n\n%s", parsed.error().message().c_str(), Usage().c_str());
    return kExitUsage;
  }
  const Invocation& inv = parsed.value();
  if (inv.help) {
    std::fputs(Usage().c_str(), stdout);
    return kExitOk;
  }
  if (inv.version) {
    std::printf("ddb %s\n", DDB_VERSION);
    return kExitOk;
  }
  Result<std::unique_ptr<Transport>> transport =
      inv.data_dir.empty()
          ? OpenHttpTransport(inv.endpoint, std::chrono::milliseconds(inv.timeout_ms))
          : OpenInProcessTransport(inv.data_dir);
  if (!transport.ok()) {
    const bool usage = transport.error().code() == ErrorCode::kValidation;
    std::fprintf(stderr, "ddb: %s\n", transport.error().message().c_str());
    return usage ? kExitUsage : kExitIo;
  }
  return RunCommand(inv, *transport.value());
}

}  // namespace
}  // namespace ddb::cli

int main(int argc, char** argv) { return ddb::cli::Main(argc, argv); }
