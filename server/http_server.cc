// The only translation unit that includes Beast/Asio (each one costs
// 10-25 s of build time). Shape follows Beast's example/advanced/server: a listener accepting
// onto per-connection strands, a session reading with a fresh parser per message (Session
// below says where it departs from the example, for speed).

// clang-format off
#include <utility>  // before any Asio header: Boost 1.74 awaitable.hpp needs std::exchange
// clang-format on

#include "server/http_server.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstddef>
#include <ctime>
#include <exception>
#include <mutex>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "ddb/engine.h"
#include "protocol/handler.h"
#include "server/admin.h"
#include "server/auth/sigv4.h"
#include "server/byte_budget.h"
#include "server/console.h"
#include "server/content_coding.h"
#include "server/engine_slots.h"
#include "server/h2c_connection.h"
#include "server/log.h"
#include "server/namespaces.h"
#include "server/request_watchdog.h"
#include "server/s3/s3_api.h"
#include "server/s3/s3_store.h"
#include "server/spare_threads.h"
#include "server/url_coding.h"
#include "util/ascii.h"
#include "util/json_escape.h"

namespace ddb::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
// A connection's socket and timer name their strand's type, not any_io_executor: the type-
// erased executor allocated a copy of the strand for each operation that took one (~6 heap
// allocations of every request, callgrind).
using SessionStrand = asio::strand<asio::io_context::executor_type>;
using SessionSocket = tcp::socket::rebind_executor<SessionStrand>::other;
using SessionTimer = asio::steady_timer::rebind_executor<SessionStrand>::other;

constexpr std::string_view kJson10 = "application/x-amz-json-1.0";
constexpr std::string_view kJson11 = "application/x-amz-json-1.1";
constexpr std::string_view kJson = "application/json";
constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";
// Request and response bodies up to this size keep their buffer for the connection's next
// message; larger ones are freed, so that an idle connection does not pin megabytes.
constexpr size_t kKeptBufferCapacity = 64 * 1024;
// Request bodies up to this size need no share of --max-body-memory: with at most
// --max-connections of them, they are bounded already, and the common small request pays
// nothing.
constexpr size_t kUnbudgetedBody = 64 * 1024;
// A chunked body (no Content-Length) reserves its budget in steps of this size as it grows.
constexpr size_t kChunkedReserveStep = 1024 * 1024;
// The most read bytes a parser may hold without consuming them (it consumes a body as it
// arrives): a header is held to Beast's 8 KB limit, but a chunked body's trailer and a chunk
// line had no limit, and a 200 MB trailer was buffered whole (and kept by the connection).
constexpr size_t kMaxUnparsedBytes = 64 * 1024;

HttpResponse PlainResponse(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = kTextPlain;
  response.body = std::move(body);
  return response;
}

HttpResponse DynamoResponse(int status, std::string body, std::string_view content_type) {
  HttpResponse response;
  response.status = status;
  response.content_type = content_type;
  response.crc32 = true;
  response.body = std::move(body);
  return response;
}

// The media type of a Content-Type value: before any parameter, without blanks.
std::string_view MediaType(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  while (!content_type.empty() && content_type.back() == ' ') content_type.remove_suffix(1);
  while (!content_type.empty() && content_type.front() == ' ') content_type.remove_prefix(1);
  return content_type;
}

// The content types the service takes a DynamoDB request in; it answers in the same one.
bool AcceptedContentType(std::string_view content_type) {
  if (content_type == kJson10) return true;  // what the SDKs send: no case-blind compares
  const std::string_view media = MediaType(content_type);
  return util::EqualsIgnoreCase(media, kJson10) || util::EqualsIgnoreCase(media, kJson11) ||
         util::EqualsIgnoreCase(media, kJson);
}

std::string_view ResponseContentType(std::string_view request_content_type) {
  if (request_content_type == kJson10) return kJson10;
  const std::string_view media = MediaType(request_content_type);
  if (util::EqualsIgnoreCase(media, kJson11)) return kJson11;
  if (util::EqualsIgnoreCase(media, kJson)) return kJson;
  return kJson10;
}

// What the service answers a request that names no operation it could serve: a PUT, a
// DELETE, an OPTIONS without Origin, a POST in another content type (recorded: 404 and this
// body, 29 bytes; dynalite's test/connection.js).
HttpResponse UnknownOperationXml() {
  HttpResponse response;
  response.status = 404;
  response.content_type = "application/xml";  // not recorded; the body is XML
  response.body = "<UnknownOperationException/>\n";
  response.crc32 = true;
  return response;
}

// What an exception escaping a request carries, for the log (never for the client).
std::string DescribeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

// A per-thread generator: no lock on the request path. Request ids only need to be unique
// enough to find a request in logs, not unpredictable: splitmix64 over a per-thread state
// seeded once from std::random_device (a constant-initialized thread_local, so no per-call
// initialization check; mt19937_64 took ~400 instructions of every response, callgrind).
uint64_t NextRandom() {
  thread_local uint64_t state = 0;
  if (state == 0) state = (uint64_t{std::random_device{}()} << 32 | std::random_device{}()) | 1;
  uint64_t z = (state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

// zlib's crc32 of the response body: the x-amz-crc32 header that SDKs verify.
uint32_t Crc32(std::string_view data) {
  return static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const unsigned char*>(data.data()), data.size()));
}

// Appends the decimal form of v.
void AppendDecimal(std::string* out, uint64_t v) {
  char digits[20];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  out->append(digits, end);
}

// The HTTP Date header (IMF-fixdate, RFC 9110), as the service sends it; formatted at most
// once a second per thread.
void AppendHttpDate(std::string* out) {
  thread_local std::time_t cached_second = -1;
  thread_local char cached[29];
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (now != cached_second) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    static constexpr char kDays[] = "SunMonTueWedThuFriSat";
    static constexpr char kMonths[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char* p = cached;
    auto two = [&p](int v) {
      *p++ = static_cast<char>('0' + v / 10 % 10);
      *p++ = static_cast<char>('0' + v % 10);
    };
    p = std::copy_n(kDays + 3 * tm.tm_wday, 3, p);
    *p++ = ',';
    *p++ = ' ';
    two(tm.tm_mday);
    *p++ = ' ';
    p = std::copy_n(kMonths + 3 * tm.tm_mon, 3, p);
    *p++ = ' ';
    const int year = tm.tm_year + 1900;
    two(year / 100);
    two(year % 100);
    *p++ = ' ';
    two(tm.tm_hour);
    *p++ = ':';
    two(tm.tm_min);
    *p++ = ':';
    two(tm.tm_sec);
    p = std::copy_n(" GMT", 4, p);
    cached_second = now;
  }
  out->append(cached, sizeof cached);
}

}  // namespace

void WriteRequestId(char* out) {
  // 6-bit groups mapped onto [A-Z0-9] (group % 36); slight bias towards A-1, irrelevant for
  // an id.
  static constexpr char kSixBits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01";
  for (size_t i = 0; i < kRequestIdSize; i += 10) {  // 10 draws of 6 bits per 64 random bits
    uint64_t bits = NextRandom();
    const size_t end = std::min(i + 10, kRequestIdSize);
    for (size_t j = i; j < end; ++j, bits >>= 6) out[j] = kSixBits[bits & 63];
  }
}

std::string NewRequestId() {
  std::string id(kRequestIdSize, '0');
  WriteRequestId(id.data());
  return id;
}

HttpResponse DynamoErrorResponse(const Error& error, std::string_view request_content_type) {
  protocol::WireResponse wire = protocol::ErrorResponse(error);
  return DynamoResponse(wire.status, std::move(wire.body),
                        ResponseContentType(request_content_type));
}

namespace {

// CORS, as the service answers browsers: any origin; the response headers a script may read;
// a preflight's requested method and headers allowed as asked.
// Whether `origin` is in the comma-separated allow-list (DynamoDB Local's -cors).
bool OriginAllowed(std::string_view allowed, std::string_view origin) {
  while (!allowed.empty()) {
    const size_t comma = allowed.find(',');
    std::string_view one = allowed.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
    if (one == origin || one == "*") return true;
    if (comma == std::string_view::npos) break;
    allowed.remove_prefix(comma + 1);
  }
  return false;
}

void AddCorsHeaders(const HttpRequest& request, bool preflight, std::string_view cors_origins,
                    HttpResponse* response) {
  if (request.origin.empty()) return;
  std::string& h = response->extra_headers;
  if (cors_origins == "*") {
    h += "Access-Control-Allow-Origin: *\r\n";
  } else if (OriginAllowed(cors_origins, request.origin)) {
    h += "Access-Control-Allow-Origin: ";
    h += request.origin;
    h += "\r\nVary: Origin\r\n";
  } else {
    return;  // not an allowed origin: no CORS headers, so the browser refuses it
  }
  h += "Access-Control-Expose-Headers: "
       "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date\r\n";
  if (!preflight) return;
  if (!request.cors_request_method.empty()) {
    h += "Access-Control-Allow-Methods: ";
    h += request.cors_request_method;
    h += "\r\n";
  }
  if (!request.cors_request_headers.empty()) {
    h += "Access-Control-Allow-Headers: ";
    h += request.cors_request_headers;
    h += "\r\n";
  }
  h += "Access-Control-Max-Age: 172800\r\n";
}

HttpResponse RouteRequest(Namespaces& namespaces, HttpRequest* request,
                          const SignatureVerifier* verifier, bool console, LocalS3Store* s3);

}  // namespace

HttpResponse Route(Namespaces& namespaces, HttpRequest* request, const SignatureVerifier* verifier,
                   std::string_view cors_origins, bool console, LocalS3Store* s3) {
  HttpResponse response = RouteRequest(namespaces, request, verifier, console, s3);
  // The console is same-origin only: no CORS answers for its files and endpoints.
  const std::string_view path = request->target.substr(0, request->target.find('?'));
  if (console && IsConsolePath(path)) return response;
  AddCorsHeaders(*request, request->method == "OPTIONS", cors_origins, &response);
  return response;
}

namespace {

constexpr size_t kMaxInflatedBody = 16 * 1024 * 1024;

// DynamoDB responses larger than this are compressed when the client accepts it, as the
// service does.
constexpr size_t kCompressAbove = 4096;

bool IsLambdaRequest(const HttpRequest& request);

// The caller of a DynamoDB request: verified (--auth verify), or read leniently from the
// Authorization header. Errors: why the request may not go on (the verifier's, or
// kMissingAuthenticationToken).
Result<RequestContext> Caller(const HttpRequest& request, const SignatureVerifier* verifier) {
  if (verifier) {
    // The scope names the service the client signed for: Lambda's REST requests, Kinesis'
    // targets, DynamoDB's (and DynamoDB Streams') otherwise.
    const SignedService service = IsLambdaRequest(request) ? SignedService::kLambda
                                  : request.amz_target.starts_with("Kinesis_20131202.")
                                      ? SignedService::kKinesis
                                      : SignedService::kDynamoDb;
    Result<VerifiedCaller> caller = verifier->Verify(SignedRequest{.method = request.method,
                                                                   .target = request.target,
                                                                   .headers = request.headers,
                                                                   .body = request.body},
                                                     std::chrono::system_clock::now(), service);
    if (!caller.ok()) return caller.error();
    RequestContext ctx;
    ctx.region = std::move(caller->region);
    ctx.access_key_id = caller->key->access_key_id;
    ctx.account_id = caller->key->account_id;
    ctx.principal_arn = caller->key->principal_arn;
    return ctx;
  }
  const Error missing(ErrorCode::kMissingAuthenticationToken,
                      "Request is missing Authentication Token");
  if (!request.authorization || request.authorization->empty()) {
    // A presigned request (SigV4 in the query string): the caller from its credential scope.
    const size_t q = request.target.find('?');
    if (q == std::string_view::npos) return missing;
    const std::vector<QueryParam> query = ParseQuery(request.target.substr(q + 1));
    const QueryParam* credential = FindParam(query, "X-Amz-Credential");
    if (!FindParam(query, "X-Amz-Algorithm") || !credential) return missing;
    return ContextFromAuthorization("AWS4-HMAC-SHA256 Credential=" + credential->value);
  }
  // Signatures are not checked, but a header the service could not parse is refused as it
  // refuses it: another scheme is no token at all, an incomplete one is named.
  const std::string_view header = *request.authorization;
  if (header.substr(0, 5) != "AWS4-") return missing;
  if (header.find("SignedHeaders=") == std::string_view::npos ||
      header.find("Signature=") == std::string_view::npos ||
      header.find("Credential=") == std::string_view::npos) {
    const bool has_date = FindHeader(request.headers, "X-Amz-Date").has_value() ||
                          FindHeader(request.headers, "Date").has_value();
    Result<SigV4Authorization> parsed = ParseAuthorization(header, has_date);
    if (!parsed.ok()) return parsed.error();
  }
  return ContextFromAuthorization(header);
}

// A request signed for service "lambda": the event source mappings' REST operations
// (protocol/lambda.h), answered as the Lambda API answers (x-amzn-ErrorType on errors).
bool IsLambdaRequest(const HttpRequest& request) {
  return request.authorization &&
         request.authorization->find("/lambda/aws4_request") != std::string_view::npos;
}

HttpResponse ServeLambda(Namespaces& namespaces, HttpRequest* request,
                         const SignatureVerifier* verifier) {
  HttpResponse response;
  response.content_type = "application/json";
  Result<RequestContext> ctx = Caller(*request, verifier);
  if (!ctx.ok()) {
    const ErrorCode code = ctx.error().code();
    response.status = 403;
    response.extra_headers =
        std::string("x-amzn-ErrorType: ") +
        (code == ErrorCode::kUnrecognizedClient           ? "UnrecognizedClientException"
         : code == ErrorCode::kMissingAuthenticationToken ? "MissingAuthenticationTokenException"
                                                          : "InvalidSignatureException") +
        "\r\n";
    response.body = "{\"message\":";
    util::AppendJsonString(&response.body, ctx.error().message());
    response.body += "}";
    return response;
  }
  protocol::LambdaResponse r = protocol::HandleLambdaRequest(
      namespaces.triggers(), ctx.value(), request->method, request->target, request->body);
  response.status = r.status;
  response.body = std::move(r.body);
  if (!r.error_type.empty()) response.extra_headers = "x-amzn-ErrorType: " + r.error_type + "\r\n";
  return response;
}

HttpResponse RouteRequest(Namespaces& namespaces, HttpRequest* request,
                          const SignatureVerifier* verifier, bool console, LocalS3Store* s3) {
  if (s3 && IsS3Request(*request)) return ServeS3(*s3, request, verifier);
  if (IsLambdaRequest(*request)) return ServeLambda(namespaces, request, verifier);
  const std::string_view target = request->target;
  const size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  if (console && IsConsolePath(path)) {
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    return ServeConsole(namespaces, *request, path, query);
  }
  if (path.starts_with("/admin/")) return ServeAdmin(namespaces.replicator(), *request, path);
  if (path == "/metrics" && request->method == "GET") {
    std::string text = protocol::RenderMetricsText(namespaces.Sources());
    if (namespaces.replicator()) {
      text += replication::RenderMetricsText(namespaces.replicator()->Links());
    }
    if (namespaces.triggers()) text += namespaces.triggers()->RenderMetrics();
    HttpResponse response = PlainResponse(200, std::move(text));
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return response;
  }
  if (path != "/") return PlainResponse(404, "Not Found\n");
  if (request->method == "GET") {
    // The service answers "healthy: dynamodb.us-east-1.amazonaws.com", the Host as sent;
    // load balancers and some SDK health checks probe it.
    return PlainResponse(200, "healthy: " + std::string(request->host));
  }
  if (request->method == "OPTIONS") {
    return request->origin.empty() ? UnknownOperationXml() : PlainResponse(200, "");
  }
  if (request->method != "POST" || !AcceptedContentType(request->content_type)) {
    return UnknownOperationXml();
  }

  const std::string_view content_type = ResponseContentType(request->content_type);
  Result<RequestContext> ctx = Caller(*request, verifier);
  if (!ctx.ok()) {
    // The service names an unknown operation or a body that is not JSON before it looks at
    // the signature; asked only now, so that a served request parses its body once.
    if (std::optional<protocol::WireResponse> first = protocol::RequestLevelError(
            request->amz_target, request->body, request->content_encoding.empty())) {
      return DynamoResponse(first->status, std::move(first->body), content_type);
    }
    return DynamoErrorResponse(ctx.error(), content_type);
  }
  ctx->endpoint = request->host;
  // A Region taken offline (`ddb region offline`) answers as an unavailable service.
  if (namespaces.replicator() && namespaces.replicator()->RegionOffline(ctx->region)) {
    return DynamoErrorResponse(
        Error(ErrorCode::kServiceUnavailable,
              "The service is unavailable in " + ctx->region +
                  " (taken offline with `ddb region offline`; `ddb region online` ends it)"),
        content_type);
  }
  // The service accepts compressed request bodies (SDK request compression); any other
  // coding, or a body that does not inflate, is an internal error there.
  ContentCoding request_coding;
  if (!ParseContentEncoding(request->content_encoding, &request_coding)) {
    return DynamoErrorResponse(Error::Internal("Unsupported Content-Encoding"), content_type);
  }
  if (request_coding != ContentCoding::kIdentity) {
    std::string inflated;
    switch (Inflate(request_coding, request->body, kMaxInflatedBody, &inflated)) {
      case InflateResult::kOk:
        request->body = std::move(inflated);
        break;
      case InflateResult::kTooLarge:
        return PlainResponse(413, "Request Entity Too Large: the body limit is " +
                                      std::to_string(kMaxInflatedBody) + " bytes\n");
      case InflateResult::kCorrupt:
        return DynamoErrorResponse(Error::Internal("The request body is not valid " +
                                                   std::string(ContentCodingName(request_coding))),
                                   content_type);
    }
  }
  // Resource-based policies are enforced where callers are known (--auth verify).
  protocol::WireResponse wire = protocol::HandleRequest(
      [&namespaces, &caller = *ctx](std::string_view account, std::string_view region,
                                    bool open) -> Result<Engine*> {
        if (open) return namespaces.ForCaller(caller);  // the caller's own
        return namespaces.Find(account, region);        // never created by naming it
      },
      *ctx, request->amz_target, request->body, /*enforce_policies=*/verifier != nullptr,
      namespaces.replicator());
  HttpResponse response = DynamoResponse(wire.status, std::move(wire.body), content_type);
  if (response.body.size() > kCompressAbove) {
    const ContentCoding coding = ChooseResponseCoding(request->accept_encoding);
    std::string compressed;
    if (coding != ContentCoding::kIdentity && Compress(coding, response.body, &compressed)) {
      // x-amz-crc32 is then of the compressed bytes, the ones on the wire the SDKs check.
      response.body = std::move(compressed);
      response.content_encoding = ContentCodingName(coding);
    }
  }
  return response;
}

}  // namespace

namespace {

// What an engine call is, for the request watchdog: views into the session's request, valid
// while the call runs (SpareThreads::Enter's context). `body` is empty when the call may
// replace the request's body (S3 requests, compressed bodies).
struct WatchedCall {
  std::string_view method;
  std::string_view target;
  std::string_view amz_target;
  std::string_view body;
  bool s3 = false;
};

// `text` for a log line: at most `max` bytes, anything but printable ASCII as '?'.
std::string Printable(std::string_view text, size_t max) {
  std::string out(text.substr(0, max));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  if (text.size() > max) out += "...";
  return out;
}

// "GetItem on table \"T\"", "S3 PUT /bucket/key": RequestWatchdog's Describe.
std::string DescribeWatchedCall(const void* context) {
  const WatchedCall& call = *static_cast<const WatchedCall*>(context);
  if (call.s3) return "S3 " + Printable(call.method, 16) + " " + Printable(call.target, 200);
  const std::string_view operation = call.amz_target.substr(call.amz_target.find('.') + 1);
  std::string what =
      operation.empty() ? "a request without X-Amz-Target" : Printable(operation, 64);
  const std::string_view table = RequestTableName(call.body);
  if (!table.empty()) what += " on table \"" + Printable(table, 255) + "\"";
  return what;
}

// --testing-stall-table: a request naming `table` never returns (a stuck engine call on
// purpose, for tests). The thread sleeps rather than spins, so that a test machine is not
// burdened.
void StallIfNamed(const HttpRequest& request, std::string_view table) {
  if (request.method != "POST" || RequestTableName(request.body) != table) return;
  Log(LogLevel::kWarn, "--testing-stall-table: a request on table \"" + Printable(table, 255) +
                           "\" stalls until the process ends");
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

class HttpServer::Impl {
 public:
  class Session;

  Impl(RequestHandler handler, const ServerOptions& options)
      : handler_(std::move(handler)),
        options_(options),
        ioc_(ThreadCount(options)),
        strand_(asio::make_strand(ioc_)),
        acceptor_(strand_),
        signals_(strand_, SIGINT, SIGTERM),
        accept_retry_timer_(strand_),
        body_budget_(options.max_body_memory),
        response_budget_(options.max_response_memory),
        engine_slots_(options.engine_threads > 0
                          ? std::make_unique<EngineSlots>(options.engine_threads)
                          : nullptr) {}

  ~Impl() {
    // Only reached without Run() having joined (e.g. Start() then destruction): make sure no
    // thread still runs handlers that point into this object.
    ioc_.stop();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    if (spares_) spares_->Stop();
    if (engine_slots_) engine_slots_->DiscardParked();
  }

  Status Start();
  void Run();
  void Stop();
  uint16_t port() const { return port_; }

  // Threads that may run ioc_: the I/O threads plus one spare per engine slot, so that with
  // every slot in a (blocked) engine call, options.threads threads are still free.
  static int ThreadCount(const ServerOptions& options) {
    return std::max(1, options.threads) + std::max(0, options.engine_threads);
  }

  // Used by sessions, from their strands.
  HttpResponse Handle(HttpRequest* request) const { return handler_(request); }
  // Admission of engine calls; null with options.engine_threads == 0 (no limit: every call
  // runs where its request was read, as a handler for floor_server does).
  EngineSlots* engine_slots() const { return engine_slots_.get(); }
  // Bracket an engine call (with a slot held), so that a long one is compensated by a spare
  // and the watchdog can name it (`call` must stay valid until LeaveEngine).
  void EnterEngine(bool blocking, const WatchedCall* call) {
    if (!spares_) return;
    if (blocking) {
      spares_->EnterBlocking(call);
    } else {
      spares_->Enter(call);
    }
  }
  void LeaveEngine() {
    if (spares_) spares_->Leave();
  }
  const ServerOptions& options() const { return options_; }
  void SetStopHook(std::function<void()> hook) { stop_hook_ = std::move(hook); }
  ByteBudget& body_budget() { return body_budget_; }
  ByteBudget& response_budget() { return response_budget_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  void Register(Session* session, std::weak_ptr<Session> weak);
  // Serves a connection that opened with the HTTP/2 preface (h2c_connection.h) on a thread
  // of its own; closes `fd` instead when the server is stopping or has kMaxH2cConnections.
  void StartH2c(int fd, std::string received, bool from_loopback);
  // `refused`: the session was over options.max_connections (not counted in admitted_).
  void Unregister(Session* session, bool refused);

 private:
  void DoAccept();
  void OnAccept(beast::error_code ec, SessionSocket socket);
  void BeginShutdown();  // on strand_
  void RunThread(int index);

  const RequestHandler handler_;
  const ServerOptions options_;
  std::function<void()> stop_hook_;  // set before Start(); called by the first Stop()

  // Declared before ioc_: sessions still queued in ioc_ when it is destroyed unregister here.
  std::mutex mu_;
  std::condition_variable cv_;                                     // sessions_ or stop
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;  // guarded by mu_
  std::set<std::shared_ptr<H2cConnection>> h2c_;                   // guarded by mu_
  bool stop_requested_ = false;                                    // guarded by mu_
  std::atomic<bool> stopping_{false};  // mirrors stop_requested_ for lock-free reads
  // Sessions admitted under options.max_connections and not yet destroyed. Incremented on
  // strand_ (OnAccept), decremented by sessions.
  std::atomic<int> admitted_{0};

  asio::io_context ioc_;
  // Serializes the acceptor, signal set and timer (they are not thread-safe).
  asio::strand<asio::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  asio::steady_timer accept_retry_timer_;
  // Request bodies over kUnbudgetedBody being received or answered, all sessions together.
  ByteBudget body_budget_;
  // Responses over kUnbudgetedBody being sent, all sessions together.
  ByteBudget response_budget_;
  uint16_t port_ = 0;
  std::vector<std::thread> threads_;
  // Parked continuations hold sessions and io_context work: emptied once the threads are
  // joined (Run, ~Impl), before ioc_ and the session registry go.
  std::unique_ptr<EngineSlots> engine_slots_;
  // Threads that serve ioc_ while I/O threads are held up in engine calls; created by Run()
  // with engine slots, stopped after the I/O threads are joined.
  std::unique_ptr<SpareThreads> spares_;
  // Reads spares_' marks (declared after it: destroyed first); null when off.
  std::unique_ptr<RequestWatchdog> watchdog_;
};

namespace {

// One request as a session reads it: Beast's parser, keeping the header the way the session
// uses it, each field's name and value copied in order into one string (the read buffer moves
// as it grows), and the body. Beast's own message kept every field in a case-insensitive tree
// and a list (~2,000 instructions of every request, callgrind), for a session that walks the
// fields once, in order.
struct ReceivedRequest {
  struct Span {
    uint32_t at = 0;
    uint32_t size = 0;
  };
  struct Field {
    http::field name;
    Span name_string;
    Span value;
  };

  std::string bytes;  // the method, the target, then each field's name and value
  Span method;
  Span target;
  unsigned version = 11;
  std::vector<Field> fields;
  std::string body;

  // Begins a message; keeps the capacities.
  void Clear() {
    bytes.clear();
    fields.clear();
    body.clear();
    method = target = Span();
    version = 11;
  }
  std::string_view View(Span span) const { return {bytes.data() + span.at, span.size}; }
  // The first field of that name's value, or nullopt.
  std::optional<std::string_view> Find(http::field name) const {
    for (const Field& f : fields) {
      if (f.name == name) return View(f.value);
    }
    return std::nullopt;
  }
  // Whether the connection stays open after the answer, as Beast's message tells it: from
  // the first Connection field only (the parser's own flag also heeds every other one and
  // Proxy-Connection).
  bool KeepAlive() const {
    const std::optional<std::string_view> connection = Find(http::field::connection);
    if (version < 11) return connection && http::token_list(*connection).exists("keep-alive");
    return !connection || !http::token_list(*connection).exists("close");
  }
  Span Append(std::string_view text) {
    const Span span{static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(text.size())};
    bytes.append(text);
    return span;
  }
};

class RequestReader final : public http::basic_parser<true> {
 public:
  explicit RequestReader(ReceivedRequest* request) : request_(request) {}

 private:
  void on_request_impl(http::verb, beast::string_view method, beast::string_view target,
                       int version, beast::error_code&) override {
    request_->method = request_->Append(method);
    request_->target = request_->Append(target);
    request_->version = static_cast<unsigned>(version);
  }
  void on_response_impl(int, beast::string_view, int, beast::error_code&) override {}
  // A header is held to Beast's 8 KB; a chunked body's trailer (fields again) only to
  // kMaxUnparsedBytes per field, so their total is bounded here (100,000 tiny trailer fields
  // were all kept).
  void on_field_impl(http::field name, beast::string_view name_string, beast::string_view value,
                     beast::error_code& ec) override {
    if (request_->bytes.size() + name_string.size() + value.size() > kMaxUnparsedBytes) {
      ec = http::error::header_limit;
      return;
    }
    const ReceivedRequest::Span name_span = request_->Append(name_string);
    request_->fields.push_back({name, name_span, request_->Append(value)});
  }
  void on_header_impl(beast::error_code&) override {}
  // As Beast's string body: the whole declared length reserved at once (the session has
  // budgeted it, ReserveBody).
  void on_body_init_impl(const boost::optional<uint64_t>& length, beast::error_code&) override {
    if (length) request_->body.reserve(static_cast<size_t>(*length));
  }
  size_t on_body_impl(beast::string_view body, beast::error_code&) override {
    request_->body.append(body.data(), body.size());
    return body.size();
  }
  void on_chunk_header_impl(uint64_t, beast::string_view, beast::error_code&) override {}
  size_t on_chunk_body_impl(uint64_t, beast::string_view body, beast::error_code&) override {
    request_->body.append(body.data(), body.size());
    return body.size();
  }
  void on_finish_impl(beast::error_code&) override {}

  ReceivedRequest* request_;
};

// The requests that need an engine slot: DynamoDB operations (POST /, whatever the query
// string) and S3 ones (file I/O, which must not hold up an I/O thread either). Everything else
// Route answers without the engine or with a call that takes no lock a blocked one holds (GET
// /metrics: Engine::GetMetrics), so it needs no slot and answers while every slot is busy: health
// checks, CORS preflights, 404 and 405.
// `s3`: IsS3Request(request), which the session has worked out from the header.
bool IsEngineRequest(const HttpRequest& request, bool s3) {
  return s3 || IsLambdaRequest(request) ||
         (request.method == "POST" && request.target.substr(0, request.target.find('?')) == "/");
}

// Operations that write, and so wait for an fsync under --durability fsync.
bool IsWriteOperation(std::string_view amz_target) {
  const std::string_view op = amz_target.substr(amz_target.find('.') + 1);
  return op == "PutItem" || op == "UpdateItem" || op == "DeleteItem" || op == "BatchWriteItem" ||
         op == "TransactWriteItems" || op == "ExecuteStatement" || op == "BatchExecuteStatement" ||
         op == "ExecuteTransaction";
}

}  // namespace

// One connection. All its handlers (socket, deadline timer) run on the socket's strand, so its
// members need no lock.
//
// Reading: the session feeds a Beast parser itself from buffer_ (what http::async_read does,
// minus a composed operation and a post per message), so a request that is already buffered
// (pipelined, or whole in one segment) is handled without another read; the parser keeps the
// header as the session uses it (RequestReader), not as an http::message. Writing: the head is
// written by hand into head_ and sent with the body in one gather write; no http::response or
// serializer. Timeouts: one steady_timer per session that is re-armed only when it fires (or when a
// deadline moves earlier), instead of a timer wait and cancel per socket operation as
// beast::tcp_stream does; each phase (reading a header, reading a body, writing a response) gets
// options.read_timeout, as before; a request parked for an engine slot has no deadline. Engine
// calls: see HandleRequest.
class HttpServer::Impl::Session : public std::enable_shared_from_this<Session> {
 public:
  using Clock = std::chrono::steady_clock;

  // A `refused` session answers 503 at once, without reading a request, and closes.
  Session(SessionSocket&& socket, Impl& server, bool refused)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        server_(server),
        refused_(refused) {
    boost::system::error_code ec;
    const asio::ip::address peer = socket_.remote_endpoint(ec).address();
    from_loopback_ =
        !ec && (peer.is_loopback() ||
                (peer.is_v6() && peer.to_v6().is_v4_mapped() &&
                 asio::ip::make_address_v4(asio::ip::v4_mapped, peer.to_v6()).is_loopback()));
  }
  ~Session() {
    ReleaseBody();
    ReleaseResponse();
    server_.Unregister(this, refused_);
  }

  void Start() {
    server_.Register(this, weak_from_this());
    head_.reserve(256);
    asio::dispatch(
        socket_.get_executor(),
        beast::bind_front_handler(refused_ ? &Session::AnswerRefusal : &Session::StartMessage,
                                  shared_from_this()));
  }

  // Posted by the server when shutting down: an idle connection is closed now; a busy one
  // finishes its request and closes after the response (StartMessage checks stopping()).
  void OnServerStop() {
    if (idle_) {
      beast::error_code ec;
      socket_.close(ec);  // the pending read completes with operation_aborted
    }
  }

  asio::any_io_executor executor() { return socket_.get_executor(); }

 private:
  // Deadline of the current phase; the timer closes the socket once it has passed.
  void SetDeadline(Clock::duration timeout) {
    deadline_ = Clock::now() + timeout;
    if (!timer_armed_) {
      ArmTimer();
    } else if (deadline_ < timer_.expiry()) {
      timer_.cancel();  // OnTimer re-arms for the earlier deadline
    }
  }

  void ArmTimer() {
    timer_armed_ = true;
    timer_.expires_at(deadline_);
    // A weak reference: a pending wait must not keep a finished session alive.
    timer_.async_wait([weak = weak_from_this()](beast::error_code) {
      if (std::shared_ptr<Session> self = weak.lock()) self->OnTimer();
    });
  }

  void OnTimer() {
    timer_armed_ = false;
    if (Clock::now() < deadline_) return ArmTimer();  // the deadline moved
    timed_out_ = true;
    beast::error_code ec;
    socket_.close(ec);  // the pending operation completes with operation_aborted
  }

  // Over --max-connections. HTTP/1.1 lets a server answer before the request arrives (RFC
  // 9112 9.6); the SDKs retry a 503. The lingering close keeps the answer from being lost to a
  // reset when the request arrives after it.
  void AnswerRefusal() {
    const Error refusal{ErrorCode::kServiceUnavailable,
                        "The server has as many open connections as --max-connections (" +
                            std::to_string(server_.options().max_connections) + ") allows; retry"};
    WriteResponse(DynamoErrorResponse(refusal, kJson10), 11, /*keep_alive=*/false);
  }

  // Begins the next message; parses what is already buffered before reading.
  void StartMessage() {
    if (server_.stopping()) return DoClose();
    received_.Clear();  // keeps its capacities for this message
    parser_.emplace(&received_);
    // The larger of the two limits until the header shows which applies (RequestBodyLimit).
    parser_->body_limit(std::max(server_.options().body_limit, S3BodyLimit()));
    // Not eager until the header is parsed: the body's limit depends on the header, and Beast
    // counts a chunked body against the limit in force as it parses it (a body parsed in the
    // header's read under the larger limit went past the smaller one unseen).
    parser_->eager(false);
    header_seen_ = false;
    idle_ = true;
    SetDeadline(server_.options().read_timeout);
    ParseBuffered();
  }

  // Feeds buffer_ to the parser, then handles the request, sends "100 Continue" or reads more.
  void ParseBuffered() {
    if (first_bytes_) {
      // A connection that opens with the HTTP/2 preface goes to H2cConnection.
      const std::string_view data(static_cast<const char*>(buffer_.data().data()), buffer_.size());
      if (data.size() < kH2Preface.size() && kH2Preface.starts_with(data)) {
        if (!data.empty()) return DoRead();
      } else {
        first_bytes_ = false;
        if (data.starts_with(kH2Preface)) return HandOverToH2c(data);
      }
    }
    while (buffer_.size() > 0 && !parser_->is_done()) {
      beast::error_code ec;
      const size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_more) {
        if (buffer_.size() > kMaxUnparsedBytes) return OnParseError(http::error::header_limit);
        break;
      }
      if (ec) return OnParseError(ec);
      if (used == 0) break;
      if (!header_seen_ && parser_->is_header_done()) break;
    }
    if (!header_seen_ && parser_->is_header_done()) {
      header_seen_ = true;
      idle_ = false;
      s3_request_ = SignedForS3();
      const uint64_t limit = s3_request_ ? S3BodyLimit() : server_.options().body_limit;
      if (parser_->content_length().value_or(0) > limit) return RejectTooLarge(limit);
      parser_->body_limit(limit);  // all a chunked body may have: none of it is parsed yet
      parser_->eager(true);
      // Clients like curl send "Expect: 100-continue" for large bodies and wait up to 1 s for
      // the interim response before sending the body anyway.
      if (util::EqualsIgnoreCase(received_.Find(http::field::expect).value_or(""),
                                 "100-continue")) {
        const unsigned version = received_.version;
        head_.assign("HTTP/1.1 100 Continue\r\n\r\n");
        head_[5] = static_cast<char>('0' + version / 10 % 10);
        head_[7] = static_cast<char>('0' + version % 10);
        SetDeadline(server_.options().read_timeout);
        asio::async_write(socket_, asio::buffer(head_),
                          [self = shared_from_this()](beast::error_code ec, size_t) {
                            if (ec) return self->OnWriteError(ec);
                            self->SetDeadline(self->server_.options().read_timeout);
                            self->ParseBuffered();
                          });
        return;
      }
      SetDeadline(server_.options().read_timeout);  // the body gets its own budget
      return ParseBuffered();  // the body bytes already read, now under the limit
    }
    if (header_seen_ && !ReserveBody()) return RejectBusy();
    if (parser_->is_done()) return HandleRequest();
    DoRead();
  }

  // Reserves the body's share of --max-body-memory: all of a Content-Length at once, a chunked
  // body a step ahead of what has arrived. False when the budget cannot take it.
  bool ReserveBody() {
    const boost::optional<uint64_t> length = parser_->content_length();
    size_t need = 0;
    if (length) {
      need = static_cast<size_t>(*length);
    } else if (const size_t have = received_.body.size(); have > reserved_body_) {
      need = have + kChunkedReserveStep;
    }
    if (need <= kUnbudgetedBody || need <= reserved_body_) return true;
    if (!server_.body_budget().TryReserve(need - reserved_body_)) return false;
    reserved_body_ = need;
    return true;
  }

  void ReleaseBody() {
    if (reserved_body_ == 0) return;
    server_.body_budget().Release(reserved_body_);
    reserved_body_ = 0;
  }

  void ReleaseResponse() {
    if (reserved_response_ == 0) return;
    server_.response_budget().Release(reserved_response_);
    reserved_response_ = 0;
  }

  // The socket, and what was read from it, to an H2cConnection; this session ends.
  void HandOverToH2c(std::string_view received) {
    std::string bytes(received);
    buffer_.consume(buffer_.size());
    idle_ = true;
    beast::error_code ec;
    // A descriptor of its own (Boost 1.74 has no release()), in blocking mode: the
    // connection's thread reads and writes it directly.
    const int fd = ::dup(socket_.native_handle());
    socket_.close(ec);
    if (fd < 0) return;
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    server_.StartH2c(fd, std::move(bytes), from_loopback_);
  }

  void DoRead() {
    const size_t size = beast::read_size(buffer_, 64 * 1024);
    socket_.async_read_some(buffer_.prepare(size),
                            beast::bind_front_handler(&Session::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t bytes) {
    buffer_.commit(bytes);
    if (timed_out_) {
      Log(LogLevel::kDebug, "closing connection: read timeout");
      return;  // the timer already closed the socket
    }
    if (ec == asio::error::eof) {
      if (!parser_->got_some()) return DoClose();  // the client closed between messages
      parser_->put_eof(ec);                        // a request cut short: partial_message
      if (ec) return OnParseError(ec);
      return ParseBuffered();
    }
    if (ec) return OnReadError(ec);
    ParseBuffered();
  }

  // Object uploads to the S3 API may be as large as the body budget; DynamoDB requests are
  // held to options.body_limit.
  size_t S3BodyLimit() const { return server_.options().max_body_memory; }

  // Whether the message whose header is parsed is signed for S3 (IsS3Signed).
  bool SignedForS3() const {
    return IsS3Signed(received_.Find(http::field::authorization), received_.View(received_.target));
  }

  // The limit for the message whose header is parsed: S3's or DynamoDB's (for a parse error,
  // which may come before s3_request_ is set).
  uint64_t RequestBodyLimit() const {
    return SignedForS3() ? S3BodyLimit() : server_.options().body_limit;
  }

  void OnParseError(beast::error_code ec) {
    // Beast checks Content-Length against body_limit as soon as the header is parsed.
    if (ec == http::error::body_limit) {
      return RejectTooLarge(parser_->is_header_done() ? RequestBodyLimit()
                                                      : server_.options().body_limit);
    }
    OnReadError(ec);
  }

  // A read error closes the connection; it never becomes a DynamoDB error. Malformed HTTP
  // gets a plain 400 first so that the client sees why.
  void OnReadError(beast::error_code ec) {
    if (ec == asio::error::operation_aborted) return DoClose();
    Log(LogLevel::kDebug, "closing connection: read failed: " + ec.message());
    if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::partial_message) {
      return WriteResponse(PlainResponse(400, "Bad Request: " + ec.message() + "\n"), 11,
                           /*keep_alive=*/false);
    }
    DoClose();
  }

  // Reads the message into request_ and answers it; an engine request (POST /, see
  // IsEngineRequest) first needs an engine slot and may wait for one, parked. Until the
  // response is written the session reads nothing further, so the parser, whose message
  // request_'s views point into, stays as it is; a parked continuation's reference keeps the
  // session alive.
  void HandleRequest() {
    start_ = Clock::now();
    version_ = received_.version;
    keep_alive_ = received_.KeepAlive();
    request_ = HttpRequest();
    request_.from_loopback = from_loopback_;
    request_.method = received_.View(received_.method);
    request_.target = received_.View(received_.target);
    // One pass over the fields instead of a lookup per header. The first of repeated fields
    // wins.
    bool host = false, content_type = false, amz_target = false;
    header_fields_.clear();
    for (const ReceivedRequest::Field& f : received_.fields) {
      const std::string_view name = received_.View(f.name_string);
      const std::string_view value = received_.View(f.value);
      header_fields_.push_back({name, value});
      switch (f.name) {
        case http::field::host:
          if (!std::exchange(host, true)) request_.host = value;
          break;
        case http::field::content_type:
          if (!std::exchange(content_type, true)) request_.content_type = value;
          break;
        case http::field::authorization:
          if (!request_.authorization) request_.authorization = value;
          break;
        case http::field::origin:
          if (request_.origin.empty()) request_.origin = value;
          break;
        case http::field::content_encoding:
          if (request_.content_encoding.empty()) request_.content_encoding = value;
          break;
        case http::field::accept_encoding:
          if (request_.accept_encoding.empty()) request_.accept_encoding = value;
          break;
        case http::field::access_control_request_method:
          if (request_.cors_request_method.empty()) request_.cors_request_method = value;
          break;
        case http::field::access_control_request_headers:
          if (request_.cors_request_headers.empty()) request_.cors_request_headers = value;
          break;
        case http::field::unknown:
          if (!amz_target && util::EqualsIgnoreCase(name, "X-Amz-Target")) {
            amz_target = true;
            request_.amz_target = value;
          }
          break;
        default:
          break;
      }
    }
    request_.headers = header_fields_;
    request_.body = std::move(received_.body);
    response_content_type_ = ResponseContentType(request_.content_type);

    // Responses waiting for their clients to read them hold --max-response-memory: run
    // nothing more until they go (their clients read them, or read_timeout closes them).
    if (server_.response_budget().Full()) return RejectResponsesPending();
    EngineSlots* slots = server_.engine_slots();
    if (!slots || !IsEngineRequest(request_, s3_request_)) {
      InvokeHandler();
      return FinishRequest();
    }
    // An engine call runs here, on this session's strand, once it holds a slot; the timer
    // cannot fire meanwhile (its handler waits for the strand) and WriteResponse sets the
    // next deadline.
    if (slots->TryAcquire()) return RunEngineCall();
    // Every slot is taken: park until a finishing call passes its slot on. The session reads
    // nothing meanwhile, and no deadline runs: the wait is the server's, not the client's.
    // The tracked executor counts as io_context work while parked, so the threads cannot run
    // out of work and return under a parked request.
    deadline_ = Clock::time_point::max();  // OnTimer re-arms instead of closing
    auto resume = [self = shared_from_this(),
                   executor = asio::prefer(socket_.get_executor(),
                                           asio::execution::outstanding_work.tracked)] {
      asio::post(executor, beast::bind_front_handler(&Session::RunEngineCall, self));
    };
    if (slots->AcquireOrPark(std::move(resume))) RunEngineCall();  // a slot freed meanwhile
  }

  // On the strand, holding an engine slot: the engine call; then the slot goes to the oldest
  // parked request (resumed on its own strand) before this response is written.
  void RunEngineCall() {
    // Checked again here: a request parked for a slot was admitted before the responses
    // computed meanwhile filled the budget.
    if (server_.response_budget().Full()) {
      if (EngineSlots::Continuation next = server_.engine_slots()->Release()) next();
      return RejectResponsesPending();
    }
    watched_ = WatchedCall{.method = request_.method,
                           .target = request_.target,
                           .amz_target = request_.amz_target,
                           .body = s3_request_ || !request_.content_encoding.empty()
                                       ? std::string_view()
                                       : std::string_view(request_.body),
                           .s3 = s3_request_};
    server_.EnterEngine(s3_request_ || (server_.options().engine.durability == Durability::kFsync &&
                                        IsWriteOperation(request_.amz_target)),
                        &watched_);
    InvokeHandler();
    server_.LeaveEngine();
    if (EngineSlots::Continuation next = server_.engine_slots()->Release()) next();
    FinishRequest();
  }

  // The session boundary: an exception from the handler (std::bad_alloc, a bug) becomes
  // InternalServerError for this request and the connection carries on.
  void InvokeHandler() {
    try {
      response_ = server_.Handle(&request_);
    } catch (...) {
      Log(LogLevel::kError, "request " + std::string(request_.amz_target) +
                                " failed with an exception: " + DescribeCurrentException());
      response_ =
          DynamoErrorResponse(Error::Internal("Internal server error"), response_content_type_);
    }
  }

  // On the strand, once response_ is ready: writes it.
  void FinishRequest() {
    if (LogEnabled(LogLevel::kDebug)) {
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count();
      Log(LogLevel::kDebug, std::string(request_.method) + " " + std::string(request_.target) +
                                " " + std::string(request_.amz_target) + " -> " +
                                std::to_string(response_.status) + " in " + std::to_string(micros) +
                                " us");
    }
    // Its capacity serves the next request, unless a large body made it worth giving back.
    received_.body = std::move(request_.body);
    if (received_.body.capacity() > kKeptBufferCapacity) received_.body = std::string();
    ReleaseBody();
    // A HEAD response has the head a GET would have and no body: bytes after the head would be
    // read as the start of the next response on the connection (RFC 9110 9.3.2).
    if (request_.method == "HEAD") {
      WriteHead(response_, version_, keep_alive_ && !server_.stopping());
      response_.body.clear();
      return WriteResponse(std::move(response_), version_, keep_alive_ && !server_.stopping(),
                           /*head_written=*/true);
    }
    WriteResponse(std::move(response_), version_, keep_alive_ && !server_.stopping());
  }

  // 413 and close: the rest of an oversized body is not worth reading.
  void RejectTooLarge(uint64_t limit) {
    Log(LogLevel::kDebug, "rejecting a request body over " + std::to_string(limit) + " bytes");
    const unsigned version = parser_->is_header_done() ? received_.version : 11;
    WriteResponse(PlainResponse(413, "Request Entity Too Large: the body limit is " +
                                         std::to_string(limit) + " bytes\n"),
                  version, /*keep_alive=*/false);
  }

  // 503 and close: the server holds as many request bodies as --max-body-memory allows. The
  // body read so far is dropped; the rest is discarded as it arrives.
  void RejectBusy() {
    Log(LogLevel::kWarn,
        "refusing a request body of " + std::to_string(parser_->content_length().value_or(0)) +
            " bytes: --max-body-memory (" + std::to_string(server_.options().max_body_memory) +
            " bytes) is taken by the requests in progress");
    const unsigned version = received_.version;
    // Copied before the message's storage is given back.
    const std::string content_type(received_.Find(http::field::content_type).value_or(""));
    parser_.reset();
    received_ = ReceivedRequest();
    const Error busy{ErrorCode::kServiceUnavailable,
                     "The server is holding as many request bodies as --max-body-memory "
                     "allows; retry"};
    WriteResponse(DynamoErrorResponse(busy, content_type), version, /*keep_alive=*/false);
  }

  // 503, the connection kept: the request was read whole, and is not run.
  void RejectResponsesPending() {
    Log(LogLevel::kWarn, "refusing a request: --max-response-memory (" +
                             std::to_string(server_.options().max_response_memory) +
                             " bytes) is taken by responses waiting for their clients");
    const Error busy{ErrorCode::kServiceUnavailable,
                     "The server is holding as many unsent responses as --max-response-memory "
                     "allows; retry"};
    response_ = DynamoErrorResponse(busy, response_content_type_);
    FinishRequest();
  }

  // The head, as Beast's serializer wrote it for http::response<string_body> with these
  // fields, keep_alive() and prepare_payload(): status line, Server, Content-Type,
  // x-amzn-RequestId, x-amz-crc32, Allow, Date (as the service sends it), Connection
  // ("keep-alive" or "close", always, as the service sends it), Content-Length.
  void WriteHead(const HttpResponse& response, unsigned version, bool keep_alive) {
    // Literals as string_views: append(const char*) runs strlen on each at run time.
    using namespace std::string_view_literals;
    head_.clear();
    head_ += "HTTP/1.1 "sv;
    head_[5] = static_cast<char>('0' + version / 10 % 10);
    head_[7] = static_cast<char>('0' + version % 10);
    AppendDecimal(&head_, static_cast<unsigned>(response.status));
    head_ += ' ';
    head_ += http::obsolete_reason(static_cast<http::status>(response.status));
    // The service names itself "Server".
    head_ += "\r\nServer: Server\r\nContent-Type: "sv;
    head_ += response.content_type;
    head_ += "\r\nx-amzn-RequestId: "sv;
    const size_t id_at = head_.size();
    head_.resize(id_at + kRequestIdSize);
    WriteRequestId(head_.data() + id_at);
    if (response.crc32) {
      head_ += "\r\nx-amz-crc32: "sv;
      // zlib's CRC32 (the IEEE polynomial), in decimal: what the SDKs check.
      AppendDecimal(&head_, Crc32(response.body));
    }
    if (!response.content_encoding.empty()) {
      head_ += "\r\nContent-Encoding: "sv;
      head_ += response.content_encoding;
    }
    if (!response.allow.empty()) {
      head_ += "\r\nAllow: "sv;
      head_ += response.allow;
    }
    head_ += "\r\nDate: "sv;
    AppendHttpDate(&head_);
    // The service states the connection's fate on every response.
    head_ += keep_alive ? "\r\nConnection: keep-alive"sv : "\r\nConnection: close"sv;
    head_ += "\r\n"sv;
    head_ += response.extra_headers;
    head_ += "Content-Length: "sv;
    AppendDecimal(&head_, response.head_content_length.value_or(response.body.size()));
    head_ += "\r\n\r\n"sv;
  }

  void WriteResponse(HttpResponse response, unsigned version, bool keep_alive,
                     bool head_written = false) {
    if (!head_written) WriteHead(response, version, keep_alive);
    response_body_ = std::move(response.body);
    if (response_body_.size() > kUnbudgetedBody) {
      reserved_response_ = response_body_.size();
      server_.response_budget().Reserve(reserved_response_);
    }
    // Bounds the write too: a client that stops reading cannot pin the session.
    SetDeadline(server_.options().read_timeout);
    const std::array<asio::const_buffer, 2> buffers = {asio::buffer(head_),
                                                       asio::buffer(response_body_)};
    asio::async_write(
        socket_, buffers,
        beast::bind_front_handler(&Session::OnWrite, shared_from_this(), !keep_alive));
  }

  void OnWrite(bool close, beast::error_code ec, size_t /*bytes*/) {
    ReleaseResponse();
    if (response_body_.capacity() > kKeptBufferCapacity) response_body_ = std::string();
    if (ec) return OnWriteError(ec);
    if (close) return DoLingeringClose();
    StartMessage();
  }

  void OnWriteError(beast::error_code ec) {
    Log(LogLevel::kDebug, "closing connection: write failed: " +
                              (timed_out_ ? std::string("timeout") : ec.message()));
  }

  void DoClose() {
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
  }

  // After a response with "Connection: close" the client may still be sending (a rejected
  // oversized body). Closing at once would make the kernel answer those bytes with a RST,
  // which can discard our response before the client reads it; so stop sending, then discard
  // input until the client closes or a short deadline passes.
  void DoLingeringClose() {
    DoClose();
    idle_ = true;  // shutdown may close it at once
    SetDeadline(std::chrono::seconds(2));
    Drain();
  }

  void Drain() {
    socket_.async_read_some(buffer_.prepare(64 * 1024),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (!ec) self->Drain();  // discarded: never committed
                            });
  }

  SessionSocket socket_;
  bool from_loopback_ = false;  // the peer's address, taken once
  SessionTimer timer_;
  Clock::time_point deadline_;
  bool timer_armed_ = false;
  bool timed_out_ = false;
  beast::flat_buffer buffer_;
  Impl& server_;
  ReceivedRequest received_;  // the message being read, its storage reused from message to message
  std::optional<RequestReader> parser_;
  bool header_seen_ = false;   // the current message's header was parsed
  bool first_bytes_ = true;    // nothing but (a prefix of) the HTTP/2 preface seen yet
  std::string head_;           // response head (or "100 Continue"), reused
  std::string response_body_;  // the body being written
  // The request being answered (its views point into *parser_), its response, and what the
  // response needs of the message.
  HttpRequest request_;
  // The message's header fields for request_.headers, reused from request to request.
  std::vector<HeaderField> header_fields_;
  HttpResponse response_;
  WatchedCall watched_;  // the engine call in progress, for the watchdog (RunEngineCall)
  Clock::time_point start_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  std::string_view response_content_type_ = kJson10;  // one of the static names
  bool s3_request_ = false;       // the message is signed for S3 (set once its header is parsed)
  bool idle_ = false;             // waiting for the next request (or lingering): safe to close
  size_t reserved_body_ = 0;      // this request's share of the server's body_budget()
  size_t reserved_response_ = 0;  // this response's share of its response_budget()
  const bool refused_;            // over --max-connections: answered 503 and closed
};

void HttpServer::Impl::StartH2c(int fd, std::string received, bool from_loopback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_requested_ || h2c_.size() >= static_cast<size_t>(kMaxH2cConnections)) {
    ::close(fd);
    return;
  }
  auto handler = [this](HttpRequest* request) {
    try {
      return Handle(request);
    } catch (...) {
      Log(LogLevel::kError, "request " + std::string(request->amz_target) +
                                " failed with an exception: " + DescribeCurrentException());
      return DynamoErrorResponse(Error::Internal("Internal server error"), request->content_type);
    }
  };
  auto connection =
      std::make_shared<H2cConnection>(fd, std::move(received), from_loopback, std::move(handler),
                                      options_.body_limit, &body_budget_, options_.read_timeout);
  h2c_.insert(connection);
  // Detached: Run waits for h2c_ to empty before it returns (the engine must outlive the
  // connection's calls).
  std::thread([this, connection] {
    connection->Serve();
    std::lock_guard<std::mutex> done(mu_);
    h2c_.erase(connection);
    cv_.notify_all();
  }).detach();
}

void HttpServer::Impl::Register(Session* session, std::weak_ptr<Session> weak) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.emplace(session, std::move(weak));
}

void HttpServer::Impl::Unregister(Session* session, bool refused) {
  if (!refused) admitted_.fetch_sub(1, std::memory_order_relaxed);
  bool notify = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(session);
    notify = stop_requested_ && sessions_.empty();
  }
  if (notify) cv_.notify_all();
}

Status HttpServer::Impl::Start() {
  beast::error_code ec;
  tcp::resolver resolver(ioc_);
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  tcp::resolver::results_type endpoints =
      resolver.resolve(options_.host, std::to_string(options_.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    return Error::Internal("cannot resolve " + where + ": " + ec.message());
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Error::Internal("cannot listen on " + where + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();

  signals_.async_wait([this](beast::error_code signal_ec, int signal_number) {
    if (signal_ec) return;  // cancelled by Stop()
    Log(LogLevel::kInfo, std::string("received ") +
                             (signal_number == SIGINT ? "SIGINT" : "SIGTERM") + ", shutting down");
    Stop();
  });
  asio::post(strand_, [this] { DoAccept(); });
  return Status::Ok();
}

void HttpServer::Impl::DoAccept() {
  // Each connection gets its own strand: its handlers never run concurrently.
  acceptor_.async_accept(SessionStrand(ioc_.get_executor()),
                         beast::bind_front_handler(&Impl::OnAccept, this));
}

void HttpServer::Impl::OnAccept(beast::error_code ec, SessionSocket socket) {
  if (stopping()) return;  // the acceptor is closed or closing
  if (ec) {
    // E.g. EMFILE: retrying at once would spin, so back off briefly.
    Log(LogLevel::kWarn, "accept failed: " + ec.message());
    accept_retry_timer_.expires_after(std::chrono::milliseconds(100));
    accept_retry_timer_.async_wait([this](beast::error_code timer_ec) {
      if (!timer_ec && !stopping()) DoAccept();
    });
    return;
  }
  // Responses are written whole; Nagle would only delay the last segment.
  socket.set_option(tcp::no_delay(true), ec);
  const bool refused = admitted_.load(std::memory_order_relaxed) >= options_.max_connections;
  if (refused) {
    Log(LogLevel::kDebug, "refusing a connection: --max-connections reached");
  } else {
    admitted_.fetch_add(1, std::memory_order_relaxed);
  }
  std::make_shared<Session>(std::move(socket), *this, refused)->Start();
  DoAccept();
}

void HttpServer::Impl::RunThread(int index) {
  if (spares_) spares_->Attach(index);
  // Handlers catch their own exceptions; this only keeps a stray one from killing a thread.
  while (true) {
    try {
      ioc_.run();
      return;
    } catch (...) {
      Log(LogLevel::kError, "exception escaped a handler: " + DescribeCurrentException());
    }
  }
}

void HttpServer::Impl::Run() {
  const int n = std::max(1, options_.threads);
  if (engine_slots_) {
    SpareThreads::Options spare_options;
    spare_options.loop_threads = n;
    spare_options.spares = options_.engine_threads;
    spares_ = std::make_unique<SpareThreads>(spare_options, [this] {
      if (ioc_.stopped()) return false;
      try {
        ioc_.run_one_for(std::chrono::milliseconds(5));
      } catch (...) {
        Log(LogLevel::kError, "exception escaped a handler: " + DescribeCurrentException());
      }
      return true;
    });
    spares_->Start();
    if (options_.request_watchdog.count() > 0) {
      RequestWatchdog::Options watchdog_options;
      watchdog_options.threshold = options_.request_watchdog;
      watchdog_ =
          std::make_unique<RequestWatchdog>(spares_.get(), watchdog_options, DescribeWatchedCall);
      watchdog_->Start();
    }
  }
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { RunThread(i); });

  bool drained = true;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_; });
    drained = cv_.wait_for(lock, options_.shutdown_grace,
                           [this] { return sessions_.empty() && h2c_.empty(); });
    if (!drained) {
      Log(LogLevel::kWarn, std::to_string(sessions_.size()) +
                               " connection(s) still busy after the shutdown grace period; "
                               "dropping them");
      if (watchdog_) {
        const std::string running = watchdog_->DescribeRunning(RequestWatchdog::SteadyNowNs());
        if (!running.empty()) {
          Log(LogLevel::kWarn,
              "engine calls still running: " + running + "; the process " + "exits within " +
                  std::to_string(kShutdownCloseAllowance.count()) + " s even if they never return");
        }
      }
      ioc_.stop();  // handlers already running finish; queued ones are destroyed with ioc_
    }
  }
  // With the acceptor closed, signals cancelled and no sessions, run() runs out of work.
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  {
    // An HTTP/2 connection's request in an engine call finishes before the engine may close
    // (one that never returns is cut short by the process's shutdown deadline).
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return h2c_.empty(); });
  }
  // A spare still in a handler (after ioc_.stop()) finishes it first.
  if (watchdog_) watchdog_->Stop();
  if (spares_) spares_->Stop();
  // Every engine call has returned: they run on the threads just joined, so the engine may
  // be closed once Run() returns. Drained: nothing is parked (a parked continuation holds its
  // session). Otherwise the requests still parked are dropped with their connections.
  if (engine_slots_) engine_slots_->DiscardParked();
}

void HttpServer::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) return;
    stop_requested_ = true;
    stopping_.store(true, std::memory_order_release);
  }
  if (stop_hook_) stop_hook_();
  cv_.notify_all();
  asio::post(strand_, [this] { BeginShutdown(); });
}

void HttpServer::Impl::BeginShutdown() {
  beast::error_code ec;
  acceptor_.close(ec);
  signals_.cancel(ec);
  accept_retry_timer_.cancel();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [raw, weak] : sessions_) {
      if (std::shared_ptr<Session> session = weak.lock()) live.push_back(std::move(session));
    }
    for (const std::shared_ptr<H2cConnection>& c : h2c_) c->Close();  // no further requests
  }
  Log(LogLevel::kInfo, "stopped accepting; closing " + std::to_string(live.size()) +
                           " connection(s) once their requests finish");
  for (std::shared_ptr<Session>& session : live) {
    asio::dispatch(session->executor(), [session] { session->OnServerStop(); });
  }
}

HttpServer::HttpServer(Namespaces& namespaces, const ServerOptions& options,
                       const SignatureVerifier* verifier)
    : HttpServer(
          [&namespaces, verifier, cors = options.cors_origins, console = ConsoleEnabled(options),
           stall = options.testing_stall_table,
           s3 = std::make_shared<LocalS3Store>(S3Directory(options),
                                               options.engine.durability == Durability::kFsync)](
              HttpRequest* request) {
            if (!stall.empty()) StallIfNamed(*request, stall);
            return Route(namespaces, request, verifier, cors, console, s3.get());
          },
          options) {}

HttpServer::HttpServer(Engine& engine, const ServerOptions& options,
                       const SignatureVerifier* verifier)
    : HttpServer(
          [shared = std::make_shared<Namespaces>(engine), verifier,
           console = ConsoleEnabled(options)](HttpRequest* request) {
            return Route(*shared, request, verifier, "*", console);
          },
          options) {}

HttpServer::HttpServer(RequestHandler handler, const ServerOptions& options)
    : impl_(std::make_unique<Impl>(std::move(handler), options)) {}

HttpServer::~HttpServer() { impl_->Stop(); }

void HttpServer::SetStopHook(std::function<void()> hook) { impl_->SetStopHook(std::move(hook)); }
Status HttpServer::Start() { return impl_->Start(); }
uint16_t HttpServer::port() const { return impl_->port(); }
void HttpServer::Run() { impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace ddb::server
