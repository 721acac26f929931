// Invokes a function through the Lambda Invoke API over HTTP (docs/triggers.md): at the
// server's --lambda-endpoint (POST <endpoint>/2015-03-31/functions/<name>/invocations, as
// `sam local start-lambda` serves it) or at the URL given for that function
// (--lambda-function name=URL, e.g. a Runtime Interface Emulator's
// http://127.0.0.1:9000/2015-03-31/functions/function/invocations).
// Thread safety: Invoke may be called concurrently; Cancel from any thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace ddb::triggers {

struct FunctionEndpoints {
  std::string endpoint;                        // "" : none
  std::map<std::string, std::string> by_name;  // function name -> its invocation URL
  // How long one invocation may take before it counts as failed (the function's timeout).
  std::chrono::milliseconds timeout{60000};
};

struct InvokeOutcome {
  bool delivered = false;       // the function ran and answered without an error
  int status = 0;               // HTTP status; 0: no answer
  std::string body;             // the function's answer
  std::string error;            // why it is not delivered
  bool function_error = false;  // the function answered with an error
};

class FunctionInvoker {
 public:
  explicit FunctionInvoker(FunctionEndpoints endpoints);
  ~FunctionInvoker();

  // Whether a function of that name can be invoked (an endpoint for all, or its own URL).
  bool Knows(const std::string& function_name) const;
  // Invokes synchronously (RequestResponse). A function error is an answer with
  // X-Amz-Function-Error, a status other than 200, or (the Runtime Interface Emulator sends
  // no header) a JSON body with "errorType" or "errorMessage" at its top.
  // `key` names the caller's invocations for Cancel(key).
  InvokeOutcome Invoke(const std::string& function_name, const std::string& payload,
                       const std::string& key);
  // Ends the invocations in flight (they fail) and refuses new ones: for a shutdown.
  void Cancel();
  // Ends the invocations in flight under `key` (they fail).
  void Cancel(const std::string& key);

 private:
  struct Call;
  const FunctionEndpoints endpoints_;
  std::mutex mu_;
  bool cancelled_ = false;  // guarded by mu_
  std::set<Call*> calls_;   // guarded by mu_: in flight
};

}  // namespace ddb::triggers
