#include "server/config.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <thread>

#include "server/dynamodb_local_flags.h"

namespace ddb::server {
namespace {

// Parses a whole decimal string in [min, max]; nullopt for anything else ("", "8x", "-1").
std::optional<int64_t> ParseInt(std::string_view text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

Error BadValue(std::string_view flag, std::string_view value, std::string_view expected) {
  return Error::Validation("invalid value '" + std::string(value) + "' for " + std::string(flag) +
                           ": expected " + std::string(expected));
}

// "10 GB", "1 GiB": whole gibibytes in the unit the text names, or bytes.
std::string Gibibytes(int64_t bytes, std::string_view unit) {
  if (bytes % (int64_t{1} << 30) != 0) return std::to_string(bytes) + " bytes";
  return std::to_string(bytes >> 30) + " " + std::string(unit);
}

// A delay or hold flag's value: whole milliseconds in 0..3600000 (an hour).
Result<int> ParseMilliseconds(std::string_view flag, std::string_view value) {
  std::optional<int64_t> ms = ParseInt(value, 0, 3600 * 1000);
  if (!ms) return BadValue(flag, value, "milliseconds in 0..3600000");
  return static_cast<int>(*ms);
}

// The shutdown and watchdog flags (--shutdown-grace, --request-watchdog-seconds and the
// hidden --testing-stall-table), kept apart from the rest. Returns false for other flags;
// otherwise reads the value (inline or the next argument) into *options.
Result<bool> ReadShutdownFlag(std::string_view flag, std::optional<std::string_view> inline_value,
                              int argc, char** argv, int* i, ServerOptions* options) {
  if (flag != "--shutdown-grace" && flag != "--request-watchdog-seconds" &&
      flag != "--testing-stall-table") {
    return false;
  }
  std::string_view value;
  if (inline_value) {
    value = *inline_value;
  } else if (*i + 1 < argc) {
    value = argv[++*i];
  } else {
    return Error::Validation(std::string(flag) + " requires a value");
  }
  if (flag == "--testing-stall-table") {
    if (value.empty()) return BadValue(flag, value, "a table name");
    options->testing_stall_table = std::string(value);
    return true;
  }
  std::optional<int64_t> seconds = ParseInt(value, 0, 86400);
  if (!seconds) return BadValue(flag, value, "seconds in 0..86400");
  (flag == "--shutdown-grace" ? options->shutdown_grace : options->request_watchdog) =
      std::chrono::seconds(*seconds);
  return true;
}

// A byte count as the help text shows a default: "268435456: 256 MiB".
std::string BytesAndMiB(size_t bytes) {
  return std::to_string(bytes) + ": " + std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

int DefaultThreadCount() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

int DefaultEngineThreadCount() { return std::max(8, 4 * DefaultThreadCount()); }

std::string Usage(std::string_view program) {
  const EngineOptions engine;  // the defaults the text names
  const ServerOptions server;
  std::string usage = "Usage: ";
  usage.append(program);
  usage.append(
      " [flags]\n"
      "A DynamoDB-compatible server storing its tables in RocksDB.\n"
      "\n"
      "Flags (also accepted as --flag=value):\n"
      "  --port N         TCP port; 0 picks a free one (default " +
      std::to_string(server.port) +
      ")\n"
      "  --host H         address to bind (default " +
      server.host +
      ")\n"
      "  --data-dir D     RocksDB directory, created when missing (default " +
      engine.data_dir +
      ")\n"
      "  --in-memory      keep everything in memory; --data-dir is ignored\n"
      "  --s3-dir D       the directory standing in for S3 (ImportTable, exports): bucket =\n"
      "                   subdirectory (default <data-dir>/s3; in memory, a temporary dir);\n"
      "                   also an S3 endpoint on this port for requests signed for s3\n"
      "  --durability MODE\n"
      "                   process: a write is answered once it is in RocksDB's write-ahead\n"
      "                   log, which survives a crash of the server but not of the machine\n"
      "                   " +
      (engine.durability == Durability::kProcess ? "(default); " : "; ") +
      "fsync: once the log is synced to stable storage, which\n"
      "                   survives a power cut (concurrent writers share an fsync)" +
      (engine.durability == Durability::kFsync ? " (default)" : "") +
      "\n"
      "  --cache-size BYTES\n"
      "                   the block cache of the data directory's reads (data, index and\n"
      "                   filter blocks) and of the memtables (half of it, at least\n"
      "                   32 MiB), shared by every namespace (default " +
      BytesAndMiB(engine.block_cache_bytes) +
      ")\n"
      "  --threads N      HTTP I/O threads (default: number of CPUs)\n"
      "  --engine-threads N\n"
      "                   DynamoDB operations that may run at once (more wait their\n"
      "                   turn), and as many spare threads that serve HTTP while\n"
      "                   operations hold the I/O threads up (default: max(8, 4 x CPUs));\n"
      "                   0: no limit and no spares\n"
      "  --log-level L    error, warn, info or debug (default info)\n"
      "  --max-connections N\n"
      "                   open connections beyond which a new one is answered 503\n"
      "                   ServiceUnavailable and closed (default " +
      std::to_string(server.max_connections) +
      ")\n"
      "  --max-body-memory BYTES\n"
      "                   request bodies over 64 KiB that may be held at once, all\n"
      "                   connections together; one that does not fit is answered 503\n"
      "                   ServiceUnavailable (default " +
      BytesAndMiB(server.max_body_memory) +
      ")\n"
      "  --max-response-memory BYTES\n"
      "                   responses over 64 KiB that may wait for their clients at once;\n"
      "                   while they fill it, a new request is answered 503\n"
      "                   ServiceUnavailable (default " +
      BytesAndMiB(server.max_response_memory) +
      ")\n"
      "  --read-timeout S seconds a connection may take to send a request or to take its\n"
      "                   response; an idle connection is closed after it (default " +
      std::to_string(server.read_timeout.count()) +
      ")\n"
      "  --shutdown-grace S\n"
      "                   on SIGINT/SIGTERM, seconds in-flight requests may take to finish\n"
      "                   (default " +
      std::to_string(server.shutdown_grace.count()) +
      "); the process then closes the store and exits 0 within\n"
      "                   " +
      std::to_string(kShutdownCloseAllowance.count()) +
      " s more, or, with a request still stuck, exits 3 at that bound\n"
      "                   without closing it (acknowledged writes are in the write-ahead log)\n"
      "  --request-watchdog-seconds N\n"
      "                   log (warn) each request still running after N s, with its operation,\n"
      "                   table and time, and count it in /metrics (default " +
      std::to_string(server.request_watchdog.count()) +
      "; 0: off)\n"
      "  --gsi-propagation-delay-ms N\n"
      "                   apply changes to global secondary indexes no sooner than N ms\n"
      "                   after the write, to make GSI lag visible (default " +
      std::to_string(engine.gsi_propagation_delay_ms) +
      ": a write\n"
      "                   answers once its GSI entries are applied)\n"
      "  --simulate-capacity\n"
      "                   throttle requests like the service: provisioned and on-demand\n"
      "                   capacity spread over simulated partitions (default " +
      (engine.simulate_capacity ? "on" : "off") +
      ")\n"
      "  --partition-split-bytes N\n"
      "                   item bytes at which a simulated partition splits (default " +
      Gibibytes(engine.partition_split_bytes, "GB") +
      ")\n"
      "  --auth MODE      off: accept every request, as DynamoDB Local does (default);\n"
      "                   verify: check SigV4 signatures against the known keys and refuse\n"
      "                   the rest with the service's errors\n"
      "  --isolation MODE shared: one namespace of tables for every caller (default under\n"
      "                   --auth off); account: one per account and region of the signing\n"
      "                   key, as the service keeps them (default under --auth verify);\n"
      "                   access-key: one per access key and region, as DynamoDB Local\n"
      "                   without -sharedDb\n"
      "  --replication-delay-ms N\n"
      "                   global tables: a change reaches the other Regions' replicas N ms\n"
      "                   after it was made (default 1000; needs --isolation account or\n"
      "                   access-key)\n"
      "  --lambda-endpoint URL\n"
      "                   event source mappings invoke functions through the Lambda Invoke\n"
      "                   API at URL (e.g. sam local start-lambda's http://127.0.0.1:3001)\n"
      "  --lambda-function NAME=URL\n"
      "                   invoke function NAME at URL itself (repeatable; e.g. a Runtime\n"
      "                   Interface Emulator's .../2015-03-31/functions/function/invocations)\n"
      "  --lambda-failure-dir DIR\n"
      "                   where the records of batches given up go for mappings with an\n"
      "                   on-failure destination (default <data-dir>/lambda-failures)\n"
      "  --index-status-hold-ms N\n"
      "                   keep a new GSI CREATING N ms before and after its backfill, and a\n"
      "                   deleted one DELETING N ms (-delayTransientStatuses: 15000)\n"
      "  --table-status-hold-ms N\n"
      "                   show a table CREATING, UPDATING or DELETING for N ms after\n"
      "                   CreateTable, UpdateTable or DeleteTable, refusing what the service\n"
      "                   refuses meanwhile (-delayTransientStatuses: 2000)\n"
      "  --pitr-lag-ms N  how far LatestRestorableDateTime of point-in-time recovery lags behind\n"
      "                   now (default " +
      std::to_string(engine.pitr_lag_ms) +
      "; the service lags about 5 minutes)\n"
      "  --pitr-history-max-bytes N\n"
      "                   the most history a table with point-in-time recovery keeps; past\n"
      "                   it the oldest goes and EarliestRestorableDateTime moves up\n"
      "                   (default " +
      Gibibytes(engine.pitr_history_max_bytes, "GiB") +
      "; what on-demand backups need is always kept)\n"
      "  --clock-start-ms MS\n"
      "                   tests only: the engine's clock (streams, Time to Live, history)\n"
      "                   starts at MS ms since the epoch and runs on from there\n"
      "  --console on|off the web console at /console: tables, an item browser, the live\n"
      "                   partition view and a stream tail (default: on when --host is a\n"
      "                   loopback address, off otherwise)\n"
      "  --credentials F  keys for --auth verify: an AWS shared-credentials INI file\n"
      "                   (aws_access_key_id, aws_secret_access_key, optional\n"
      "                   aws_session_token, account_id, principal_arn per profile); the\n"
      "                   environment's AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY count too\n"
      "  --health-check   ask the server at --host (or 127.0.0.1) and --port (or -port)\n"
      "                   whether it serves; exit 0 if so, 1 if not (a container's\n"
      "                   HEALTHCHECK, needing nothing but this binary)\n"
      "  --help, -h       print this text and exit\n"
      "\n"
      "DynamoDB Local's flags are understood with its meaning, so that its command line\n"
      "(java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar ...: the JVM part\n"
      "is skipped) starts ddb-server: -port N, -inMemory, -sharedDb (one set of tables;\n"
      "without it, one per access key and region), -dbPath DIR, -cors LIST,\n"
      "-optimizeDbBeforeStartup (compact before serving), -delayTransientStatuses (GSIs held\n"
      "CREATING and DELETING 15 s, as there, and tables CREATING, UPDATING and DELETING 2 s,\n"
      "as the service shows them), -disableTelemetry (ddb sends no\n"
      "telemetry at all), -version, -help. With any of them the server listens on every\n"
      "interface unless --host says otherwise.\n"
      "\n"
      "Once listening, prints \"LISTENING <port>\" on stdout.\n");
  return usage;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  // 127.0.0.0/8, written as a dotted quad.
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

std::string S3Directory(const ServerOptions& options) {
  const EngineOptions& engine = options.engine;
  if (!engine.s3_dir.empty()) return engine.s3_dir;
  if (engine.in_memory) {
    return (std::filesystem::temp_directory_path() / ("ddb-s3-" + std::to_string(::getpid())))
        .string();
  }
  return (std::filesystem::path(engine.data_dir) / "s3").string();
}

bool ConsoleEnabled(const ServerOptions& options) {
  return options.console.value_or(IsLoopbackHost(options.host));
}

// Hand-written rather than Boost.Program_options or gflags: a handful of flags do not justify a
// compiled dependency, and the rules (--flag V and --flag=V, last one wins) fit in one loop.
Result<ServerOptions> ParseFlags(int argc, char** argv) {
  ServerOptions options;
  DynamoDbLocalFlags local;
  ExplicitFlags given;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      continue;
    }
    // ddb's own --port is DynamoDB Local's too (same meaning); its other flags are camelCase.
    if (arg != "--port" && !arg.starts_with("--port=")) {
      DDB_ASSIGN_OR_RETURN(bool taken, ReadDynamoDbLocalFlag(argc, argv, &i, &local));
      if (taken) continue;
    }
    if (arg.starts_with("-") && !arg.starts_with("--")) {
      return UnrecognizedDynamoDbLocalOption(arg);
    }
    if (arg.substr(0, 2) != "--") {
      return Error::Validation("unexpected argument '" + std::string(arg) + "'");
    }
    std::string_view flag = arg;
    std::optional<std::string_view> inline_value;
    if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }

    DDB_ASSIGN_OR_RETURN(bool shutdown_flag,
                         ReadShutdownFlag(flag, inline_value, argc, argv, &i, &options));
    if (shutdown_flag) continue;
    if (flag == "--in-memory") {
      if (inline_value) return Error::Validation("--in-memory takes no value");
      options.engine.in_memory = true;
      continue;
    }
    if (flag == "--health-check") {
      if (inline_value) return Error::Validation("--health-check takes no value");
      options.health_check = true;
      continue;
    }
    if (flag == "--simulate-capacity") {
      if (inline_value) return Error::Validation("--simulate-capacity takes no value");
      options.engine.simulate_capacity = true;
      continue;
    }
    if (flag != "--port" && flag != "--host" && flag != "--data-dir" && flag != "--s3-dir" &&
        flag != "--threads" && flag != "--engine-threads" && flag != "--log-level" &&
        flag != "--gsi-propagation-delay-ms" && flag != "--partition-split-bytes" &&
        flag != "--auth" && flag != "--isolation" && flag != "--credentials" &&
        flag != "--index-status-hold-ms" && flag != "--table-status-hold-ms" &&
        flag != "--durability" && flag != "--max-connections" && flag != "--max-body-memory" &&
        flag != "--max-response-memory" && flag != "--read-timeout" && flag != "--pitr-lag-ms" &&
        flag != "--pitr-history-max-bytes" && flag != "--console" && flag != "--clock-start-ms" &&
        flag != "--replication-delay-ms" && flag != "--lambda-endpoint" &&
        flag != "--lambda-function" && flag != "--lambda-failure-dir" && flag != "--cache-size") {
      return Error::Validation("unknown flag '" + std::string(flag) + "'");
    }

    std::string_view value;
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Error::Validation(std::string(flag) + " requires a value");
    }

    if (flag == "--port") {
      std::optional<int64_t> port = ParseInt(value, 0, 65535);
      if (!port) return BadValue(flag, value, "a port number in 0..65535");
      options.port = static_cast<uint16_t>(*port);
    } else if (flag == "--host") {
      if (value.empty()) return BadValue(flag, value, "an address or host name");
      options.host = std::string(value);
      given.host = true;
    } else if (flag == "--data-dir") {
      if (value.empty()) return BadValue(flag, value, "a directory");
      options.engine.data_dir = std::string(value);
    } else if (flag == "--s3-dir") {
      if (value.empty()) return BadValue(flag, value, "a directory");
      options.engine.s3_dir = std::string(value);
    } else if (flag == "--threads") {
      // 1024 is an arbitrary sanity bound: more threads than that is a typo, not a plan.
      std::optional<int64_t> threads = ParseInt(value, 1, 1024);
      if (!threads) return BadValue(flag, value, "a thread count in 1..1024");
      options.threads = static_cast<int>(*threads);
    } else if (flag == "--engine-threads") {
      std::optional<int64_t> threads = ParseInt(value, 0, 1024);
      if (!threads) return BadValue(flag, value, "a thread count in 0..1024");
      options.engine_threads = static_cast<int>(*threads);
    } else if (flag == "--max-connections") {
      std::optional<int64_t> n = ParseInt(value, 1, 1000000);
      if (!n) return BadValue(flag, value, "a connection count in 1..1000000");
      options.max_connections = static_cast<int>(*n);
    } else if (flag == "--max-body-memory") {
      std::optional<int64_t> bytes = ParseInt(value, 1 << 20, int64_t{1} << 50);
      if (!bytes) return BadValue(flag, value, "a byte count of at least 1048576");
      options.max_body_memory = static_cast<size_t>(*bytes);
    } else if (flag == "--max-response-memory") {
      std::optional<int64_t> bytes = ParseInt(value, 1 << 20, int64_t{1} << 50);
      if (!bytes) return BadValue(flag, value, "a byte count of at least 1048576");
      options.max_response_memory = static_cast<size_t>(*bytes);
    } else if (flag == "--cache-size") {
      std::optional<int64_t> bytes = ParseInt(value, 1 << 20, int64_t{1} << 50);
      if (!bytes) return BadValue(flag, value, "a byte count of at least 1048576");
      options.engine.block_cache_bytes = static_cast<size_t>(*bytes);
    } else if (flag == "--read-timeout") {
      std::optional<int64_t> seconds = ParseInt(value, 1, 3600);
      if (!seconds) return BadValue(flag, value, "seconds in 1..3600");
      options.read_timeout = std::chrono::seconds(*seconds);
    } else if (flag == "--partition-split-bytes") {
      std::optional<int64_t> bytes = ParseInt(value, 1024, int64_t{1} << 50);
      if (!bytes) return BadValue(flag, value, "a byte count of at least 1024");
      options.engine.partition_split_bytes = *bytes;
    } else if (flag == "--gsi-propagation-delay-ms") {
      DDB_ASSIGN_OR_RETURN(options.engine.gsi_propagation_delay_ms, ParseMilliseconds(flag, value));
    } else if (flag == "--auth") {
      if (value == "off") {
        options.auth = AuthMode::kOff;
      } else if (value == "verify") {
        options.auth = AuthMode::kVerify;
      } else {
        return BadValue(flag, value, "off or verify");
      }
    } else if (flag == "--lambda-endpoint") {
      if (value.rfind("http://", 0) != 0) return BadValue(flag, value, "an http:// URL");
      options.lambda_endpoint = std::string(value);
    } else if (flag == "--lambda-failure-dir") {
      if (value.empty()) return BadValue(flag, value, "a directory");
      options.lambda_failure_dir = std::string(value);
    } else if (flag == "--lambda-function") {
      const size_t eq = value.find('=');
      if (eq == std::string_view::npos || eq == 0 ||
          value.substr(eq + 1).rfind("http://", 0) != 0) {
        return BadValue(flag, value, "NAME=http://URL");
      }
      options.lambda_functions[std::string(value.substr(0, eq))] =
          std::string(value.substr(eq + 1));
    } else if (flag == "--replication-delay-ms") {
      DDB_ASSIGN_OR_RETURN(options.replication_delay_ms, ParseMilliseconds(flag, value));
    } else if (flag == "--index-status-hold-ms") {
      DDB_ASSIGN_OR_RETURN(options.engine.index_status_hold_ms, ParseMilliseconds(flag, value));
      given.index_status_hold = true;
    } else if (flag == "--table-status-hold-ms") {
      DDB_ASSIGN_OR_RETURN(options.engine.table_status_hold_ms, ParseMilliseconds(flag, value));
      given.table_status_hold = true;
    } else if (flag == "--pitr-lag-ms") {
      DDB_ASSIGN_OR_RETURN(options.engine.pitr_lag_ms, ParseMilliseconds(flag, value));
    } else if (flag == "--clock-start-ms") {
      std::optional<int64_t> ms = ParseInt(value, 0, int64_t{1} << 50);
      if (!ms) return BadValue(flag, value, "ms since the epoch");
      options.clock_start_ms = *ms;
    } else if (flag == "--pitr-history-max-bytes") {
      std::optional<int64_t> bytes = ParseInt(value, 1024, int64_t{1} << 50);
      if (!bytes) return BadValue(flag, value, "a byte count of at least 1024");
      options.engine.pitr_history_max_bytes = *bytes;
    } else if (flag == "--isolation") {
      if (value == "shared") {
        options.isolation = Isolation::kShared;
      } else if (value == "account") {
        options.isolation = Isolation::kAccount;
      } else if (value == "access-key") {
        options.isolation = Isolation::kAccessKey;
      } else {
        return BadValue(flag, value, "shared, account or access-key");
      }
    } else if (flag == "--durability") {
      if (value == "process") {
        options.engine.durability = Durability::kProcess;
      } else if (value == "fsync") {
        options.engine.durability = Durability::kFsync;
      } else {
        return BadValue(flag, value, "process or fsync");
      }
    } else if (flag == "--console") {
      if (value == "on") {
        options.console = true;
      } else if (value == "off") {
        options.console = false;
      } else {
        return BadValue(flag, value, "on or off");
      }
    } else if (flag == "--credentials") {
      if (value.empty()) return BadValue(flag, value, "a file");
      options.credentials_file = std::string(value);
    } else {  // --log-level
      std::optional<LogLevel> level = ParseLogLevel(value);
      if (!level) return BadValue(flag, value, "one of error, warn, info, debug");
      options.log_level = *level;
    }
  }
  DDB_RETURN_IF_ERROR(ApplyDynamoDbLocalFlags(local, given, &options));
  return options;
}

}  // namespace ddb::server
