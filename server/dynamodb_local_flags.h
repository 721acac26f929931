// DynamoDB Local's command line, as DynamoDBLocal.jar (2.x) parses it, with its meaning, so
// that a `java -jar DynamoDBLocal.jar -sharedDb -inMemory` line (or the arguments given to its
// image) starts ddb-server: -port N, -inMemory, -sharedDb, -dbPath DIR, -cors LIST,
// -optimizeDbBeforeStartup, -disableTelemetry, -version, -help, -delayTransientStatuses.
// Names are case-sensitive and take one or two leading hyphens, as its parser (commons-cli)
// accepts; `java`, `-D...` and `-jar FILE` before them are skipped. Its refusals keep its texts.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ddb/error.h"
#include "server/config.h"

namespace ddb::server {

// What DynamoDB Local's flags asked for.
struct DynamoDbLocalFlags {
  bool used = false;  // any of its flags was given
  bool shared_db = false;
  bool in_memory = false;
  bool optimize = false;
  bool version = false;
  bool help = false;
  bool delay_transient_statuses = false;
  std::optional<std::string> db_path;
  std::optional<std::string> port;  // as written; checked by Apply
  std::optional<std::string> cors;
};

// Which of ddb's own flags were given: they win over DynamoDB Local's.
struct ExplicitFlags {
  bool host = false;               // --host
  bool index_status_hold = false;  // --index-status-hold-ms
  bool table_status_hold = false;  // --table-status-hold-ms
};

// Reads argv[*i] if it is one of DynamoDB Local's flags (or `java`, `-D...`, `-jar FILE`),
// consuming its value (advancing *i). Returns false for any other argument.
// Errors: kValidation with DynamoDB Local's parse error ("Error while parsing options.
// Missing argument for option: port").
Result<bool> ReadDynamoDbLocalFlag(int argc, char** argv, int* i, DynamoDbLocalFlags* flags);

// An argument with one leading hyphen that is not a flag of either command line: DynamoDB
// Local's "Error while parsing options. Unrecognized option: -x".
Error UnrecognizedDynamoDbLocalOption(std::string_view arg);

// Applies the flags to `options` with DynamoDB Local's meaning, after its checks in its order
// (port, -optimizeDbBeforeStartup without -dbPath, -dbPath with -inMemory, -dbPath not a
// directory): without -sharedDb, one namespace per access key and region (unless --isolation
// says otherwise); every interface (unless --host says otherwise); the holds of
// -delayTransientStatuses unless --index-status-hold-ms and --table-status-hold-ms gave
// others. Errors: kValidation with its texts.
Status ApplyDynamoDbLocalFlags(const DynamoDbLocalFlags& flags, const ExplicitFlags& given,
                               ServerOptions* options);

}  // namespace ddb::server
