// loadgen: a DynamoDB load generator (JSON over HTTP/1.1, keep-alive connections) for
// ddb-server, the floor server (bench/floor_server.cc) and dynalite. Sends the requests an SDK
// would send, with a dummy SigV4 Authorization header, and reports throughput, latency
// percentiles (log-linear histogram, <1 % error), errors by type and, with --server-pid, the
// server's CPU time per request read from /proc.
//
// Shape: --threads io_contexts, each on its own thread and serving a share of --connections.
// A connection has one request in flight (no pipelining). Closed loop by default; with --rate
// the load is open loop: every connection sends on a fixed schedule and latency is measured
// from the scheduled time, so a stalled server is not hidden (coordinated omission).
//
// A run is a sequence of phases (create table, preload, warmup, the workload's phases) that
// reuse the same connections. Only this file includes Beast (each Beast TU costs 10-25 s to build);
// the table shapes (GSIs, LSI, stream, TTL) and their part of the request bodies are in
// loadgen_tables.cc.

// clang-format off
#include <utility>  // before any Asio header: Boost 1.74 awaitable.hpp needs std::exchange
// clang-format on

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "loadgen_tables.h"
#include "server/auth/sigv4_verify.h"
#include "util/digest.h"
#include "util/iso8601.h"

namespace ddb::bench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr int kBatchSize = 25;  // BatchWriteItem's per-request maximum

// ---------------------------------------------------------------------------------------------
// Flags

struct Options {
  std::string host = "127.0.0.1";
  int port = 8000;
  int connections = 16;
  int threads = 1;
  double duration = 10;  // seconds per measured phase
  int64_t requests = 0;  // > 0: count mode instead of --duration (per op for l1)
  double warmup = 1;     // seconds, not reported
  double rate = 0;       // total req/s; 0 = closed loop
  std::string workload = "get";
  int item_size = 200;
  std::string keys = "uniform";
  double zipf_theta = 0.99;
  int64_t preload = 0;
  int64_t keyspace = -1;  // -1: = preload
  int items_per_pk = 10;
  std::string table = "bench";
  bool create = true;
  int query_limit = 10;
  int scan_limit = 100;
  double burst_factor = 3;
  double calibrate = 3;  // l3 without --rate: seconds of closed-loop L2 to find the base rate
  std::string l2_writes = "put";
  int hot_pk = 0;
  int server_pid = 0;
  double timeout = 10;
  std::string label;
  uint64_t seed = 0;
  // --sign KEY:SECRET: real SigV4 signatures (host, x-amz-date, x-amz-target, the body's
  // hash) instead of a well-formed dummy, for servers that verify them.
  std::string sign_key, sign_secret;
  bool progress = true;
  TableShape shape;  // --gsis, --lsi, --stream, --ttl and their fractions
};

void PrintUsage(FILE* out) {
  std::fputs(
      "usage: loadgen [flags]\n"
      "  --host H            server address (default 127.0.0.1)\n"
      "  --port P            server port (default 8000)\n"
      "  --connections N     keep-alive connections, one request in flight each (default 16)\n"
      "  --threads N         client threads (io_contexts) sharing the connections (default 1)\n"
      "  --duration S        seconds per measured phase (default 10)\n"
      "  --requests N        send N requests instead of running for --duration (l1: per op)\n"
      "  --warmup S          unreported warmup before the measured phase (default 1)\n"
      "  --rate R            open loop at R req/s in total (default 0: closed loop)\n"
      "  --workload W        get|put|update|query|scan|batchwrite|transact|l1|l2|l3|none\n"
      "                      (default get; none: only create and preload)\n"
      "  --item-size B       approximate item size in bytes, e.g. 200 or 4096 (default 200)\n"
      "  --keys K            uniform|zipf key choice (default uniform)\n"
      "  --zipf-theta T      Zipf skew (default 0.99)\n"
      "  --preload N         write N items with BatchWriteItem first (PutItem if the server\n"
      "                      lacks BatchWriteItem) (default 0)\n"
      "  --keyspace N        existing items that get/update/query target (default --preload)\n"
      "  --items-per-pk N    items per partition key; Query reads one partition (default 10)\n"
      "  --table T           table name (default bench)\n"
      "  --no-create         do not CreateTable (it is created PAY_PER_REQUEST, pk S + sk S,\n"
      "                      and polled with DescribeTable until ACTIVE; an existing table is\n"
      "                      reused)\n"
      "  --query-limit N     Query Limit (default 10)\n"
      "  --scan-limit N      Scan page Limit (default 100)\n"
      "  --burst-factor F    l3: burst rate = F x base rate (default 3)\n"
      "  --calibrate S       l3 without --rate: closed-loop L2 seconds; base = 1/4 of it (3)\n"
      "  --l2-writes W       put|transact: the 20 % writes of l2/l3 (default put)\n"
      "  --hot-pk N          l1: the hot partition key's number (default 0)\n"
      "  --server-pid PID    report the server's CPU per request from /proc/PID/stat\n"
      "  --timeout S         per-request timeout; a timeout closes the connection (default 10)\n"
      "  --label L           tag for the RESULT lines\n"
      "  --seed N            random seed (default: from the clock)\n"
      "  --sign KEY:SECRET   sign each request with SigV4 as an SDK does (for servers that\n"
      "                      verify signatures, e.g. ddb-server --auth verify)\n"
      "  --no-progress       no progress line on stderr\n"
      "Table shape (CreateTable, and the attributes every written item carries; give the same\n"
      "flags with --no-create to write to a table created earlier):\n"
      "  --gsis N            0, 1 or 2 GSIs, ProjectionType ALL: gsi1 on g1pk/g1sk (4096 hash\n"
      "                      keys), gsi2 on g2pk/g2sk (512) (default 0)\n"
      "  --lsi               one LSI, lsi1 on pk/lsk, ProjectionType ALL\n"
      "  --stream            StreamSpecification NEW_AND_OLD_IMAGES\n"
      "  --ttl ATTR          UpdateTimeToLive on ATTR after CreateTable (a server without it is\n"
      "                      reported, not fatal); written items carry ATTR (N, Unix seconds)\n"
      "  --expiring-fraction F  of written items, expire within --expire-after (default 0;\n"
      "                      the rest expire in ~10 years)\n"
      "  --expire-after S    seconds within which the expiring items expire (default 60)\n"
      "  --index-move-fraction F  of UpdateItems on a table with indexes that also SET new\n"
      "                      g1pk/g2pk/lsk values, moving the index entries (default 0.25)\n"
      "  --gsi-query-fraction F  of Queries sent to gsi1 instead of the table (default 0)\n"
      "Prints a table per phase and machine-readable lines starting with RESULT.\n",
      out);
}

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr, "loadgen: %s\n\n", problem.c_str());
  PrintUsage(stderr);
  std::exit(2);
}

double ParseDouble(const std::string& flag, const std::string& value, double min) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v) || v < min) {
    Usage("bad value for " + flag + ": '" + value + "'");
  }
  return v;
}

double ParseFraction(const std::string& flag, const std::string& value) {
  const double v = ParseDouble(flag, value, 0);
  if (v > 1) Usage("bad value for " + flag + ": '" + value + "' (a fraction in [0, 1])");
  return v;
}

int64_t ParseInt(const std::string& flag, const std::string& value, int64_t min, int64_t max) {
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < min || v > max) {
    Usage("bad value for " + flag + ": '" + value + "'");
  }
  return v;
}

Options ParseFlags(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::optional<std::string> inline_value;
    if (size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--help" || flag == "-h") {
      PrintUsage(stdout);
      std::exit(0);
    }
    if (flag == "--no-create") {
      o.create = false;
      continue;
    }
    if (flag == "--no-progress") {
      o.progress = false;
      continue;
    }
    if (flag == "--lsi") {
      o.shape.lsi = true;
      continue;
    }
    if (flag == "--stream") {
      o.shape.stream = true;
      continue;
    }
    std::string v;
    if (inline_value) {
      v = *inline_value;
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      Usage("missing value for " + flag);
    }
    constexpr int64_t kMax = int64_t{1} << 40;
    if (flag == "--host") {
      o.host = v;
    } else if (flag == "--port") {
      o.port = static_cast<int>(ParseInt(flag, v, 1, 65535));
    } else if (flag == "--connections") {
      o.connections = static_cast<int>(ParseInt(flag, v, 1, 10000));
    } else if (flag == "--threads") {
      o.threads = static_cast<int>(ParseInt(flag, v, 1, 256));
    } else if (flag == "--duration") {
      o.duration = ParseDouble(flag, v, 0.001);
    } else if (flag == "--requests") {
      o.requests = ParseInt(flag, v, 0, kMax);
    } else if (flag == "--warmup") {
      o.warmup = ParseDouble(flag, v, 0);
    } else if (flag == "--rate") {
      o.rate = ParseDouble(flag, v, 0);
    } else if (flag == "--workload") {
      o.workload = v;
    } else if (flag == "--item-size") {
      o.item_size = static_cast<int>(ParseInt(flag, v, 1, 400 * 1024));
    } else if (flag == "--keys") {
      o.keys = v;
    } else if (flag == "--zipf-theta") {
      o.zipf_theta = ParseDouble(flag, v, 0.01);
    } else if (flag == "--preload") {
      o.preload = ParseInt(flag, v, 0, kMax);
    } else if (flag == "--keyspace") {
      o.keyspace = ParseInt(flag, v, 1, kMax);
    } else if (flag == "--items-per-pk") {
      o.items_per_pk = static_cast<int>(ParseInt(flag, v, 1, 999999));
    } else if (flag == "--table") {
      o.table = v;
    } else if (flag == "--query-limit") {
      o.query_limit = static_cast<int>(ParseInt(flag, v, 1, 1000000));
    } else if (flag == "--scan-limit") {
      o.scan_limit = static_cast<int>(ParseInt(flag, v, 1, 1000000));
    } else if (flag == "--burst-factor") {
      o.burst_factor = ParseDouble(flag, v, 0.01);
    } else if (flag == "--calibrate") {
      o.calibrate = ParseDouble(flag, v, 0.1);
    } else if (flag == "--l2-writes") {
      o.l2_writes = v;
    } else if (flag == "--hot-pk") {
      o.hot_pk = static_cast<int>(ParseInt(flag, v, 0, kMax));
    } else if (flag == "--server-pid") {
      o.server_pid = static_cast<int>(ParseInt(flag, v, 1, INT32_MAX));
    } else if (flag == "--timeout") {
      o.timeout = ParseDouble(flag, v, 0.001);
    } else if (flag == "--label") {
      o.label = v;
    } else if (flag == "--sign") {
      const size_t colon = v.find(':');
      if (colon == std::string::npos || colon == 0) {
        std::fprintf(stderr, "loadgen: --sign wants KEY:SECRET\n");
        std::exit(2);
      }
      o.sign_key = v.substr(0, colon);
      o.sign_secret = v.substr(colon + 1);
    } else if (flag == "--seed") {
      o.seed = static_cast<uint64_t>(ParseInt(flag, v, 0, INT64_MAX));
    } else if (flag == "--gsis") {
      o.shape.gsis = static_cast<int>(ParseInt(flag, v, 0, 2));
    } else if (flag == "--ttl") {
      o.shape.ttl_attribute = v;
    } else if (flag == "--expiring-fraction") {
      o.shape.expiring_fraction = ParseFraction(flag, v);
    } else if (flag == "--expire-after") {
      o.shape.expire_after = ParseDouble(flag, v, 0);
    } else if (flag == "--index-move-fraction") {
      o.shape.index_move_fraction = ParseFraction(flag, v);
    } else if (flag == "--gsi-query-fraction") {
      o.shape.gsi_query_fraction = ParseFraction(flag, v);
    } else {
      Usage("unknown flag " + flag);
    }
  }
  static const std::vector<std::string> kWorkloads = {
      "get", "put", "update", "query", "scan", "batchwrite", "transact", "l1", "l2", "l3", "none"};
  if (std::find(kWorkloads.begin(), kWorkloads.end(), o.workload) == kWorkloads.end()) {
    Usage("unknown workload '" + o.workload + "'");
  }
  if (o.keys != "uniform" && o.keys != "zipf") Usage("--keys must be uniform or zipf");
  if (o.l2_writes != "put" && o.l2_writes != "transact") {
    Usage("--l2-writes must be put or transact");
  }
  if (o.shape.gsi_query_fraction > 0 && o.shape.gsis == 0) {
    Usage("--gsi-query-fraction needs --gsis 1 or 2");
  }
  if (o.shape.ttl_attribute.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-.") != std::string::npos) {
    Usage("--ttl: an attribute name of letters, digits, '_', '-' and '.'");
  }
  if (o.keyspace < 0) o.keyspace = std::max<int64_t>(1, o.preload);
  if (o.seed == 0) o.seed = static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  return o;
}

// ---------------------------------------------------------------------------------------------
// Random numbers and key choice

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  double Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

// Zipf-distributed integers in [0, n): Gray et al., "Quickly generating billion-record
// synthetic databases" (the YCSB ZipfianGenerator), with ranks scrambled by a hash so that the
// hot keys are spread over the key space (YCSB's ScrambledZipfian). Read-only after
// construction: shared by all threads.
class KeyChooser {
 public:
  KeyChooser(uint64_t n, bool zipf, double theta) : n_(std::max<uint64_t>(1, n)), zipf_(zipf) {
    if (!zipf_) return;
    theta_ = theta;
    double zetan = 0;
    for (uint64_t i = 1; i <= n_; ++i) zetan += 1.0 / std::pow(static_cast<double>(i), theta);
    zetan_ = zetan;
    const double zeta2 = 1.0 + std::pow(0.5, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(n_), 1.0 - theta)) / (1.0 - zeta2 / zetan);
  }

  uint64_t Next(Rng& rng) const {
    if (!zipf_) return rng.Below(n_);
    const double u = rng.Uniform01();
    const double uz = u * zetan_;
    uint64_t rank;
    if (uz < 1.0) {
      rank = 0;
    } else if (uz < 1.0 + std::pow(0.5, theta_)) {
      rank = 1;
    } else {
      rank =
          static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
    }
    return Mix64(std::min(rank, n_ - 1)) % n_;
  }

 private:
  uint64_t n_;
  bool zipf_;
  double theta_ = 0, zetan_ = 0, alpha_ = 0, eta_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Latency histogram

// Log-linear histogram of nanoseconds in HdrHistogram's layout: 128 exact values, then 64
// sub-buckets per power of two (a value is known within 1/64). Mergeable; one per op and thread.
class Histogram {
 public:
  void Record(uint64_t v) {
    if (counts_.empty()) counts_.assign(kBuckets, 0);
    ++counts_[Index(v)];
    ++count_;
    max_ = std::max(max_, v);
  }

  void Merge(const Histogram& other) {
    if (other.count_ == 0) return;
    if (counts_.empty()) counts_.assign(kBuckets, 0);
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
  }

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }

  // The value at percentile p (0..100): the middle of its bucket, never above the maximum.
  uint64_t Percentile(double p) const {
    if (count_ == 0) return 0;
    const auto target = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(p / 100.0 * count_)));
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= target) return std::min(max_, Lower(i) + Width(i) / 2);
    }
    return max_;
  }

 private:
  static constexpr int kSubBits = 7;
  static constexpr uint64_t kSub = uint64_t{1} << kSubBits;  // exact below this
  static constexpr uint64_t kHalf = kSub / 2;                // sub-buckets per power of two
  static constexpr size_t kBuckets = kSub + (64 - kSubBits) * kHalf;

  static size_t Index(uint64_t v) {
    if (v < kSub) return v;
    const int shift = (63 - std::countl_zero(v)) - (kSubBits - 1);  // v >> shift: [kHalf, kSub)
    return static_cast<size_t>(shift) * kHalf + (v >> shift);
  }
  static uint64_t Lower(size_t i) {
    if (i < kSub) return i;
    const uint64_t shift = i / kHalf - 1;
    return (i % kHalf + kHalf) << shift;
  }
  static uint64_t Width(size_t i) { return i < kSub ? 1 : uint64_t{1} << (i / kHalf - 1); }

  std::vector<uint64_t> counts_;  // empty until the first value
  uint64_t count_ = 0;
  uint64_t max_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Operations and request bodies

enum class Op : uint8_t {
  kGetItem,
  kPutItem,
  kUpdateItem,
  kQuery,
  kScan,
  kBatchWriteItem,
  kTransactWriteItems,
  kCreateTable,
  kDescribeTable,
  kUpdateTimeToLive,
};
constexpr size_t kOpCount = 10;
constexpr std::array<std::string_view, kOpCount> kOpNames = {
    "GetItem",       "PutItem",         "UpdateItem",         "Query",
    "Scan",          "BatchWriteItem",  "TransactWriteItems", "CreateTable",
    "DescribeTable", "UpdateTimeToLive"};

std::string_view OpName(Op op) { return kOpNames[static_cast<size_t>(op)]; }

// The part of the HTTP request before the body's length. The Authorization header is well
// formed but not a valid signature: ddb parses it, dynalite only wants it (and X-Amz-Date).
std::string RequestHead(const Options& o, Op op) {
  return "POST / HTTP/1.1\r\nHost: " + o.host + ":" + std::to_string(o.port) +
         "\r\nContent-Type: application/x-amz-json-1.0\r\n"
         "X-Amz-Date: 20261130T000000Z\r\n"
         "Authorization: AWS4-HMAC-SHA256 Credential=x/20261130/us-east-1/dynamodb/"
         "aws4_request, SignedHeaders=host, Signature=0\r\n"
         "X-Amz-Target: DynamoDB_20120810." +
         std::string(OpName(op)) + "\r\nContent-Length: ";
}

// With --sign: the head of a request signed as the SDKs sign it (host, x-amz-date and
// x-amz-target signed, the body hashed), ending like RequestHead in "Content-Length: ".
// The signing key is derived once per day and thread.
std::string SignedRequestHead(const Options& o, Op op, const std::string& body) {
  const std::string amz_date = util::FormatIso8601Basic(std::time(nullptr));
  const std::string day = amz_date.substr(0, 8);
  thread_local std::string key_day, signing_key;
  if (key_day != day) {
    signing_key = ddb::server::DeriveSigningKey(o.sign_secret, day, "us-east-1", "dynamodb");
    key_day = day;
  }
  const std::string host = o.host + ":" + std::to_string(o.port);
  const std::string target = "DynamoDB_20120810." + std::string(OpName(op));
  const std::string canonical = "POST\n/\n\nhost:" + host + "\nx-amz-date:" + amz_date +
                                "\nx-amz-target:" + target + "\n\nhost;x-amz-date;x-amz-target\n" +
                                util::Sha256Hex(body);
  const std::string scope = day + "/us-east-1/dynamodb/aws4_request";
  const std::string signature =
      util::HmacSha256Hex(signing_key, ddb::server::StringToSign(amz_date, scope, canonical));
  return "POST / HTTP/1.1\r\nHost: " + host +
         "\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Date: " + amz_date +
         "\r\nAuthorization: AWS4-HMAC-SHA256 Credential=" + o.sign_key + "/" + scope +
         ", SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + signature +
         "\r\nX-Amz-Target: " + target + "\r\nContent-Length: ";
}

// The head for `body`: signed with --sign, else the prebuilt dummy-signed one.
std::string HeadFor(const Options& o, Op op, const std::string& body, const std::string& prebuilt) {
  return o.sign_key.empty() ? prebuilt : SignedRequestHead(o, op, body);
}

// Builds request bodies. Keys: item i of the preloaded data set has pk "p<i / items_per_pk>"
// and sk "s<i % items_per_pk, 6 digits>"; new items (put, batchwrite, transact) get a pk with
// this run's id, so a second run against the same table writes new keys too. Items also carry
// the table shape's index and TTL attributes (loadgen_tables.h).
class Bodies {
 public:
  explicit Bodies(const Options& o)
      : o_(o), run_id_(std::to_string(Mix64(o.seed) % 1000000)), filler_(o.item_size, 'x') {
    for (size_t i = 0; i < filler_.size(); ++i) filler_[i] = static_cast<char>('a' + i * 7 % 26);
  }

  void AppendKey(std::string* out, const std::string& pk, int64_t sk) const {
    char sk_text[16];
    std::snprintf(sk_text, sizeof(sk_text), "s%06" PRId64, sk);
    *out += R"({"pk":{"S":")";
    *out += pk;
    *out += R"("},"sk":{"S":")";
    *out += sk_text;
    *out += R"("}})";
  }
  std::string ExistingPk(int64_t item) const { return "p" + std::to_string(item / Ipp()); }
  std::string NewPk(int64_t item) const {
    return "n" + run_id_ + "-" + std::to_string(item / Ipp());
  }

  // {"pk":..,"sk":..,<shape attributes>,"n":{"N":"0"},"data":{"S":"..."}} of about --item-size
  // bytes (DynamoDB's size: attribute names plus values).
  void AppendItem(std::string* out, const std::string& pk, int64_t item) const {
    std::string shape;
    const int64_t shape_size =
        AppendShapeAttributes(&shape, o_.shape, item, static_cast<int64_t>(std::time(nullptr)));
    const int64_t overhead = 2 + static_cast<int64_t>(pk.size()) + 2 + 7 + 1 + 2 + 4 + shape_size;
    const int64_t data = std::max<int64_t>(1, o_.item_size - overhead);
    std::string key;
    AppendKey(&key, pk, item % Ipp());
    key.pop_back();  // reopen the object
    *out += key;
    *out += shape;
    *out += R"(,"n":{"N":"0"},"data":{"S":")";
    out->append(filler_.data(), std::min<size_t>(data, filler_.size()));
    *out += R"("}})";
  }

  std::string GetItem(int64_t item) const {
    std::string b = R"({"TableName":")" + o_.table + R"(","Key":)";
    AppendKey(&b, ExistingPk(item), item % Ipp());
    return b + "}";
  }
  std::string GetItemIn(int64_t pk_number, int64_t sk) const {
    std::string b = R"({"TableName":")" + o_.table + R"(","Key":)";
    AppendKey(&b, "p" + std::to_string(pk_number), sk);
    return b + "}";
  }
  std::string PutItem(const std::string& pk, int64_t item) const {
    std::string b = R"({"TableName":")" + o_.table + R"(","Item":)";
    AppendItem(&b, pk, item);
    return b + "}";
  }
  // ADD 1 to n; on a table with indexes `random` sometimes also moves the index entries.
  std::string UpdateItem(int64_t item, uint64_t random) const {
    std::string b = R"({"TableName":")" + o_.table + R"(","Key":)";
    AppendKey(&b, ExistingPk(item), item % Ipp());
    AppendUpdateMembers(&b, o_.shape, random);
    return b;
  }
  std::string Query(int64_t pk_number) const {
    return R"({"TableName":")" + o_.table +
           R"j(","KeyConditionExpression":"pk = :p AND begins_with(sk, :s)",)j"
           R"("ExpressionAttributeValues":{":p":{"S":"p)" +
           std::to_string(pk_number) + R"("},":s":{"S":"s"}},"Limit":)" +
           std::to_string(o_.query_limit) + "}";
  }
  std::string QueryGsi(uint64_t gsi_pk) const {
    return QueryGsiBody(o_.table, gsi_pk, o_.query_limit);
  }
  std::string Scan(const std::string& exclusive_start_key) const {
    std::string b =
        R"({"TableName":")" + o_.table + R"(","Limit":)" + std::to_string(o_.scan_limit);
    if (!exclusive_start_key.empty()) b += R"(,"ExclusiveStartKey":)" + exclusive_start_key;
    return b + "}";
  }
  // Items [first, first + count) of the data set (existing == true) or of this run's new keys.
  std::string BatchWrite(int64_t first, int64_t count, bool existing) const {
    std::string b = R"({"RequestItems":{")" + o_.table + R"(":[)";
    for (int64_t i = first; i < first + count; ++i) {
      if (i != first) b += ",";
      b += R"({"PutRequest":{"Item":)";
      AppendItem(&b, existing ? ExistingPk(i) : NewPk(i), i);
      b += "}}";
    }
    return b + "]}}";
  }
  std::string TransactPut(int64_t item) const {
    std::string b = R"({"TransactItems":[{"Put":{"TableName":")" + o_.table + R"(","Item":)";
    AppendItem(&b, NewPk(item), item);
    return b + "}}]}";
  }
  std::string CreateTable() const { return CreateTableBody(o_.table, o_.shape); }
  std::string UpdateTimeToLive() const { return UpdateTimeToLiveBody(o_.table, o_.shape); }
  std::string DescribeTable() const { return R"({"TableName":")" + o_.table + R"("})"; }

 private:
  int64_t Ipp() const { return o_.items_per_pk; }

  const Options& o_;
  std::string run_id_;
  std::string filler_;
};

// ---------------------------------------------------------------------------------------------
// Reading responses (just enough JSON to follow pages and classify errors)

// The raw JSON value of the first member called `name` (a top-level search: good enough for the
// responses this tool reads), or nullopt.
std::optional<std::string_view> JsonMember(std::string_view body, std::string_view name) {
  const std::string quoted = "\"" + std::string(name) + "\"";
  size_t pos = body.find(quoted);
  if (pos == std::string_view::npos) return std::nullopt;
  pos = body.find_first_not_of(" \t\r\n:", pos + quoted.size());
  if (pos == std::string_view::npos) return std::nullopt;
  const size_t start = pos;
  if (body[pos] == '"') {
    for (++pos; pos < body.size() && body[pos] != '"'; ++pos) {
      if (body[pos] == '\\') ++pos;
    }
    return body.substr(start, pos + 1 - start);
  }
  if (body[pos] != '{' && body[pos] != '[') {
    const size_t end = body.find_first_of(",}] \t\r\n", pos);
    return body.substr(start, end == std::string_view::npos ? end : end - start);
  }
  int depth = 0;
  bool in_string = false;
  for (; pos < body.size(); ++pos) {
    const char c = body[pos];
    if (in_string) {
      if (c == '\\') {
        ++pos;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return body.substr(start, pos + 1 - start);
    }
  }
  return std::nullopt;
}

// "ValidationException" from {"__type":"com.amazonaws.dynamodb.v20120810#ValidationException"}.
std::string ErrorType(int status, std::string_view body) {
  std::optional<std::string_view> type = JsonMember(body, "__type");
  std::string name = "HTTP " + std::to_string(status);
  if (type && type->size() >= 2) {
    std::string_view t = type->substr(1, type->size() - 2);
    if (size_t hash = t.rfind('#'); hash != std::string_view::npos) t = t.substr(hash + 1);
    name = std::string(t) + " (" + std::to_string(status) + ")";
  }
  return name;
}

bool EmptyJsonObject(std::string_view v) {
  return v.find_first_not_of(" \t\r\n{}") == std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------
// Phases and statistics

struct Phase {
  std::string name = {};
  bool report = true;
  double seconds = 0;                        // duration mode (requests == 0)
  int64_t requests = 0;                      // count mode
  double rate = 0;                           // total req/s; 0 = closed loop
  std::vector<std::pair<Op, int>> mix = {};  // op and weight
  bool hot = false;                          // l1: keys of the hot partition only
  int64_t preload_items = 0;                 // > 0: the preload phase
};

struct OpStats {
  Histogram latency;  // successful requests only
  uint64_t ok = 0;
  uint64_t misses = 0;  // GetItem without Item
  uint64_t items = 0;   // Query/Scan Count
  std::map<std::string, uint64_t> errors;

  void Merge(const OpStats& o) {
    latency.Merge(o.latency);
    ok += o.ok;
    misses += o.misses;
    items += o.items;
    for (const auto& [type, n] : o.errors) errors[type] += n;
  }
  uint64_t error_count() const {
    uint64_t n = 0;
    for (const auto& e : errors) n += e.second;
    return n;
  }
};

using PhaseStats = std::array<OpStats, kOpCount>;

struct PhaseResult {
  Phase phase;
  double seconds = 0;
  PhaseStats stats;
  std::optional<double> server_cpu_seconds;
  double client_cpu_seconds = 0;
};

std::optional<double> ProcessCpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 0; i < 13 && fields >> field; ++i) {  // field 3 (state) is i == 0
    if (i == 11) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 12) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double OwnCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

// ---------------------------------------------------------------------------------------------
// The load: workers (threads), connections, and the runner that drives phases

struct Request {
  Op op = Op::kGetItem;
  std::string body;
  int64_t chunk = -1;  // preload: the chunk this request writes (re-sent after an I/O error)
};

class Runner;

struct Worker {
  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(ioc);
  std::thread thread;
  PhaseStats stats;  // the current phase; touched only on this worker's thread while it runs
};

class Connection {
 public:
  Connection(Runner& runner, Worker& worker, int index, uint64_t seed)
      : runner_(runner),
        worker_(worker),
        index_(index),
        stream_(worker.ioc),
        timer_(worker.ioc),
        rng_(seed) {}

  void StartPhase();  // posted to the worker by the runner

 private:
  void Connect();
  void OnConnect(beast::error_code ec);
  void Next();
  void Send(Request request, Clock::time_point intended);
  void OnWrite(beast::error_code ec, size_t bytes);
  void OnRead(beast::error_code ec, size_t bytes);
  void OnIoError(std::string_view what, beast::error_code ec);
  bool Generate(Request* request);
  void FinishPhase();

  Runner& runner_;
  Worker& worker_;
  int index_;
  beast::tcp_stream stream_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  std::string wire_;
  Request current_;
  Clock::time_point intended_;
  Clock::time_point next_due_;
  Clock::duration interval_{};
  bool connected_ = false;
  int connect_failures_ = 0;
  std::deque<Request> pending_;  // preload retries and PutItem fallbacks, sent first
  std::string scan_start_;       // ExclusiveStartKey for this connection's next Scan page
  Rng rng_;
};

class Runner {
 public:
  Runner(const Options& o, tcp::endpoint endpoint)
      : o_(o),
        endpoint_(endpoint),
        bodies_(o),
        items_(static_cast<uint64_t>(o.keyspace), o.keys == "zipf", o.zipf_theta),
        partitions_(static_cast<uint64_t>((o.keyspace + o.items_per_pk - 1) / o.items_per_pk),
                    o.keys == "zipf", o.zipf_theta),
        workers_(static_cast<size_t>(o.threads)) {
    for (size_t i = 0; i < kOpCount; ++i) heads_[i] = RequestHead(o, static_cast<Op>(i));
    Rng seeds(o.seed);
    for (int i = 0; i < o.connections; ++i) {
      connections_.push_back(
          std::make_unique<Connection>(*this, workers_[i % o.threads], i, seeds.Next()));
    }
    for (Worker& w : workers_) w.thread = std::thread([&w] { w.ioc.run(); });
  }

  ~Runner() {
    for (Worker& w : workers_) {
      asio::post(w.ioc, [&w] { w.guard.reset(); });
      // Closes sockets and cancels anything left (a connection stuck past its timeout).
      w.ioc.stop();
    }
    for (Worker& w : workers_) w.thread.join();
  }

  PhaseResult RunPhase(const Phase& phase);

  // For connections (any worker thread).
  const Options& options() const { return o_; }
  const tcp::endpoint& endpoint() const { return endpoint_; }
  const Bodies& bodies() const { return bodies_; }
  const KeyChooser& items() const { return items_; }
  const KeyChooser& partitions() const { return partitions_; }
  const Phase& phase() const { return phase_; }
  const std::string& head(Op op) const { return heads_[static_cast<size_t>(op)]; }
  Clock::time_point phase_start() const { return phase_start_; }
  Clock::time_point phase_end() const { return phase_end_; }
  bool ClaimRequest() { return remaining_.fetch_sub(1, std::memory_order_relaxed) > 0; }
  int64_t ClaimChunk() { return next_chunk_.fetch_add(1, std::memory_order_relaxed); }
  int64_t ClaimNewKey() { return next_new_key_.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<bool>& batch_unsupported() { return batch_unsupported_; }
  void CountResponse(bool error) {
    completed_.fetch_add(1, std::memory_order_relaxed);
    if (error) errors_.fetch_add(1, std::memory_order_relaxed);
  }
  void ConnectionDone() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--active_ == 0) cv_.notify_all();
  }

 private:
  void PrintProgress(const Phase& phase, double elapsed, double rate, bool last);

  const Options& o_;
  tcp::endpoint endpoint_;
  Bodies bodies_;
  KeyChooser items_;
  KeyChooser partitions_;
  std::array<std::string, kOpCount> heads_;
  std::vector<Worker> workers_;
  std::vector<std::unique_ptr<Connection>> connections_;

  // Written by RunPhase before the connections are started; read-only while they run.
  Phase phase_;
  Clock::time_point phase_start_;
  Clock::time_point phase_end_;

  std::atomic<int64_t> remaining_{0};
  std::atomic<int64_t> next_chunk_{0};
  std::atomic<int64_t> next_new_key_{0};
  std::atomic<bool> batch_unsupported_{false};
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> errors_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  int active_ = 0;  // guarded by mu_
};

void Connection::StartPhase() {
  const Phase& phase = runner_.phase();
  scan_start_.clear();
  if (phase.rate > 0) {
    interval_ = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(runner_.options().connections / phase.rate));
    // Staggered so that the connections do not fire together.
    next_due_ = runner_.phase_start() + interval_ * index_ / runner_.options().connections;
  }
  connected_ ? Next() : Connect();
}

void Connection::Connect() {
  beast::error_code ignored;
  stream_.socket().close(ignored);
  stream_.expires_after(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(runner_.options().timeout)));
  stream_.async_connect(runner_.endpoint(), [this](beast::error_code ec) { OnConnect(ec); });
}

void Connection::OnConnect(beast::error_code ec) {
  if (ec) {
    const Phase& phase = runner_.phase();
    const Op op = phase.mix.empty() ? Op::kBatchWriteItem : phase.mix.front().first;
    worker_.stats[static_cast<size_t>(op)].errors["connect: " + ec.message()]++;
    runner_.CountResponse(true);
    // Give up on this phase after a while rather than spin on a dead server.
    if (++connect_failures_ >= 20 || Clock::now() >= runner_.phase_end()) return FinishPhase();
    timer_.expires_after(std::chrono::milliseconds(100));
    timer_.async_wait([this](beast::error_code timer_ec) {
      if (!timer_ec) Connect();
    });
    return;
  }
  connect_failures_ = 0;
  connected_ = true;
  beast::error_code ignored;
  stream_.socket().set_option(tcp::no_delay(true), ignored);
  Next();
}

void Connection::Next() {
  const Phase& phase = runner_.phase();
  if (!pending_.empty()) {
    Request request = std::move(pending_.front());
    pending_.pop_front();
    return Send(std::move(request), Clock::now());
  }
  const Clock::time_point now = Clock::now();
  Clock::time_point intended = now;
  if (phase.requests > 0) {
    if (!runner_.ClaimRequest()) return FinishPhase();
  } else if (phase.preload_items == 0 &&
             (phase.rate > 0 ? next_due_ : now) >= runner_.phase_end()) {
    return FinishPhase();
  }
  if (phase.rate > 0) {
    intended = next_due_;
    next_due_ += interval_;
  }
  Request request;
  if (!Generate(&request)) return FinishPhase();
  if (intended > now) {
    current_ = std::move(request);
    timer_.expires_at(intended);
    timer_.async_wait([this, intended](beast::error_code ec) {
      if (!ec) Send(std::move(current_), intended);
    });
    return;
  }
  Send(std::move(request), intended);
}

bool Connection::Generate(Request* request) {
  const Phase& phase = runner_.phase();
  const Bodies& bodies = runner_.bodies();
  if (phase.preload_items > 0) {
    const int64_t chunk = runner_.ClaimChunk();
    const int64_t first = chunk * kBatchSize;
    if (first >= phase.preload_items) return false;
    const int64_t count = std::min<int64_t>(kBatchSize, phase.preload_items - first);
    if (runner_.batch_unsupported().load(std::memory_order_relaxed)) {
      for (int64_t i = first; i < first + count; ++i) {
        pending_.push_back({Op::kPutItem, bodies.PutItem(bodies.ExistingPk(i), i), chunk});
      }
      *request = std::move(pending_.front());
      pending_.pop_front();
    } else {
      *request = {Op::kBatchWriteItem, bodies.BatchWrite(first, count, true), chunk};
    }
    return true;
  }

  int total = 0;
  for (const auto& [op, weight] : phase.mix) total += weight;
  int pick = static_cast<int>(rng_.Below(static_cast<uint64_t>(total)));
  Op op = phase.mix.front().first;
  for (const auto& [candidate, weight] : phase.mix) {
    if (pick < weight) {
      op = candidate;
      break;
    }
    pick -= weight;
  }
  const int ipp = runner_.options().items_per_pk;
  request->op = op;
  switch (op) {
    case Op::kGetItem:
      request->body = phase.hot ? bodies.GetItemIn(runner_.options().hot_pk,
                                                   static_cast<int64_t>(rng_.Below(ipp)))
                                : bodies.GetItem(static_cast<int64_t>(runner_.items().Next(rng_)));
      break;
    case Op::kPutItem: {
      const int64_t item = runner_.ClaimNewKey();
      request->body = bodies.PutItem(bodies.NewPk(item), item);
      break;
    }
    case Op::kUpdateItem:
      request->body =
          bodies.UpdateItem(static_cast<int64_t>(runner_.items().Next(rng_)), rng_.Next());
      break;
    case Op::kQuery:
      if (!phase.hot && rng_.Uniform01() < runner_.options().shape.gsi_query_fraction) {
        request->body = bodies.QueryGsi(rng_.Below(kGsi1Pks));
        break;
      }
      request->body =
          bodies.Query(phase.hot ? runner_.options().hot_pk
                                 : static_cast<int64_t>(runner_.partitions().Next(rng_)));
      break;
    case Op::kScan:
      request->body = bodies.Scan(scan_start_);
      break;
    case Op::kBatchWriteItem: {
      int64_t first = runner_.ClaimNewKey();
      for (int i = 1; i < kBatchSize; ++i) runner_.ClaimNewKey();
      request->body = bodies.BatchWrite(first, kBatchSize, false);
      break;
    }
    case Op::kTransactWriteItems:
      request->body = bodies.TransactPut(runner_.ClaimNewKey());
      break;
    case Op::kCreateTable:
    case Op::kDescribeTable:
    case Op::kUpdateTimeToLive:
      request->body = bodies.DescribeTable();
      break;
  }
  return true;
}

void Connection::Send(Request request, Clock::time_point intended) {
  current_ = std::move(request);
  intended_ = intended;
  if (runner_.options().sign_key.empty()) {
    wire_ = runner_.head(current_.op);  // into wire_'s capacity: no allocation
  } else {
    wire_ = SignedRequestHead(runner_.options(), current_.op, current_.body);
  }
  wire_ += std::to_string(current_.body.size());
  wire_ += "\r\n\r\n";
  wire_ += current_.body;
  stream_.expires_after(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(runner_.options().timeout)));
  asio::async_write(stream_, asio::buffer(wire_),
                    [this](beast::error_code ec, size_t bytes) { OnWrite(ec, bytes); });
}

void Connection::OnWrite(beast::error_code ec, size_t /*bytes*/) {
  if (ec) return OnIoError("write", ec);
  parser_.emplace();
  parser_->body_limit(64 * 1024 * 1024);
  http::async_read(stream_, buffer_, *parser_,
                   [this](beast::error_code read_ec, size_t bytes) { OnRead(read_ec, bytes); });
}

void Connection::OnRead(beast::error_code ec, size_t /*bytes*/) {
  if (ec) return OnIoError("read", ec);
  const Clock::time_point now = Clock::now();
  const http::response<http::string_body>& response = parser_->get();
  const int status = static_cast<int>(response.result_int());
  const std::string& body = response.body();
  OpStats& stats = worker_.stats[static_cast<size_t>(current_.op)];
  bool error = false;
  if (status == 200) {
    ++stats.ok;
    stats.latency.Record(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - intended_).count()));
    switch (current_.op) {
      case Op::kGetItem:
        if (body.find("\"Item\"") == std::string::npos) ++stats.misses;
        break;
      case Op::kQuery:
      case Op::kScan:
        if (auto count = JsonMember(body, "Count")) {
          stats.items += std::strtoull(std::string(*count).c_str(), nullptr, 10);
        }
        if (current_.op == Op::kScan) {
          std::optional<std::string_view> last = JsonMember(body, "LastEvaluatedKey");
          scan_start_ = last ? std::string(*last) : std::string();  // empty: start over
        }
        break;
      case Op::kBatchWriteItem:
        // Unprocessed items of the preload are sent again; elsewhere they are only counted.
        if (auto unprocessed = JsonMember(body, "UnprocessedItems");
            unprocessed && !EmptyJsonObject(*unprocessed)) {
          stats.errors["UnprocessedItems (200)"]++;
          if (runner_.phase().preload_items > 0) {
            pending_.push_back({Op::kBatchWriteItem,
                                R"({"RequestItems":)" + std::string(*unprocessed) + "}",
                                current_.chunk});
          }
        }
        break;
      default:
        break;
    }
  } else {
    error = true;
    std::string type = ErrorType(status, body);
    stats.errors[type]++;
    if (current_.op == Op::kBatchWriteItem && runner_.phase().preload_items > 0 &&
        type.rfind("UnknownOperation", 0) == 0) {
      // A server without BatchWriteItem: preload this chunk (and the rest) with PutItem.
      runner_.batch_unsupported().store(true, std::memory_order_relaxed);
      const int64_t first = current_.chunk * kBatchSize;
      const int64_t last = std::min(first + kBatchSize, runner_.phase().preload_items);
      const Bodies& bodies = runner_.bodies();
      for (int64_t i = first; i < last; ++i) {
        pending_.push_back({Op::kPutItem, bodies.PutItem(bodies.ExistingPk(i), i), current_.chunk});
      }
    }
  }
  runner_.CountResponse(error);
  if (!response.keep_alive()) {
    connected_ = false;
    return Connect();
  }
  Next();
}

void Connection::OnIoError(std::string_view what, beast::error_code ec) {
  OpStats& stats = worker_.stats[static_cast<size_t>(current_.op)];
  stats.errors[std::string(what) + ": " + ec.message()]++;
  runner_.CountResponse(true);
  if (runner_.phase().preload_items > 0) pending_.push_front(std::move(current_));  // retry
  connected_ = false;
  timer_.expires_after(std::chrono::milliseconds(10));
  timer_.async_wait([this](beast::error_code timer_ec) {
    if (!timer_ec) Connect();
  });
}

void Connection::FinishPhase() { runner_.ConnectionDone(); }

void Runner::PrintProgress(const Phase& phase, double elapsed, double rate, bool last) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (!o_.progress) return;
  if (last) {
    if (tty) std::fputs("\r\033[K", stderr);
    return;
  }
  std::fprintf(stderr, "%s[%s] %6.1f s  %9.0f req/s  total %" PRIu64 "  errors %" PRIu64 "%s",
               tty ? "\r\033[K" : "", phase.name.c_str(), elapsed, rate,
               completed_.load(std::memory_order_relaxed), errors_.load(std::memory_order_relaxed),
               tty ? "" : "\n");
  std::fflush(stderr);
}

PhaseResult Runner::RunPhase(const Phase& phase) {
  phase_ = phase;
  phase_start_ = Clock::now();
  phase_end_ = phase.seconds > 0 && phase.requests == 0 && phase.preload_items == 0
                   ? phase_start_ + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(phase.seconds))
                   : Clock::time_point::max();
  remaining_ = phase.requests;
  next_chunk_ = 0;
  completed_ = 0;
  errors_ = 0;
  for (Worker& w : workers_) w.stats = PhaseStats{};
  const std::optional<double> server_cpu_before =
      o_.server_pid > 0 ? ProcessCpuSeconds(o_.server_pid) : std::nullopt;
  const double client_cpu_before = OwnCpuSeconds();
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_ = static_cast<int>(connections_.size());
  }
  for (size_t i = 0; i < connections_.size(); ++i) {
    Connection* c = connections_[i].get();
    asio::post(workers_[i % workers_.size()].ioc, [c] { c->StartPhase(); });
  }

  uint64_t last_completed = 0;
  Clock::time_point last_tick = phase_start_;
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return active_ == 0; })) {
      const Clock::time_point now = Clock::now();
      const uint64_t completed = completed_.load(std::memory_order_relaxed);
      const double tick = std::chrono::duration<double>(now - last_tick).count();
      PrintProgress(phase, std::chrono::duration<double>(now - phase_start_).count(),
                    static_cast<double>(completed - last_completed) / tick, false);
      last_completed = completed;
      last_tick = now;
    }
  }
  PrintProgress(phase, 0, 0, true);

  PhaseResult result;
  result.phase = phase;
  result.seconds = std::chrono::duration<double>(Clock::now() - phase_start_).count();
  if (server_cpu_before) {
    if (std::optional<double> after = ProcessCpuSeconds(o_.server_pid)) {
      result.server_cpu_seconds = *after - *server_cpu_before;
    }
  }
  result.client_cpu_seconds = OwnCpuSeconds() - client_cpu_before;
  // Every connection has reported done under mu_, so the workers' stats are quiescent.
  for (Worker& w : workers_) {
    for (size_t i = 0; i < kOpCount; ++i) result.stats[i].Merge(w.stats[i]);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Table setup (blocking, one short connection per call)

struct Reply {
  int status = 0;
  std::string body;
  std::string io_error;
};

Reply Call(const Options& o, const tcp::endpoint& endpoint, Op op, const std::string& body) {
  Reply reply;
  try {
    asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(10));
    stream.connect(endpoint);
    std::string wire =
        HeadFor(o, op, body, RequestHead(o, op)) + std::to_string(body.size()) + "\r\n\r\n" + body;
    asio::write(stream, asio::buffer(wire));
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response);
    reply.status = static_cast<int>(response.result_int());
    reply.body = std::move(response.body());
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  } catch (const std::exception& e) {
    reply.io_error = e.what();
  }
  return reply;
}

// UpdateTimeToLive on the shape's attribute. A server without it (dynalite) or one that refuses
// it is reported and the run goes on: the items still carry the attribute.
void EnableTimeToLive(const Options& o, const tcp::endpoint& endpoint, const Bodies& bodies) {
  Reply reply = Call(o, endpoint, Op::kUpdateTimeToLive, bodies.UpdateTimeToLive());
  if (reply.io_error.empty() && reply.status == 200) {
    std::printf("loadgen: Time to Live enabled on %s.%s\n", o.table.c_str(),
                o.shape.ttl_attribute.c_str());
    return;
  }
  const std::string why =
      reply.io_error.empty() ? ErrorType(reply.status, reply.body) : reply.io_error;
  std::printf(
      "loadgen: UpdateTimeToLive failed (%s): items carry %s, but this server may not expire "
      "them; continuing\n",
      why.c_str(), o.shape.ttl_attribute.c_str());
}

// CreateTable (an existing table is reused), then DescribeTable until the table and all its
// indexes are ACTIVE, then UpdateTimeToLive with --ttl. A server that answers without a
// TableStatus (the floor server) counts as ready. Returns false on failure.
bool CreateTable(const Options& o, const tcp::endpoint& endpoint, const Bodies& bodies) {
  Reply created = Call(o, endpoint, Op::kCreateTable, bodies.CreateTable());
  if (!created.io_error.empty()) {
    std::fprintf(stderr, "loadgen: CreateTable: %s\n", created.io_error.c_str());
    return false;
  }
  if (created.status != 200) {
    const std::string type = ErrorType(created.status, created.body);
    if (type.rfind("ResourceInUseException", 0) != 0) {
      std::fprintf(stderr, "loadgen: CreateTable failed: %s\n", created.body.c_str());
      return false;
    }
    std::fprintf(stderr, "loadgen: table %s exists; reusing it\n", o.table.c_str());
  }
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    Reply described = Call(o, endpoint, Op::kDescribeTable, bodies.DescribeTable());
    if (described.io_error.empty() && described.status == 200 &&
        TableAndIndexesActive(described.body)) {
      if (!o.shape.ttl_attribute.empty()) EnableTimeToLive(o, endpoint, bodies);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fprintf(stderr, "loadgen: table %s (or an index) did not become ACTIVE within 60 s\n",
               o.table.c_str());
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reports

double Micros(uint64_t nanos) { return static_cast<double>(nanos) / 1000.0; }

std::string Ms(uint64_t nanos) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", static_cast<double>(nanos) / 1e6);
  return text;
}

struct Summary {
  uint64_t ok = 0;
  uint64_t errors = 0;
  double rps = 0;                               // successful responses per second
  double responses_rps = 0;                     // all responses (errors too) per second
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;  // ns
};

Summary Summarise(const OpStats& s, double seconds) {
  Summary sum;
  sum.ok = s.ok;
  sum.errors = s.error_count();
  sum.rps = seconds > 0 ? static_cast<double>(s.ok) / seconds : 0;
  sum.responses_rps = seconds > 0 ? static_cast<double>(s.ok + sum.errors) / seconds : 0;
  sum.p50 = s.latency.Percentile(50);
  sum.p90 = s.latency.Percentile(90);
  sum.p99 = s.latency.Percentile(99);
  sum.max = s.latency.max();
  return sum;
}

void PrintRow(const std::string& name, const Summary& s) {
  std::printf("  %-19s %9" PRIu64 " %10.1f %9s %9s %9s %9s %8" PRIu64 "\n", name.c_str(), s.ok,
              s.rps, Ms(s.p50).c_str(), Ms(s.p90).c_str(), Ms(s.p99).c_str(), Ms(s.max).c_str(),
              s.errors);
}

void PrintResultLine(const Options& o, const PhaseResult& r, const std::string& op,
                     const Summary& s, uint64_t requests_for_cpu) {
  std::printf("RESULT label=%s phase=%s op=%s ok=%" PRIu64 " errors=%" PRIu64
              " seconds=%.3f rps=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f",
              o.label.empty() ? "-" : o.label.c_str(), r.phase.name.c_str(), op.c_str(), s.ok,
              s.errors, r.seconds, s.rps, Micros(s.p50), Micros(s.p90), Micros(s.p99),
              Micros(s.max));
  if (r.server_cpu_seconds && requests_for_cpu > 0) {
    std::printf(" server_cpu_us_per_req=%.2f server_cores=%.2f",
                *r.server_cpu_seconds * 1e6 / static_cast<double>(requests_for_cpu),
                *r.server_cpu_seconds / r.seconds);
  }
  if (requests_for_cpu > 0) {
    std::printf(" client_cpu_us_per_req=%.2f",
                r.client_cpu_seconds * 1e6 / static_cast<double>(requests_for_cpu));
  }
  std::printf("\n");
}

// Prints the phase's table and RESULT lines; returns the all-ops summary.
Summary Report(const Options& o, const PhaseResult& r) {
  const Phase& p = r.phase;
  std::string mode = p.rate > 0 ? "open loop at " + std::to_string(static_cast<int64_t>(p.rate)) +
                                      " req/s (latency from the scheduled send time)"
                                : "closed loop";
  std::printf("\nphase %s: %.2f s, %d connections, %d client threads, %s\n", p.name.c_str(),
              r.seconds, o.connections, o.threads, mode.c_str());
  std::printf("  %-19s %9s %10s %9s %9s %9s %9s %8s\n", "op", "ok", "req/s", "p50 ms", "p90 ms",
              "p99 ms", "max ms", "errors");
  OpStats all;
  int ops_used = 0;
  for (size_t i = 0; i < kOpCount; ++i) {
    const OpStats& s = r.stats[i];
    if (s.ok == 0 && s.error_count() == 0) continue;
    ++ops_used;
    all.Merge(s);
    PrintRow(std::string(kOpNames[i]), Summarise(s, r.seconds));
  }
  const Summary total = Summarise(all, r.seconds);
  if (ops_used > 1) PrintRow("all", total);
  const uint64_t responses = all.ok + all.error_count();
  if (r.server_cpu_seconds && responses > 0) {
    std::printf("  server cpu: %.1f us/request (%.2f cores busy)\n",
                *r.server_cpu_seconds * 1e6 / static_cast<double>(responses),
                *r.server_cpu_seconds / r.seconds);
  }
  if (responses > 0) {
    std::printf("  client cpu: %.1f us/request (%.2f cores busy)\n",
                r.client_cpu_seconds * 1e6 / static_cast<double>(responses),
                r.client_cpu_seconds / r.seconds);
  }
  for (size_t i = 0; i < kOpCount; ++i) {
    const OpStats& s = r.stats[i];
    if (i == static_cast<size_t>(Op::kGetItem) && s.misses > 0) {
      std::printf("  GetItem: %" PRIu64 " of %" PRIu64 " found no item\n", s.misses, s.ok);
    }
    if ((i == static_cast<size_t>(Op::kQuery) || i == static_cast<size_t>(Op::kScan)) && s.ok > 0) {
      std::printf("  %s: %.1f items per response\n", std::string(kOpNames[i]).c_str(),
                  static_cast<double>(s.items) / static_cast<double>(s.ok));
    }
    for (const auto& [type, n] : s.errors) {
      std::printf("  error %s: %s x %" PRIu64 "\n", std::string(kOpNames[i]).c_str(), type.c_str(),
                  n);
    }
    if (s.ok == 0 && s.error_count() > 0) {
      std::printf("  note: no %s succeeded (does the server implement it? is it up?)\n",
                  std::string(kOpNames[i]).c_str());
    }
  }
  for (size_t i = 0; i < kOpCount; ++i) {
    const OpStats& s = r.stats[i];
    if (s.ok == 0 && s.error_count() == 0) continue;
    PrintResultLine(o, r, std::string(kOpNames[i]), Summarise(s, r.seconds),
                    ops_used == 1 ? responses : 0);
  }
  if (ops_used > 1) PrintResultLine(o, r, "all", total, responses);
  std::fflush(stdout);
  return total;
}

std::vector<std::pair<Op, int>> L2Mix(const Options& o) {
  const Op write = o.l2_writes == "transact" ? Op::kTransactWriteItems : Op::kPutItem;
  return {{Op::kGetItem, 40}, {Op::kQuery, 30}, {write, 20}, {Op::kUpdateItem, 10}};
}

int Main(int argc, char** argv) {
  const Options o = ParseFlags(argc, argv);

  tcp::endpoint endpoint;
  try {
    asio::io_context ioc;
    tcp::resolver resolver(ioc);
    endpoint = resolver.resolve(o.host, std::to_string(o.port)).begin()->endpoint();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loadgen: cannot resolve %s: %s\n", o.host.c_str(), e.what());
    return 1;
  }

  std::printf(
      "loadgen: %s:%d workload=%s connections=%d threads=%d item-size=%d keys=%s "
      "keyspace=%" PRId64 " items-per-pk=%d seed=%" PRIu64 " table=%s shape=%s\n",
      o.host.c_str(), o.port, o.workload.c_str(), o.connections, o.threads, o.item_size,
      o.keys.c_str(), o.keyspace, o.items_per_pk, o.seed, o.table.c_str(),
      o.shape.Describe().c_str());
  std::fflush(stdout);

  Runner runner(o, endpoint);
  if (o.create && !CreateTable(o, endpoint, runner.bodies())) return 1;

  if (o.preload > 0) {
    Phase preload{.name = "preload", .preload_items = o.preload};
    PhaseResult r = runner.RunPhase(preload);
    const OpStats& batch = r.stats[static_cast<size_t>(Op::kBatchWriteItem)];
    std::printf("preload: %" PRId64 " items in %.2f s (%.0f items/s) with %s\n", o.preload,
                r.seconds, static_cast<double>(o.preload) / r.seconds,
                batch.ok > 0 ? "BatchWriteItem" : "PutItem (no BatchWriteItem)");
    for (size_t i = 0; i < kOpCount; ++i) {
      for (const auto& [type, n] : r.stats[i].errors) {
        std::printf("  preload error %s: %s x %" PRIu64 "\n", std::string(kOpNames[i]).c_str(),
                    type.c_str(), n);
      }
    }
  }
  if (o.workload == "none") return 0;

  auto run = [&](Phase phase) {
    if (o.warmup > 0 && phase.requests == 0) {
      Phase warmup = phase;
      warmup.name = phase.name + "-warmup";
      warmup.report = false;
      warmup.seconds = o.warmup;
      runner.RunPhase(warmup);
    }
    return Report(o, runner.RunPhase(phase));
  };

  static const std::map<std::string, Op> kSingle = {{"get", Op::kGetItem},
                                                    {"put", Op::kPutItem},
                                                    {"update", Op::kUpdateItem},
                                                    {"query", Op::kQuery},
                                                    {"scan", Op::kScan},
                                                    {"batchwrite", Op::kBatchWriteItem},
                                                    {"transact", Op::kTransactWriteItems}};
  if (auto single = kSingle.find(o.workload); single != kSingle.end()) {
    run({.name = o.workload,
         .seconds = o.duration,
         .requests = o.requests,
         .rate = o.rate,
         .mix = {{single->second, 1}}});
  } else if (o.workload == "l1") {
    // Latency baseline: one hot partition key, GetItem then Query.
    const int64_t n = o.requests > 0 ? o.requests : 1000;
    if (o.warmup > 0) {
      runner.RunPhase({.name = "l1-warmup",
                       .report = false,
                       .requests = 100,
                       .mix = {{Op::kGetItem, 1}, {Op::kQuery, 1}},
                       .hot = true});
    }
    run({.name = "l1-get", .requests = n, .rate = o.rate, .mix = {{Op::kGetItem, 1}}, .hot = true});
    run({.name = "l1-query", .requests = n, .rate = o.rate, .mix = {{Op::kQuery, 1}}, .hot = true});
  } else if (o.workload == "l2") {
    run({.name = "l2",
         .seconds = o.duration,
         .requests = o.requests,
         .rate = o.rate,
         .mix = L2Mix(o)});
  } else if (o.workload == "l3") {
    double base = o.rate;
    if (base <= 0) {
      Summary calibration = run({.name = "l3-calibrate", .seconds = o.calibrate, .mix = L2Mix(o)});
      // Every response counts: an op the server rejects still took a request slot.
      base = std::max(1.0, calibration.responses_rps / 4);
      std::printf("l3: base rate %.0f req/s (1/4 of the closed-loop L2 rate)\n", base);
    }
    const Phase steady{.name = "l3-base", .seconds = o.duration, .rate = base, .mix = L2Mix(o)};
    Phase burst = steady;
    burst.name = "l3-burst";
    burst.rate = base * o.burst_factor;
    Phase after = steady;
    after.name = "l3-after";
    const Summary before_s = run(steady);
    const Summary burst_s = Report(o, runner.RunPhase(burst));
    const Summary after_s = Report(o, runner.RunPhase(after));
    auto ratio = [](uint64_t a, uint64_t b) {
      return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
    };
    std::printf("\nl3 latency change (burst at %.1fx the base rate of %.0f req/s):\n",
                o.burst_factor, base);
    std::printf("  %-8s %10s %9s %9s %9s\n", "phase", "req/s", "p50 ms", "p99 ms", "p99 x");
    std::printf("  %-8s %10.1f %9s %9s %9.2f\n", "base", before_s.rps, Ms(before_s.p50).c_str(),
                Ms(before_s.p99).c_str(), 1.0);
    std::printf("  %-8s %10.1f %9s %9s %9.2f\n", "burst", burst_s.rps, Ms(burst_s.p50).c_str(),
                Ms(burst_s.p99).c_str(), ratio(burst_s.p99, before_s.p99));
    std::printf("  %-8s %10.1f %9s %9s %9.2f\n", "after", after_s.rps, Ms(after_s.p50).c_str(),
                Ms(after_s.p99).c_str(), ratio(after_s.p99, before_s.p99));
    std::printf(
        "RESULT label=%s phase=l3 op=change p50_burst_x=%.2f p99_burst_x=%.2f "
        "p99_after_x=%.2f\n",
        o.label.empty() ? "-" : o.label.c_str(), ratio(burst_s.p50, before_s.p50),
        ratio(burst_s.p99, before_s.p99), ratio(after_s.p99, before_s.p99));
  }
  return 0;
}

}  // namespace
}  // namespace ddb::bench

int main(int argc, char** argv) { return ddb::bench::Main(argc, argv); }
