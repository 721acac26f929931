#include "server/dynamodb_local_flags.h"

#include <filesystem>
#include <system_error>

namespace ddb::server {
namespace {

// Its names, without hyphens; the first three take a value.
constexpr std::string_view kWithValue[] = {"port", "dbPath", "cors"};
constexpr std::string_view kSwitches[] = {
    "inMemory", "sharedDb", "optimizeDbBeforeStartup", "disableTelemetry",
    "version",  "help",     "delayTransientStatuses"};

template <size_t N>
bool Among(std::string_view name, const std::string_view (&names)[N]) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

Error UnrecognizedDynamoDbLocalOption(std::string_view arg) {
  return Error::Validation("Error while parsing options. Unrecognized option: " + std::string(arg));
}

Result<bool> ReadDynamoDbLocalFlag(int argc, char** argv, int* i, DynamoDbLocalFlags* flags) {
  const std::string_view arg = argv[*i];
  // The JVM's part of `java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar`.
  if ((arg == "java" && *i == 1) || arg.starts_with("-D")) return true;
  if (arg == "-jar") {
    if (*i + 1 < argc) ++*i;
    return true;
  }
  if (!arg.starts_with("-")) return false;
  std::string_view name = arg.substr(arg.starts_with("--") ? 2 : 1);
  const bool with_value = Among(name, kWithValue);
  if (!with_value && !Among(name, kSwitches)) return false;
  flags->used = true;
  if (with_value) {
    // commons-cli takes the next argument unless it is itself an option.
    if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && std::string_view(argv[*i + 1]).size() > 1 &&
                           !(argv[*i + 1][1] >= '0' && argv[*i + 1][1] <= '9'))) {
      return Error::Validation("Error while parsing options. Missing argument for option: " +
                               std::string(name));
    }
    std::string value = argv[++*i];
    // A repeated flag keeps its first value, as there.
    std::optional<std::string>& slot = name == "port"     ? flags->port
                                       : name == "dbPath" ? flags->db_path
                                                          : flags->cors;
    if (!slot) slot = std::move(value);
    return true;
  }
  if (name == "inMemory") flags->in_memory = true;
  if (name == "sharedDb") flags->shared_db = true;
  if (name == "optimizeDbBeforeStartup") flags->optimize = true;
  if (name == "version") flags->version = true;
  if (name == "help") flags->help = true;
  if (name == "delayTransientStatuses") flags->delay_transient_statuses = true;
  // -disableTelemetry: ddb sends no telemetry at all.
  return true;
}

Status ApplyDynamoDbLocalFlags(const DynamoDbLocalFlags& flags, const ExplicitFlags& given,
                               ServerOptions* options) {
  if (!flags.used) return Status::Ok();
  if (flags.help) {
    options->help = true;
    return Status::Ok();
  }
  if (flags.version) {
    options->version = true;
    return Status::Ok();
  }
  if (flags.port) {
    int64_t port = -1;
    const std::string& text = *flags.port;
    bool digits = !text.empty() && text.size() <= 6;
    for (char c : text) digits = digits && c >= '0' && c <= '9';
    if (digits) port = std::stoll(text);
    // Its check is `port <= 1`, so port 1 is refused too, whatever its text says.
    if (port <= 1 || port > 65535) {
      return Error::Validation("Invalid Port. Port number must lie between 1 and 65535.");
    }
    options->port = static_cast<uint16_t>(port);
  }
  if (flags.optimize && !flags.db_path) {
    return Error::Validation(
        "optimizeDbBeforeStartup option must be used with dbPath to determine the location of "
        "database files to optimize.");
  }
  if (flags.in_memory && flags.db_path) {
    return Error::Validation("dbPath and inMemory cannot be set at the same time.");
  }
  if (flags.db_path) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*flags.db_path, ec)) {
      return Error::Validation("Invalid directory for database creation.");
    }
    options->engine.data_dir = *flags.db_path;
  }
  // Its hold: a GSI CREATING 15 s before its backfill and 15 s after, DELETING 15 s (tables
  // are not held; "Currently works only for CREATING and DELETING online index statuses").
  if (flags.delay_transient_statuses && !given.index_status_hold) {
    options->engine.index_status_hold_ms = 15000;
  }
  // Beyond DynamoDB Local, tables pass through CREATING, UPDATING and DELETING as in the
  // service, whose small tables take a few seconds.
  if (flags.delay_transient_statuses && !given.table_status_hold) {
    options->engine.table_status_hold_ms = 2000;
  }
  if (flags.in_memory) options->engine.in_memory = true;
  options->engine.compact_on_open = flags.optimize;
  if (!options->isolation) {
    options->isolation = flags.shared_db ? Isolation::kShared : Isolation::kAccessKey;
  }
  if (!given.host) options->host = "0.0.0.0";  // it listens on every interface
  if (flags.cors) options->cors_origins = *flags.cors;
  return Status::Ok();
}

}  // namespace ddb::server
