// ddb-server: parses flags, opens the engine, serves HTTP until SIGINT/SIGTERM, then closes
// the engine (flushing RocksDB) and exits 0. Exit codes: 1 engine or listen failure (or
// --health-check found none serving), 2 bad flags or keys (--credentials), 3 the shutdown
// did not end within --shutdown-grace + kShutdownCloseAllowance of the signal (an engine call
// stuck): the process ended there without closing the store (shutdown_deadline.h).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ddb/engine.h"
#include "server/auth/credentials.h"
#include "server/config.h"
#include "server/health_check.h"
#include "server/http_server.h"
#include "server/log.h"
#include "server/namespaces.h"
#include "server/shutdown_deadline.h"
#include "triggers/event_source_mappings.h"

namespace ddb::server {
namespace {

// The exit status when the shutdown deadline passes (a call stuck; the store not closed).
constexpr int kExitShutdownDeadline = 3;

// "http://127.0.0.1:8000", "http://[::1]:8000".
std::string Url(const std::string& host, uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// "3.2": for the start-up line (what opening the store took, recovery included).
std::string MillisecondsSince(std::chrono::steady_clock::time_point start) {
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", ms);
  return text;
}

// Each connection is a descriptor, and RocksDB keeps its files open: raise the soft limit on
// open files (often 1024) toward the hard one, so that --max-connections, not EMFILE, is what
// refuses a connection.
void RaiseOpenFileLimit(int max_connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(max_connections) + 1024;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    const rlim_t raised =
        limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    limit.rlim_cur = raised;
    setrlimit(RLIMIT_NOFILE, &limit);
    if (raised < wanted) {
      Log(LogLevel::kWarn, "the open-file limit (" + std::to_string(raised) +
                               ") is below --max-connections + 1024: connections may fail "
                               "with EMFILE before --max-connections refuses them");
    }
  }
}

// The engine's messages, in the server's log (leveled and timestamped like its own).
Logger EngineLogger() {
  return [](LogSeverity severity, std::string_view message) {
    const LogLevel level = severity == LogSeverity::kError     ? LogLevel::kError
                           : severity == LogSeverity::kWarning ? LogLevel::kWarn
                                                               : LogLevel::kInfo;
    Log(level, message);
  };
}

// --clock-start-ms: the engine's clock starts at `start_ms` and runs on with the steady
// clock; none given: the system clock.
std::function<uint64_t()> ClockForTesting(std::optional<int64_t> start_ms) {
  if (!start_ms) return {};
  return [start = static_cast<uint64_t>(*start_ms), origin = std::chrono::steady_clock::now()] {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - origin);
    return start + static_cast<uint64_t>(elapsed.count());
  };
}

int Main(int argc, char** argv) {
  const auto start_time = std::chrono::steady_clock::now();
  const char* program = argc > 0 ? argv[0] : "ddb-server";
  Result<ServerOptions> parsed = ParseFlags(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "ddb-server: %s\n\n%s", parsed.error().message().c_str(),
                 Usage(program).c_str());
    return 2;
  }
  const ServerOptions options = std::move(parsed).value();
  if (options.help) {
    std::fputs(Usage(program).c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("ddb-server %s\n", DDB_VERSION);
    return 0;
  }
  if (options.health_check) {
    const Status health = CheckHealth(options.host, options.port, 2000);
    if (!health.ok()) std::fprintf(stderr, "ddb-server: %s\n", health.error().message().c_str());
    return health.ok() ? 0 : 1;
  }
  SetLogLevel(options.log_level);
  RaiseOpenFileLimit(options.max_connections);

  // --auth verify: the keys, before anything is opened, so that a bad file stops the start.
  CredentialStore keys;
  std::unique_ptr<SignatureVerifier> verifier;
  if (options.auth == AuthMode::kVerify) {
    Status loaded =
        options.credentials_file.empty() ? Status::Ok() : keys.AddFile(options.credentials_file);
    if (loaded.ok()) loaded = keys.AddEnvironment();
    if (!loaded.ok()) {
      std::fprintf(stderr, "ddb-server: %s\n", loaded.error().message().c_str());
      return 2;
    }
    if (keys.size() == 0) {
      std::fprintf(stderr,
                   "ddb-server: --auth verify needs keys: --credentials FILE or "
                   "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n");
      return 2;
    }
    verifier = std::make_unique<SignatureVerifier>(&keys);
    Log(LogLevel::kInfo,
        "verifying signatures against " + std::to_string(keys.size()) + " access key(s)");
  }

  // Account isolation by default where callers are known (--auth verify).
  const Isolation isolation = options.isolation.value_or(
      options.auth == AuthMode::kVerify ? Isolation::kAccount : Isolation::kShared);
  // Declared before the engines, so that it still counts down while they close.
  ShutdownDeadline deadline(
      kExitShutdownDeadline,
      "--shutdown-grace + " + std::to_string(kShutdownCloseAllowance.count()) + " s");
  EngineOptions engine = options.engine;
  engine.s3_dir = S3Directory(options);
  engine.clock_for_testing = ClockForTesting(options.clock_start_ms);
  engine.logger = EngineLogger();
  Namespaces namespaces(std::move(engine), isolation);
  if (Status opened = namespaces.Open(); !opened.ok()) {
    Log(LogLevel::kError, "cannot open the store: " + opened.error().message());
    return 1;
  }
  if (isolation == Isolation::kAccount) {
    Log(LogLevel::kInfo, "one namespace of tables per account and region (--isolation account)");
  }
  // Global tables, where Regions have namespaces of their own; stopped (its checkpoints
  // saved) before the engines close, being declared after them.
  std::unique_ptr<replication::Replicator> replicator;
  if (isolation != Isolation::kShared) {
    replication::ReplicatorOptions replication;
    replication.delay_ms = options.replication_delay_ms;
    replication.clock = ClockForTesting(options.clock_start_ms);
    replicator = std::make_unique<replication::Replicator>(
        [&namespaces](std::string_view owner, std::string_view region) {
          return namespaces.OfOwner(owner, region);
        },
        [&namespaces](const RequestContext& ctx) { return namespaces.OwnerOf(ctx); },
        std::move(replication));
    std::vector<replication::RegionEngine> open;
    for (const Namespaces::Entry& e : namespaces.List())
      open.push_back({e.owner, e.region, e.engine});
    replicator->Start(open);
    namespaces.SetReplicator(replicator.get());
  }

  // Event source mappings (docs/triggers.md): stopped before the engines and the replicator
  // close, being declared after them; kept beside the tables unless in memory.
  triggers::TriggerOptions trigger_options;
  if (!options.engine.in_memory) {
    trigger_options.state_file = options.engine.data_dir + "/event-source-mappings.json";
  }
  trigger_options.failure_dir = options.lambda_failure_dir;
  if (trigger_options.failure_dir.empty() && !options.engine.in_memory) {
    trigger_options.failure_dir = options.engine.data_dir + "/lambda-failures";
  }
  trigger_options.functions.endpoint = options.lambda_endpoint;
  trigger_options.functions.by_name = options.lambda_functions;
  triggers::EventSourceMappings triggers(
      [&namespaces](std::string_view owner, std::string_view region) {
        return namespaces.OfOwner(owner, region);
      },
      [&namespaces](const RequestContext& ctx) { return namespaces.OwnerOf(ctx); },
      std::move(trigger_options));
  if (Status started = triggers.Start(); !started.ok()) {
    Log(LogLevel::kError, "cannot read the event source mappings: " + started.error().message());
    return 1;
  }
  namespaces.SetTriggers(&triggers);

  {
    // Scoped so that every connection and thread is gone before the engine closes.
    HttpServer server(namespaces, options, verifier.get());
    server.SetStopHook([&deadline, bound = options.shutdown_grace + kShutdownCloseAllowance] {
      deadline.Arm(bound);
    });
    if (Status started = server.Start(); !started.ok()) {
      Log(LogLevel::kError, started.error().message());
      return 1;
    }
    Log(LogLevel::kInfo,
        "ddb-server listening on " + Url(options.host, server.port()) + " (" +
            (options.engine.in_memory
                 ? std::string("in-memory")
                 : "data: " + options.engine.data_dir + ", durability " +
                       (options.engine.durability == Durability::kFsync ? "fsync" : "process")) +
            "), ready " + MillisecondsSince(start_time) + " ms after main()");
    // For scripts and wire tests that start the server with --port 0: one stable line on
    // stdout, whatever the log level.
    std::printf("LISTENING %u\n", static_cast<unsigned>(server.port()));
    std::fflush(stdout);
    server.Run();
  }

  Log(LogLevel::kInfo, "ddb-server stopped");
  return 0;
}

}  // namespace
}  // namespace ddb::server

int main(int argc, char** argv) { return ddb::server::Main(argc, argv); }
