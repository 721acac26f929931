#include "triggers/function_invoker.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "util/http_url.h"

namespace ddb::triggers {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One invocation's event loop, which Cancel stops.
struct FunctionInvoker::Call {
  std::string key;
  asio::io_context io;
};

FunctionInvoker::FunctionInvoker(FunctionEndpoints endpoints) : endpoints_(std::move(endpoints)) {}

FunctionInvoker::~FunctionInvoker() { Cancel(); }

bool FunctionInvoker::Knows(const std::string& function_name) const {
  return !endpoints_.endpoint.empty() || endpoints_.by_name.count(function_name) > 0;
}

void FunctionInvoker::Cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  for (Call* c : calls_) c->io.stop();
}

void FunctionInvoker::Cancel(const std::string& key) {
  std::lock_guard lock(mu_);
  for (Call* c : calls_) {
    if (c->key == key) c->io.stop();
  }
}

namespace {

// The Runtime Interface Emulator answers a function's error with 200 and its error object
// ({"errorMessage": ..., "errorType": ...}) but no X-Amz-Function-Error header.
bool LooksLikeFunctionError(const std::string& body) {
  const size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || body[start] != '{') return false;
  return body.find("\"errorMessage\"") != std::string::npos ||
         body.find("\"errorType\"") != std::string::npos;
}

}  // namespace

InvokeOutcome FunctionInvoker::Invoke(const std::string& function_name, const std::string& payload,
                                      const std::string& key) {
  InvokeOutcome out;
  std::string url;
  if (auto it = endpoints_.by_name.find(function_name); it != endpoints_.by_name.end()) {
    url = it->second;
  } else if (!endpoints_.endpoint.empty()) {
    url = endpoints_.endpoint;
    while (!url.empty() && url.back() == '/') url.pop_back();
    url += "/2015-03-31/functions/" + function_name + "/invocations";
  } else {
    out.error = "no endpoint for function " + function_name;
    return out;
  }
  std::optional<util::HttpUrl> target = util::ParseHttpUrl(url);
  if (!target) {
    out.error = "not an http:// URL: " + url;
    return out;
  }
  Call call;
  call.key = key;
  {
    std::lock_guard lock(mu_);
    if (cancelled_) {
      out.error = "shutting down";
      return out;
    }
    calls_.insert(&call);
  }
  beast::tcp_stream stream(call.io);
  http::request<http::string_body> req{http::verb::post, target->path, 11};
  req.set(http::field::host, target->host_header);
  req.set(http::field::content_type, "application/json");
  req.set("X-Amz-Invocation-Type", "RequestResponse");
  req.body() = payload;
  req.prepare_payload();
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(6 * 1024 * 1024);  // the service's synchronous response limit
  beast::error_code result = asio::error::would_block;
  tcp::resolver resolver(call.io);
  stream.expires_after(endpoints_.timeout);
  // connect, write, read: each step starts the next; the deadline covers them all.
  resolver.async_resolve(target->host, target->port, [&](beast::error_code ec, auto results) {
    if (ec) return void(result = ec);
    stream.async_connect(results, [&](beast::error_code ec2, auto) {
      if (ec2) return void(result = ec2);
      http::async_write(stream, req, [&](beast::error_code ec3, size_t) {
        if (ec3) return void(result = ec3);
        http::async_read(stream, buffer, parser,
                         [&](beast::error_code ec4, size_t) { result = ec4; });
      });
    });
  });
  call.io.run();
  {
    std::lock_guard lock(mu_);
    calls_.erase(&call);
  }
  if (result) {
    out.error = result == asio::error::would_block ? "cancelled" : result.message();
    return out;
  }
  http::response<http::string_body> res = parser.release();
  out.status = static_cast<int>(res.result_int());
  out.body = std::move(res.body());
  const bool function_error = res.find("X-Amz-Function-Error") != res.end();
  if (out.status != 200 && out.status != 202 && out.status != 204) {
    out.error = "HTTP " + std::to_string(out.status);
  } else if (function_error || LooksLikeFunctionError(out.body)) {
    out.error = "function error";
    out.function_error = true;
  } else {
    out.delivered = true;
  }
  return out;
}

}  // namespace ddb::triggers
