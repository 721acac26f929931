// How the command line reaches tables: DynamoDB JSON requests (the X-Amz-Target operation and
// a JSON body) to a server over HTTP (--endpoint), or to an engine opened in this process
// (--data-dir), so that every command runs the same way on both.
// Thread safety: Call and Metrics may be called from several threads at once.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "ddb/error.h"

namespace ddb::cli {

// A DynamoDB response: HTTP status (200, 400, 500, ...) and JSON body.
struct Response {
  int status = 0;
  std::string body;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Runs one operation ("PutItem", "Query", ...). An error only when no answer came
  // (connection refused or broken, timeout): the service's errors are responses.
  virtual Result<Response> Call(std::string_view operation, std::string body) = 0;
  // The Prometheus text of GET /metrics (protocol/metrics.h).
  virtual Result<std::string> Metrics() = 0;
  // The server's admin endpoint (server/admin.h): `method` ("GET", "POST") on `path`
  // ("/admin/regions/eu-west-1/offline"). An error when no answer came, or in process (there
  // is no server). Only a server on this machine answers it.
  virtual Result<Response> Admin(std::string_view method, std::string_view path) = 0;
  // How many calls in parallel are worth making (connections, or engine threads).
  virtual int Parallelism() const = 0;
};

// --endpoint URL ("http://host:port"). Signs requests (SigV4) when AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY are set; region from AWS_REGION or AWS_DEFAULT_REGION (us-east-1).
// timeout: for connecting, sending a request and reading its response, each.
// Errors: kValidation (not an http:// URL).
Result<std::unique_ptr<Transport>> OpenHttpTransport(const std::string& url,
                                                     std::chrono::milliseconds timeout);

// --data-dir DIR: opens the engine on DIR as ddb-server does (the server must not be running
// on it). Errors: kInternal (the store cannot be opened, e.g. locked by a server).
Result<std::unique_ptr<Transport>> OpenInProcessTransport(const std::string& data_dir);

}  // namespace ddb::cli
