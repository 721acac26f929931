// ddb dump (a parallel Scan written as DynamoDB JSON lines) and ddb load (lines read from
// stdin, BatchWriteItem of 25 from several threads, unprocessed items and throttled batches
// retried with exponential backoff).
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/json_lines.h"
#include "cli/json_text.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "util/json_escape.h"

namespace ddb::cli {
namespace {

constexpr size_t kBatchItems = 25;
constexpr int kMaxAttempts = 20;

// The first failure of several threads: its exit code and message; later ones are dropped.
class FirstFailure {
 public:
  void Set(int exit_code, std::string message) {
    std::lock_guard lock(mu_);
    if (exit_code_ != kExitOk) return;
    exit_code_ = exit_code;
    message_ = std::move(message);
    failed_ = true;
  }
  bool failed() const { return failed_.load(); }
  int Report() {
    std::lock_guard lock(mu_);
    if (exit_code_ != kExitOk) std::fprintf(stderr, "%s\n", message_.c_str());
    return exit_code_;
  }

 private:
  std::mutex mu_;
  int exit_code_ = kExitOk;
  std::string message_;
  std::atomic<bool> failed_{false};
};

// Whether a failed call is worth retrying: throttling and an overloaded or failing server.
bool Retryable(const Response& r) {
  if (r.status >= 500) return true;
  const std::string type = ErrorType(r.body);
  return type == "ProvisionedThroughputExceededException" || type == "ThrottlingException" ||
         type == "RequestLimitExceeded" || type == "LimitExceededException";
}

void Backoff(int attempt) {
  const int ms = std::min(1000, 10 << std::min(attempt, 7));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// ---------------------------------------------------------------- dump

uint64_t ItemCount(Transport& transport, const std::string& table, int* exit_code) {
  std::string response;
  if (!CallOrReport(transport, "DescribeTable", "{\"TableName\":" + util::JsonString(table) + "}",
                    &response, exit_code)) {
    return UINT64_MAX;
  }
  simdjson::dom::parser parser;
  uint64_t count = 0;
  if (parser.parse(response)["Table"]["ItemCount"].get(count)) return 0;
  return count;
}

void DumpSegment(const Invocation& inv, Transport& transport, int segment, int segments,
                 std::mutex* out_mu, Progress* progress, FirstFailure* failure) {
  simdjson::dom::parser parser;
  std::string start_key;
  std::string lines;
  while (!failure->failed()) {
    std::string body = "{\"TableName\":" + util::JsonString(inv.args[0]) +
                       ",\"Segment\":" + std::to_string(segment) +
                       ",\"TotalSegments\":" + std::to_string(segments);
    if (inv.consistent) body += ",\"ConsistentRead\":true";
    if (!start_key.empty()) body += ",\"ExclusiveStartKey\":" + start_key;
    body += "}";
    Result<Response> r = Response{};
    for (int attempt = 0;; ++attempt) {
      r = transport.Call("Scan", body);
      if (!r.ok() || r.value().status == 200 || !Retryable(r.value()) ||
          attempt + 1 >= kMaxAttempts) {
        break;
      }
      Backoff(attempt);
    }
    if (!r.ok()) return failure->Set(kExitIo, "ddb: " + r.error().message());
    if (r.value().status != 200) {
      return failure->Set(kExitServiceError, ErrorText(r.value().status, r.value().body));
    }
    simdjson::dom::element page;
    simdjson::dom::array items;
    if (parser.parse(r.value().body).get(page) || page["Items"].get(items)) {
      return failure->Set(kExitIo, "ddb: Scan: unexpected answer");
    }
    lines.clear();
    uint64_t n = 0;
    for (simdjson::dom::element item : items) {
      lines += LineOfItem(item);
      ++n;
    }
    {
      std::lock_guard lock(*out_mu);
      if (std::fwrite(lines.data(), 1, lines.size(), stdout) != lines.size()) {
        return failure->Set(kExitIo, "ddb: cannot write the output");
      }
    }
    progress->Add(n, n);
    simdjson::dom::element lek;
    if (page["LastEvaluatedKey"].get(lek)) return;
    start_key = simdjson::to_string(lek);
  }
}

// ---------------------------------------------------------------- load

struct Batch {
  uint64_t first_line = 0;
  uint64_t last_line = 0;
  size_t items = 0;
  uint64_t bytes = 0;    // of the input, for the progress bar
  std::string requests;  // [{"PutRequest":{"Item":...}},...]
};

// A bounded queue of batches between the reader and the writers.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}
  // Waits for room; drops the batch once closed.
  void Push(Batch b) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return queue_.size() < capacity_ || closed_; });
    if (closed_) return;
    queue_.push_back(std::move(b));
    not_empty_.notify_one();
  }
  // False when there is nothing more to write.
  bool Pop(Batch* b) {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return !queue_.empty() || done_ || closed_; });
    if (queue_.empty() || closed_) return false;
    *b = std::move(queue_.front());
    queue_.pop_front();
    not_full_.notify_one();
    return true;
  }
  // No more batches: writers finish what is queued.
  void Finish() {
    std::lock_guard lock(mu_);
    done_ = true;
    not_empty_.notify_all();
  }
  // Stop now (a failure): everyone returns.
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<Batch> queue_;
  bool done_ = false;
  bool closed_ = false;
};

std::string Lines(const Batch& b) {
  return b.first_line == b.last_line
             ? "line " + std::to_string(b.first_line)
             : "lines " + std::to_string(b.first_line) + "-" + std::to_string(b.last_line);
}

// Writes one batch, retrying its unprocessed items and throttled attempts.
void WriteBatch(const std::string& table, Transport& transport, const Batch& batch,
                simdjson::dom::parser& parser, Progress* progress, FirstFailure* failure) {
  const std::string quoted = util::JsonString(table);
  std::string body = "{\"RequestItems\":{" + quoted + ":[" + batch.requests + "]}}";
  size_t pending = batch.items;
  for (int attempt = 0; attempt < kMaxAttempts && !failure->failed(); ++attempt) {
    Result<Response> r = transport.Call("BatchWriteItem", body);
    if (!r.ok()) return failure->Set(kExitIo, "ddb: " + r.error().message());
    if (r.value().status != 200) {
      if (Retryable(r.value())) {
        Backoff(attempt);
        continue;
      }
      return failure->Set(kExitServiceError,
                          ErrorText(r.value().status, r.value().body) + " (" + Lines(batch) + ")");
    }
    simdjson::dom::element doc;
    if (parser.parse(r.value().body).get(doc)) {
      return failure->Set(kExitIo, "ddb: BatchWriteItem: unexpected answer");
    }
    simdjson::dom::array unprocessed;
    size_t left = 0;
    if (!doc["UnprocessedItems"][table].get(unprocessed)) left = unprocessed.size();
    progress->Add(pending - left, left == 0 ? batch.bytes : 0);
    if (left == 0) return;
    pending = left;
    body = "{\"RequestItems\":{" + quoted + ":" + simdjson::to_string(unprocessed) + "}}";
    Backoff(attempt);
  }
  failure->Set(kExitServiceError,
               "ProvisionedThroughputExceededException: " + std::to_string(pending) +
                   " items still unprocessed after " + std::to_string(kMaxAttempts) +
                   " attempts (" + Lines(batch) + ")");
}

// Reads stdin into batches; stops at a read error or a bad line (setting the failure).
void ReadBatches(BatchQueue* queue, FirstFailure* failure) {
  simdjson::dom::parser parser;
  std::vector<char> buffer(1 << 20);
  std::string carry;  // an unfinished line from the previous read
  Batch batch;
  uint64_t line_no = 0;
  auto add_line = [&](std::string_view line) {
    ++line_no;
    batch.bytes += line.size() + 1;
    if (IsBlankLine(line)) return true;
    Result<std::string> item = ItemOfLine(parser, line);
    if (!item.ok()) {
      failure->Set(kExitIo,
                   "ddb: stdin line " + std::to_string(line_no) + ": " + item.error().message());
      return false;
    }
    if (batch.items == 0) batch.first_line = line_no;
    batch.last_line = line_no;
    if (batch.items > 0) batch.requests += ",";
    batch.requests += "{\"PutRequest\":{\"Item\":";
    batch.requests += item.value();
    batch.requests += "}}";
    if (++batch.items == kBatchItems) {
      queue->Push(std::move(batch));
      batch = Batch{};
    }
    return true;
  };
  while (!failure->failed()) {
    const size_t n = std::fread(buffer.data(), 1, buffer.size(), stdin);
    if (n == 0) break;
    std::string_view chunk(buffer.data(), n);
    size_t pos = 0;
    while (pos < chunk.size()) {
      const size_t nl = chunk.find('\n', pos);
      if (nl == std::string_view::npos) {
        carry.append(chunk.substr(pos));
        break;
      }
      bool ok = true;
      if (!carry.empty()) {
        carry.append(chunk.substr(pos, nl - pos));
        ok = add_line(carry);
        carry.clear();
      } else {
        ok = add_line(chunk.substr(pos, nl - pos));
      }
      if (!ok) return;
      pos = nl + 1;
    }
  }
  if (std::ferror(stdin)) return failure->Set(kExitIo, "ddb: cannot read stdin");
  if (!carry.empty() && !add_line(carry)) return;
  if (batch.items > 0 || batch.bytes > 0) queue->Push(std::move(batch));
}

}  // namespace

int RunDump(const Invocation& inv, Transport& transport) {
  int exit_code = kExitOk;
  const uint64_t total = ItemCount(transport, inv.args[0], &exit_code);
  if (exit_code != kExitOk) return exit_code;
  const int segments = inv.parallel > 0 ? inv.parallel : std::min(4, transport.Parallelism());
  Progress progress("dumped", total, !inv.quiet && StderrIsTerminal());
  FirstFailure failure;
  std::mutex out_mu;
  std::vector<std::thread> threads;
  for (int s = 0; s < segments; ++s) {
    threads.emplace_back(DumpSegment, std::cref(inv), std::ref(transport), s, segments, &out_mu,
                         &progress, &failure);
  }
  for (std::thread& t : threads) t.join();
  if (failure.failed()) return failure.Report();
  if (!inv.quiet) progress.Finish();
  return kExitOk;
}

int RunLoad(const Invocation& inv, Transport& transport) {
  // The table first: an empty input into a table that is not there is an error too.
  int exit_code = kExitOk;
  ItemCount(transport, inv.args[0], &exit_code);
  if (exit_code != kExitOk) return exit_code;
  struct stat st {};
  const uint64_t total = ::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)
                             ? static_cast<uint64_t>(st.st_size)
                             : 0;
  const int writers = inv.parallel > 0 ? inv.parallel : transport.Parallelism();
  Progress progress("loaded", total, !inv.quiet && StderrIsTerminal());
  FirstFailure failure;
  BatchQueue queue(static_cast<size_t>(writers) * 4);
  std::vector<std::thread> threads;
  const std::string table = inv.args[0];
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&] {
      simdjson::dom::parser parser;
      Batch batch;
      while (queue.Pop(&batch)) {
        if (batch.items == 0) {
          progress.Add(0, batch.bytes);  // blank lines only
          continue;
        }
        WriteBatch(table, transport, batch, parser, &progress, &failure);
        if (failure.failed()) queue.Close();
      }
    });
  }
  ReadBatches(&queue, &failure);
  if (failure.failed()) {
    queue.Close();
  } else {
    queue.Finish();
  }
  for (std::thread& t : threads) t.join();
  if (failure.failed()) {
    const int code = failure.Report();
    // Batches run in parallel: what landed before the failure is not a prefix of the input.
    std::fprintf(stderr, "ddb: %llu items were loaded before the failure\n",
                 static_cast<unsigned long long>(progress.items()));
    return code;
  }
  if (!inv.quiet) progress.Finish();
  return kExitOk;
}

}  // namespace ddb::cli
