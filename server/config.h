// ServerOptions: everything the ddb-server executable can be configured with, and the
// command-line parser that fills it.
// Thread safety: plain values; ParseFlags has no shared state.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ddb/engine.h"
#include "ddb/error.h"
#include "server/log.h"

namespace ddb::server {

// std::thread::hardware_concurrency(), or 1 when the platform cannot tell (it returns 0).
int DefaultThreadCount();

// max(8, 4 * DefaultThreadCount()): the default of ServerOptions::engine_threads.
int DefaultEngineThreadCount();

// Who may call: kOff lets every request in (DynamoDB Local's habit, the default); kVerify
// checks SigV4 signatures against the known keys (server/auth/sigv4_verify.h).
enum class AuthMode { kOff, kVerify };
// shared: one namespace of tables for every caller (DynamoDB Local's -sharedDb); account: one
// per account and region of the signing key, as the service keeps them; access-key: one per
// access key and region, as DynamoDB Local keeps them without -sharedDb (namespaces.h).
enum class Isolation { kShared, kAccount, kAccessKey };

struct ServerOptions {
  // TCP port to listen on; 0 binds an ephemeral port, which the server reports at startup.
  // Default: 8000 (DynamoDB Local's port)
  uint16_t port = 8000;
  // Address or host name to bind. Default: "127.0.0.1" (not reachable from other machines)
  std::string host = "127.0.0.1";
  // The engine's options, with their defaults there (include/ddb/engine.h). The flags set
  // data_dir (--data-dir, -dbPath), in_memory (--in-memory, -inMemory), s3_dir (--s3-dir),
  // durability, gsi_propagation_delay_ms, simulate_capacity, partition_split_bytes,
  // index_status_hold_ms and table_status_hold_ms (also -delayTransientStatuses),
  // compact_on_open (-optimizeDbBeforeStartup), pitr_lag_ms and pitr_history_max_bytes.
  // s3_dir is shared by every namespace, as bucket names are global; "" means S3Directory's
  // default. main.cc adds the clock (clock_start_ms) and the logger.
  EngineOptions engine;
  // Threads for accepting, reading and writing HTTP, and for the requests that need no
  // engine slot (health check, /metrics, CORS preflight, 404/405); see engine_threads.
  // Default: DefaultThreadCount()
  int threads = DefaultThreadCount();
  // The most DynamoDB operations (POST /) that run at once, and as many spare threads. An
  // operation runs on the I/O thread that read it; one that lasts (>= 1 ms: a write waiting
  // for the GSI applier, up to ~2 s) gets a spare thread serving HTTP in its place, so that
  // blocked calls leave `threads` threads for accepting, health checks, /metrics and other
  // connections. An operation arriving while all slots are busy waits its turn (FIFO) without
  // being dropped; its connection reads nothing more meanwhile (one request in flight per
  // connection). 0: no limit and no spares, every operation runs on the thread that read it
  // (bench/floor_server, measuring HTTP alone). Engine work is mostly CPU, which nproc
  // threads saturate; more slots cover calls that wait (GSI read-your-writes, RocksDB reads
  // from disk), so that a burst of blocked writes still leaves room for reads. Idle spares
  // sleep apart from the I/O threads and cost nothing per request.
  // Default: DefaultEngineThreadCount(), max(8, 4 * nproc)
  int engine_threads = DefaultEngineThreadCount();
  // Stderr verbosity; kDebug adds one line per request. Default: LogLevel::kInfo
  LogLevel log_level = LogLevel::kInfo;
  // Largest accepted DynamoDB request body; larger requests get 413 and the connection is
  // closed. S3 API requests (server/s3/s3_api.h) may carry up to max_body_memory. Default: 16 MiB
  // (the limit scylla's alternator uses; DynamoDB's largest request, BatchWriteItem, is at most 16
  // MB)
  size_t body_limit = 16 * 1024 * 1024;
  // How long a connection may take to send a request (and to accept its response); an idle
  // keep-alive connection is closed after it. Default: 30 s (as the Beast examples)
  std::chrono::seconds read_timeout{30};
  // Open connections beyond which a new one is answered 503 ServiceUnavailable and closed
  // (the server raises its open-file limit to fit). Default: 4096
  int max_connections = 4096;
  // Bytes of request bodies over 64 KiB that may be held at once, across connections: a body
  // is reserved whole when its header arrives (by Content-Length; a chunked one as it grows),
  // and one that does not fit is answered 503 ServiceUnavailable and its connection closed.
  // Smaller bodies need no reservation. Default: 256 MiB
  size_t max_body_memory = size_t{256} * 1024 * 1024;
  // Bytes of responses over 64 KiB that may wait to be sent at once, across connections (a
  // client that does not read its BatchGetItem answers holds up to 16 MB each until
  // read_timeout). While they reach it, a new request is answered 503 ServiceUnavailable
  // (retryable) without being run; responses computed meanwhile still go out, so the total
  // may pass it by what the engine calls in flight return. Default: 512 MiB
  size_t max_response_memory = size_t{512} * 1024 * 1024;
  // On SIGINT/SIGTERM, how long in-flight requests may take to finish before the remaining
  // connections are dropped (--shutdown-grace). The process then ends within
  // kShutdownCloseAllowance more, even with an engine call stuck (exit status 3; main.cc).
  // Default: 10 s
  std::chrono::seconds shutdown_grace{10};
  // An engine call (DynamoDB operation, S3 request) still running after this long is logged
  // once, at warn level, and counted in /metrics (request_watchdog.h). 0: no watchdog;
  // none either with engine_threads 0 (no engine calls are tracked then). Default: 30 s
  std::chrono::seconds request_watchdog{30};
  // For tests only, and left out of --help: every DynamoDB request whose body names this
  // TableName stalls on its engine thread until the process ends (a stuck engine call, for
  // the watchdog and shutdown tests). Only the command line sets it. Default: "" (none)
  std::string testing_stall_table;
  // Signature checking. Default: AuthMode::kOff
  AuthMode auth = AuthMode::kOff;
  // Namespaces of tables. Default: kShared under --auth off, kAccount under --auth verify
  std::optional<Isolation> isolation;
  // Global tables (replication/replicator.h): how old a change in one Region is before the
  // other replicas get it. Only with Regions of their own (isolation account or
  // access-key). Default: 1000 (the service's usual figure: within a second)
  int replication_delay_ms = 1000;
  // Event source mappings (triggers/, docs/triggers.md): where functions are invoked, the
  // Lambda Invoke API of all of them (e.g. `sam local start-lambda`'s http://127.0.0.1:3001),
  // and single functions' own invocation URLs (--lambda-function name=URL). Default: none
  std::string lambda_endpoint;
  std::map<std::string, std::string> lambda_functions;
  // Where mappings' on-failure destinations' records are kept. Default: "" (with a data
  // directory: <data-dir>/lambda-failures)
  std::string lambda_failure_dir;
  // AWS shared-credentials INI file of the keys --auth verify accepts (credentials.h); the
  // environment's AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are accepted too. Default: ""
  std::string credentials_file;
  // --help was given: the caller prints Usage() and exits 0. Default: false
  bool help = false;
  // --health-check: the caller asks the server at host:port whether it serves, and exits
  // 0 or 1. Default: false
  bool health_check = false;
  // DynamoDB Local's -version: the caller prints the version and exits 0. Default: false
  bool version = false;
  // Tests only: the engine's clock starts at this instant (ms since the epoch) and runs on
  // from there (EngineOptions::clock_for_testing), so that a fixture store made on some day
  // opens as of that day. Default: none given (the system clock)
  std::optional<int64_t> clock_start_ms;
  // Origins CORS answers are given to: "*" any, or a comma-separated allow-list (DynamoDB
  // Local's -cors). Default: "*"
  std::string cors_origins = "*";
  // The web console at /console (docs/CONSOLE.md): --console on|off. Default: none given,
  // which means on when `host` is a loopback address, off otherwise (ConsoleEnabled)
  std::optional<bool> console;
};

// After shutdown_grace, how long closing may take (joining threads, flushing and closing the
// store) before the process exits anyway, with status 3.
inline constexpr std::chrono::seconds kShutdownCloseAllowance{5};

// Whether `host` names the loopback interface: 127.0.0.0/8, ::1 ([::1]) or "localhost".
bool IsLoopbackHost(std::string_view host);

// Whether the server serves /console: --console if given, else IsLoopbackHost(host).
bool ConsoleEnabled(const ServerOptions& options);

// The directory standing in for S3: options.engine.s3_dir, or, when "", <data_dir>/s3 (with
// in_memory, ddb-s3-<pid> in the system's temporary directory).
std::string S3Directory(const ServerOptions& options);

// The --help text, starting with "Usage: <program> [flags]"; the defaults it names are
// EngineOptions' and ServerOptions'.
std::string Usage(std::string_view program);

// Parses --port N, --host H, --data-dir D, --in-memory, --threads N, --engine-threads N,
// --durability MODE, --log-level L, --gsi-propagation-delay-ms N, --simulate-capacity,
// --partition-split-bytes N, --console on|off, --auth MODE, --isolation MODE, --credentials F,
// --shutdown-grace S, --request-watchdog-seconds N, --testing-stall-table T, --health-check
// and --help (-h), each value flag also as --flag=value. Later flags override
// earlier ones. Errors: kValidation (unknown flag, missing or malformed value, positional
// argument); the message names the flag and is meant to be printed before Usage().
Result<ServerOptions> ParseFlags(int argc, char** argv);

}  // namespace ddb::server
