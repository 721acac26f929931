#include "triggers/event_source_mappings.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ddb/stored_item.h"
#include "util/arn.h"
#include "util/uuid.h"

namespace ddb::triggers {

using protocol::EventSourceMapping;
using protocol::EventSourceMappingChange;

struct EventSourceMappings::Mapping {
  protocol::StoredMapping stored;  // positions kept here, guarded by mu_
  uint64_t order = 0;              // creation order, for List
  bool enabled = true;
  std::thread poller;
  std::atomic<bool> stop{false};
  std::mutex wait_mu;  // for the poller's interruptible waits
  std::condition_variable wake;
  // The poller's own: each shard's next iterator.
  std::map<std::string, std::string> iterators;
  // The poller's own: each shard's open tumbling window.
  std::map<std::string, Window> windows;
  std::atomic<uint64_t> invocations{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> retries{0};  // invocations of records already tried once
  std::atomic<int64_t> iterator_age_ms{0};

  EventSourceMapping& m() { return stored.mapping; }
  // Waits `d` or until stopped; false when stopped.
  bool Sleep(std::chrono::milliseconds d) {
    std::unique_lock lock(wait_mu);
    return !wake.wait_for(lock, d, [&] { return stop.load(); });
  }
};

namespace {

constexpr size_t kMaxMappings = 256;
// A batch stops growing past this many bytes of records (their SizeBytes): the event, with
// old and new images in JSON, stays within the service's 6 MB invocation payload. A page of
// GetRecords holds at most 1 MB, so a batch ends below 4 MB of records.
constexpr int64_t kMaxBatchItemBytes = 3 * 1024 * 1024;
// A window's state past this ends it early (isWindowTerminatedEarly), as in the service.
constexpr size_t kMaxWindowState = 1024 * 1024;

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "name", "123456789012:function:name", "arn:aws:lambda:r:a:function:name[:qualifier]" ->
// the function's name and its full ARN in the caller's Region and account.
struct FunctionRef {
  std::string name;
  std::string arn;
};

Result<FunctionRef> ResolveFunction(const RequestContext& ctx, const std::string& given) {
  std::string name = given;
  std::string region = ctx.region;
  std::string account = ctx.account_id;
  if (given.rfind("arn:", 0) == 0) {
    std::optional<util::ArnParts> arn = util::ParseArn(given);
    if (!arn || arn->service != "lambda" || arn->resource.rfind("function:", 0) != 0) {
      return Error::Validation("Invalid function name or ARN: " + given);
    }
    region = std::string(arn->region);
    account = std::string(arn->account);
    name = std::string(arn->resource.substr(9));
  } else if (const size_t at = given.find(":function:"); at != std::string::npos) {
    account = given.substr(0, at);
    name = given.substr(at + 10);
  }
  if (const size_t colon = name.find(':'); colon != std::string::npos) name.resize(colon);
  // A function's name: 1 to 64 letters, digits, hyphens and underscores (it goes into the
  // Invoke API's path).
  const bool named = std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
  });
  if (name.empty() || name.size() > 64 || !named) {
    return Error::Validation("Invalid function name or ARN: " + given);
  }
  return FunctionRef{name, util::Arn("lambda", region, account, "function:" + name)};
}

std::string FunctionNameOf(const std::string& arn) {
  const size_t at = arn.rfind(":function:");
  return at == std::string::npos ? arn : arn.substr(at + 10);
}

// The settings a Create or an Update may change (the rest are Create's alone).
void ApplySettings(const EventSourceMappingChange& c, EventSourceMapping* m) {
  if (c.batch_size) m->batch_size = *c.batch_size;
  if (c.maximum_batching_window_s) m->maximum_batching_window_s = *c.maximum_batching_window_s;
  if (c.parallelization_factor) m->parallelization_factor = *c.parallelization_factor;
  if (c.maximum_record_age_s) m->maximum_record_age_s = *c.maximum_record_age_s;
  if (c.maximum_retry_attempts) m->maximum_retry_attempts = *c.maximum_retry_attempts;
  if (c.bisect_batch_on_function_error) {
    m->bisect_batch_on_function_error = *c.bisect_batch_on_function_error;
  }
  if (c.tumbling_window_s) m->tumbling_window_s = *c.tumbling_window_s;
  if (c.report_batch_item_failures) m->report_batch_item_failures = *c.report_batch_item_failures;
  if (c.filter_patterns) m->filter_patterns = *c.filter_patterns;
  if (c.on_failure_destination) {
    if (c.on_failure_destination->empty()) {
      m->on_failure_destination.reset();
    } else {
      m->on_failure_destination = c.on_failure_destination;
    }
  }
}

// What this first version of the pollers does not do is refused rather than ignored: a
// mapping that accepted a filter and delivered everything would lie.
Status CheckSupported(const EventSourceMapping& m) {
  (void)m;
  return Status::Ok();
}

// An on-failure destination: an SQS queue, SNS topic or S3 bucket ARN, as the service takes
// for a stream's mapping; its records are kept as files of --lambda-failure-dir.
Status CheckDestination(const EventSourceMapping& m, const std::string& failure_dir) {
  if (!m.on_failure_destination) return Status::Ok();
  std::optional<util::ArnParts> arn = util::ParseArn(*m.on_failure_destination);
  if (!arn || (arn->service != "sqs" && arn->service != "sns" && arn->service != "s3") ||
      arn->resource.empty()) {
    return Error::Validation("Unsupported on-failure destination: " + *m.on_failure_destination +
                             " (an SQS queue, SNS topic or S3 bucket ARN)");
  }
  if (failure_dir.empty()) {
    return Error::Validation(
        "DestinationConfig needs somewhere to keep the failure records: start ddb-server with "
        "--lambda-failure-dir DIR (a server with a data directory uses "
        "<data-dir>/lambda-failures)");
  }
  return Status::Ok();
}

// The file name part of a destination: its queue, topic or bucket name.
std::string DestinationName(const std::string& arn) {
  std::optional<util::ArnParts> parts = util::ParseArn(arn);
  std::string name = parts ? std::string(parts->resource) : arn;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  if (name.empty() || name[0] == '.') name.insert(0, "_");
  return name;
}

// The Region and account a stream ARN names, and its context there.
std::optional<RequestContext> StreamContext(const std::string& stream_arn, std::string account) {
  std::optional<util::DynamoDbArnParts> parts = util::ParseDynamoDbArn(stream_arn);
  if (!parts || !parts->Child("stream")) return std::nullopt;
  RequestContext ctx;
  ctx.region = std::string(parts->region);
  ctx.account_id = parts->account.empty() ? std::move(account) : std::string(parts->account);
  return ctx;
}

// Each shard's last record now (none for a shard without records: read from its start).
// Reads the stream once to its end: at most what the stream keeps (24 hours).
Result<std::vector<std::pair<std::string, std::string>>> LastRecords(Engine& engine,
                                                                     const RequestContext& ctx,
                                                                     const std::string& stream) {
  std::vector<std::pair<std::string, std::string>> last;
  DescribeStreamRequest describe;
  describe.stream_arn = stream;
  for (int page = 0; page < 1000; ++page) {
    DDB_ASSIGN_OR_RETURN(StreamDescription d, engine.DescribeStream(ctx, describe));
    for (const StreamShard& shard : d.shards) {
      GetShardIteratorRequest get;
      get.stream_arn = stream;
      get.shard_id = shard.shard_id;
      DDB_ASSIGN_OR_RETURN(std::string iterator, engine.GetShardIterator(ctx, get));
      std::string sequence;
      for (int reads = 0; reads < 1'000'000; ++reads) {
        GetRecordsRequest records;
        records.shard_iterator = iterator;
        DDB_ASSIGN_OR_RETURN(GetRecordsResult r, engine.GetRecords(ctx, records));
        if (!r.records.empty()) sequence = r.records.back().sequence_number;
        if (r.records.empty() || !r.next_shard_iterator) break;
        iterator = *r.next_shard_iterator;
      }
      if (!sequence.empty()) last.emplace_back(shard.shard_id, sequence);
    }
    if (!d.last_evaluated_shard_id) break;
    describe.exclusive_start_shard_id = d.last_evaluated_shard_id;
  }
  return last;
}

}  // namespace

EventSourceMappings::EventSourceMappings(NamespaceOf namespaces, OwnerOf owner_of,
                                         TriggerOptions options)
    : namespaces_(std::move(namespaces)),
      owner_of_(std::move(owner_of)),
      options_(std::move(options)),
      invoker_(options_.functions) {}

EventSourceMappings::~EventSourceMappings() { Stop(); }

Status EventSourceMappings::Start() {
  if (options_.state_file.empty()) return Status::Ok();
  std::ifstream in(options_.state_file);
  if (!in) return Status::Ok();  // none yet
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  DDB_ASSIGN_OR_RETURN(std::vector<protocol::StoredMapping> kept, protocol::DecodeMappings(body));
  std::lock_guard lock(mu_);
  for (protocol::StoredMapping& s : kept) {
    auto m = std::make_unique<Mapping>();
    m->stored = std::move(s);
    m->order = next_order_++;
    m->enabled = m->m().state != "Disabled" && m->m().state != "Disabling";
    m->m().state = m->enabled ? "Enabled" : "Disabled";
    Mapping* raw = m.get();
    mappings_[raw->m().uuid] = std::move(m);
    if (raw->enabled) StartPoller(raw);
  }
  return Status::Ok();
}

void EventSourceMappings::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [uuid, m] : mappings_) {
      m->stop = true;
      {
        std::lock_guard wait(m->wait_mu);
        m->wake.notify_all();
      }
      if (m->poller.joinable()) threads.push_back(std::move(m->poller));
    }
  }
  invoker_.Cancel();
  // Joined without the lock, which a poller takes to checkpoint.
  for (std::thread& t : threads) t.join();
}

void EventSourceMappings::StartPoller(Mapping* m) {
  m->stop = false;
  m->poller = std::thread([this, m] { Poll(m); });
}

void EventSourceMappings::StopPoller(Mapping* m, std::unique_lock<std::mutex>& lock) {
  m->stop = true;
  {
    std::lock_guard wait(m->wait_mu);
    m->wake.notify_all();
  }
  invoker_.Cancel(m->m().uuid);  // its invocation in flight fails; the batch is done again
  if (!m->poller.joinable()) return;
  std::thread t = std::move(m->poller);
  lock.unlock();
  t.join();
  lock.lock();
}

EventSourceMappings::Mapping* EventSourceMappings::Find(const RequestContext& ctx,
                                                        const std::string& uuid) {
  auto it = mappings_.find(uuid);
  if (it == mappings_.end() || it->second->stored.owner != owner_of_(ctx)) return nullptr;
  return it->second.get();
}

Result<EventSourceMapping> EventSourceMappings::CreateMapping(const RequestContext& ctx,
                                                              const EventSourceMappingChange& c) {
  if (!c.function_name || !c.event_source_arn) {
    return Error::Validation("FunctionName and EventSourceArn are required");
  }
  DDB_ASSIGN_OR_RETURN(FunctionRef fn, ResolveFunction(ctx, *c.function_name));
  if (!invoker_.Knows(fn.name)) {
    return Error::NotFound("Function not found: " + fn.arn);
  }
  const std::string owner = owner_of_(ctx);
  std::optional<RequestContext> there = StreamContext(*c.event_source_arn, ctx.account_id);
  Result<Engine*> engine = there ? namespaces_(owner, there->region)
                                 : Result<Engine*>(Error::Validation("not a stream ARN"));
  if (!engine.ok() || !engine.value()) {
    return Error::Validation("Stream not found: " + *c.event_source_arn);
  }
  DescribeStreamRequest describe;
  describe.stream_arn = *c.event_source_arn;
  describe.limit = 1;
  if (!engine.value()->DescribeStream(*there, describe).ok()) {
    return Error::Validation("Stream not found: " + *c.event_source_arn);
  }
  // LATEST: the last record of each shard now is where the mapping starts, kept as its
  // checkpoint so that a restart or a disabled spell does not move it.
  std::vector<std::pair<std::string, std::string>> positions;
  if (c.starting_position == "LATEST") {
    DDB_ASSIGN_OR_RETURN(positions, LastRecords(*engine.value(), *there, *c.event_source_arn));
  }
  EventSourceMapping m;
  m.uuid = util::NewUuid();
  m.function_arn = fn.arn;
  m.event_source_arn = *c.event_source_arn;
  m.starting_position = c.starting_position.value_or("TRIM_HORIZON");
  ApplySettings(c, &m);
  DDB_RETURN_IF_ERROR(CheckSupported(m));
  DDB_RETURN_IF_ERROR(CheckDestination(m, options_.failure_dir));
  m.last_modified = NowSeconds();
  const bool enabled = c.enabled.value_or(true);
  std::lock_guard lock(mu_);
  for (const auto& [uuid, other] : mappings_) {
    if (other->stored.owner == owner && other->m().event_source_arn == m.event_source_arn &&
        other->m().function_arn == m.function_arn) {
      return Error::InUse("The event source arn (\" " + m.event_source_arn +
                          " \") and function (\" " + fn.name +
                          " \") provided mapping already exists. Please update or delete the "
                          "existing mapping with UUID " +
                          uuid);
    }
  }
  if (stopped_) return Error::Internal("the server is shutting down");
  // Each enabled mapping is a thread: bounded, as every resource a client can add.
  if (mappings_.size() >= kMaxMappings) {
    return Error::Validation("ddb keeps at most " + std::to_string(kMaxMappings) +
                             " event source mappings per server");
  }
  auto entry = std::make_unique<Mapping>();
  entry->stored.mapping = m;
  entry->stored.owner = owner;
  entry->stored.positions = std::move(positions);
  entry->order = next_order_++;
  entry->enabled = enabled;
  entry->m().state = enabled ? "Enabled" : "Disabled";
  Mapping* raw = entry.get();
  mappings_[m.uuid] = std::move(entry);
  Save();
  if (enabled) StartPoller(raw);
  m.state = "Creating";  // the answer's, as the service's
  return m;
}

Result<EventSourceMapping> EventSourceMappings::GetMapping(const RequestContext& ctx,
                                                           const std::string& uuid) {
  std::lock_guard lock(mu_);
  Mapping* m = Find(ctx, uuid);
  if (!m) return Error::NotFound("The resource you requested does not exist.");
  return m->m();
}

std::vector<EventSourceMapping> EventSourceMappings::ListMappings(
    const RequestContext& ctx, const std::optional<std::string>& event_source_arn,
    const std::optional<std::string>& function_name) {
  std::optional<std::string> function_arn;
  if (function_name) {
    Result<FunctionRef> fn = ResolveFunction(ctx, *function_name);
    function_arn = fn.ok() ? fn.value().arn : *function_name;
  }
  const std::string owner = owner_of_(ctx);
  std::lock_guard lock(mu_);
  std::vector<std::pair<uint64_t, EventSourceMapping>> found;
  for (const auto& [uuid, m] : mappings_) {
    if (m->stored.owner != owner) continue;
    if (event_source_arn && m->m().event_source_arn != *event_source_arn) continue;
    if (function_arn && m->m().function_arn != *function_arn) continue;
    found.emplace_back(m->order, m->m());
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<EventSourceMapping> out;
  for (auto& [order, m] : found) out.push_back(std::move(m));
  return out;
}

Result<EventSourceMapping> EventSourceMappings::UpdateMapping(const RequestContext& ctx,
                                                              const std::string& uuid,
                                                              const EventSourceMappingChange& c) {
  std::optional<FunctionRef> fn;
  if (c.function_name) {
    DDB_ASSIGN_OR_RETURN(FunctionRef resolved, ResolveFunction(ctx, *c.function_name));
    if (!invoker_.Knows(resolved.name)) {
      return Error::NotFound("Function not found: " + resolved.arn);
    }
    fn = std::move(resolved);
  }
  std::unique_lock lock(mu_);
  Mapping* m = Find(ctx, uuid);
  if (!m) return Error::NotFound("The resource you requested does not exist.");
  EventSourceMapping updated = m->m();
  ApplySettings(c, &updated);
  if (fn) updated.function_arn = fn->arn;
  DDB_RETURN_IF_ERROR(CheckSupported(updated));
  DDB_RETURN_IF_ERROR(CheckDestination(updated, options_.failure_dir));
  updated.last_modified = NowSeconds();
  const bool enable = c.enabled.value_or(m->enabled);
  // A disabled mapping's poller stops (another update may have started it again while this
  // one waited); settings reach a running poller at its next batch.
  while (!enable && m->poller.joinable()) {
    StopPoller(m, lock);
    m = Find(ctx, uuid);
    if (!m) return Error::NotFound("The resource you requested does not exist.");
  }
  updated.last_processing_result = m->m().last_processing_result;
  m->m() = updated;
  m->enabled = enable;
  m->m().state = enable ? "Enabled" : "Disabled";
  Save();
  if (enable && !m->poller.joinable() && !stopped_) StartPoller(m);
  EventSourceMapping answer = m->m();
  answer.state = c.enabled ? (enable ? "Enabling" : "Disabling") : "Updating";
  return answer;
}

Result<EventSourceMapping> EventSourceMappings::DeleteMapping(const RequestContext& ctx,
                                                              const std::string& uuid) {
  std::unique_lock lock(mu_);
  Mapping* m = Find(ctx, uuid);
  if (!m) return Error::NotFound("The resource you requested does not exist.");
  while (m->poller.joinable()) {
    StopPoller(m, lock);
    m = Find(ctx, uuid);
    if (!m) return Error::NotFound("The resource you requested does not exist.");
  }
  auto it = mappings_.find(uuid);
  if (it == mappings_.end()) return Error::NotFound("The resource you requested does not exist.");
  EventSourceMapping answer = it->second->m();
  mappings_.erase(it);
  Save();
  answer.state = "Deleting";
  return answer;
}

std::string EventSourceMappings::RenderConsoleJson() const {
  std::lock_guard lock(mu_);
  std::vector<const Mapping*> ordered;
  for (const auto& [uuid, m] : mappings_) ordered.push_back(m.get());
  std::sort(ordered.begin(), ordered.end(),
            [](const Mapping* a, const Mapping* b) { return a->order < b->order; });
  std::vector<protocol::MappingFigures> figures;
  for (const Mapping* m : ordered) {
    figures.push_back({m->stored.mapping, FunctionNameOf(m->stored.mapping.function_arn),
                       m->invocations.load(), m->errors.load(), m->retries.load(),
                       m->iterator_age_ms.load()});
  }
  return protocol::RenderConsoleMappings(figures);
}

std::string EventSourceMappings::RenderMetrics() const {
  std::lock_guard lock(mu_);
  if (mappings_.empty()) return "";
  std::string out;
  const struct {
    const char* name;
    const char* type;
    const char* help;
    std::atomic<uint64_t> Mapping::*counter;
  } kFamilies[] = {
      {"ddb_event_source_mapping_invocations_total", "counter", "Function invocations.",
       &Mapping::invocations},
      {"ddb_event_source_mapping_errors_total", "counter",
       "Invocations that failed (function errors, no answer).", &Mapping::errors},
      {"ddb_event_source_mapping_retries_total", "counter",
       "Invocations of records already tried (retries, bisected halves).", &Mapping::retries},
  };
  auto labels = [](const Mapping& m) {
    return "{uuid=\"" + m.stored.mapping.uuid + "\",function=\"" +
           FunctionNameOf(m.stored.mapping.function_arn) + "\"}";
  };
  for (const auto& f : kFamilies) {
    out +=
        std::string("# HELP ") + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
    for (const auto& [uuid, m] : mappings_) {
      out += f.name + labels(*m) + " " + std::to_string(((*m).*(f.counter)).load()) + "\n";
    }
  }
  out +=
      "# HELP ddb_event_source_mapping_iterator_age_milliseconds Age of the last record "
      "delivered, when it was.\n# TYPE ddb_event_source_mapping_iterator_age_milliseconds "
      "gauge\n";
  for (const auto& [uuid, m] : mappings_) {
    out += "ddb_event_source_mapping_iterator_age_milliseconds" + labels(*m) + " " +
           std::to_string(m->iterator_age_ms.load()) + "\n";
  }
  return out;
}

void EventSourceMappings::Save() {
  if (options_.state_file.empty()) return;
  std::vector<protocol::StoredMapping> all;
  for (const auto& [uuid, m] : mappings_) all.push_back(m->stored);
  const std::string text = protocol::EncodeMappings(all);
  // Written beside, then renamed over: a crash leaves the old file or the new one.
  const std::string tmp = options_.state_file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::fprintf(stderr, "ddb: cannot write %s\n", tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), options_.state_file.c_str()) != 0) {
    std::fprintf(stderr, "ddb: cannot replace %s\n", options_.state_file.c_str());
  }
}

// --- The poller ---

void EventSourceMappings::RecordFailure(const EventSourceMapping& settings,
                                        const std::string& shard,
                                        const std::vector<StreamRecord>& given_up,
                                        const InvokeOutcome& last, int64_t invocations,
                                        bool too_old) {
  protocol::FailureRecord r;
  r.request_id = util::NewUuid();
  r.function_arn = settings.function_arn;
  // The service's word for retries spent is recorded; for age, LocalStack's.
  r.condition = too_old ? "RecordAgeExceeded" : "RetryAttemptsExhausted";
  r.approximate_invoke_count = invocations;
  r.status = last.status;
  r.function_error = last.function_error;
  r.timestamp_ms = NowMs();
  r.shard_id = shard;
  r.stream_arn = settings.event_source_arn;
  r.start_sequence_number = given_up.front().sequence_number;
  r.end_sequence_number = given_up.back().sequence_number;
  r.first_arrival = given_up.front().approximate_creation_date_time;
  r.last_arrival = given_up.back().approximate_creation_date_time;
  r.batch_size = static_cast<int64_t>(given_up.size());
  const std::filesystem::path dir = std::filesystem::path(options_.failure_dir) /
                                    DestinationName(*settings.on_failure_destination);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "%020lld", static_cast<long long>(r.timestamp_ms));
  const std::filesystem::path file = dir / (std::string(stamp) + "-" + r.request_id + ".json");
  std::ofstream out(file);
  out << protocol::RenderFailureRecord(r) << "\n";
  if (!out) std::fprintf(stderr, "ddb: cannot write %s\n", file.c_str());
}

void EventSourceMappings::Checkpoint(Mapping* m, const std::string& shard,
                                     const std::string& sequence,
                                     const std::optional<std::string>& result) {
  std::lock_guard lock(mu_);
  auto& positions = m->stored.positions;
  auto it = std::find_if(positions.begin(), positions.end(),
                         [&](const auto& p) { return p.first == shard; });
  if (it == positions.end()) {
    positions.emplace_back(shard, sequence);
  } else {
    it->second = sequence;
  }
  if (result) m->m().last_processing_result = *result;
  Save();
}

void EventSourceMappings::Poll(Mapping* m) {
  std::string stream_arn;
  std::string owner;
  {
    std::lock_guard lock(mu_);
    stream_arn = m->m().event_source_arn;
    owner = m->stored.owner;
  }
  std::optional<RequestContext> ctx = StreamContext(stream_arn, owner);
  // Every start reads on from the checkpoints: what an earlier poller read past them without
  // delivering is read again.
  m->iterators.clear();
  m->windows.clear();  // an unfinished window is delivered again, from a fresh state
  while (!m->stop) {
    bool busy = false;
    Result<Engine*> engine =
        ctx ? namespaces_(owner, ctx->region) : Result<Engine*>(Error::NotFound("no stream"));
    if (engine.ok() && engine.value()) busy = PollOnce(m, engine.value(), *ctx);
    if (!busy && !m->Sleep(options_.idle_poll)) return;
  }
}

// One pass over the stream's shards: reads each one's next records and delivers them in
// batches. True when it found records (then the next pass starts at once).
// A shard without a checkpoint is read from its start (LATEST set checkpoints at creation).
bool EventSourceMappings::PollOnce(Mapping* m, Engine* engine, const RequestContext& ctx) {
  EventSourceMapping settings;
  std::map<std::string, std::string> positions;
  {
    std::lock_guard lock(mu_);
    settings = m->m();
    for (const auto& [shard, seq] : m->stored.positions) positions[shard] = seq;
  }
  DescribeStreamRequest describe;
  describe.stream_arn = settings.event_source_arn;
  std::vector<StreamShard> shards;
  for (int page = 0; page < 1000; ++page) {
    Result<StreamDescription> d = engine->DescribeStream(ctx, describe);
    if (!d.ok()) {
      std::lock_guard lock(mu_);
      m->m().last_processing_result = "PROBLEM: " + d.error().message();
      return false;
    }
    shards.insert(shards.end(), d.value().shards.begin(), d.value().shards.end());
    if (!d.value().last_evaluated_shard_id) break;
    describe.exclusive_start_shard_id = d.value().last_evaluated_shard_id;
  }
  // Patterns were checked when the mapping was created or updated.
  Result<protocol::RecordFilter> parsed = protocol::RecordFilter::Parse(settings.filter_patterns);
  const protocol::RecordFilter filter =
      parsed.ok() ? std::move(parsed).value() : protocol::RecordFilter();
  bool found = false;
  for (const StreamShard& shard : shards) {
    if (m->stop) return false;
    std::string& iterator = m->iterators[shard.shard_id];
    if (iterator == "-") continue;  // a closed shard read to its end
    if (iterator.empty()) {
      GetShardIteratorRequest get;
      get.stream_arn = settings.event_source_arn;
      get.shard_id = shard.shard_id;
      if (auto p = positions.find(shard.shard_id); p != positions.end()) {
        get.shard_iterator_type = ShardIteratorType::kAfterSequenceNumber;
        get.sequence_number = p->second;
      } else {
        get.shard_iterator_type = ShardIteratorType::kTrimHorizon;
      }
      Result<std::string> it = engine->GetShardIterator(ctx, get);
      if (!it.ok() && get.sequence_number) {
        // The checkpoint was trimmed (older than the stream keeps): the oldest left.
        get.shard_iterator_type = ShardIteratorType::kTrimHorizon;
        get.sequence_number.reset();
        it = engine->GetShardIterator(ctx, get);
      }
      if (!it.ok()) continue;
      iterator = it.value();
    }
    // A batch: up to BatchSize records of this shard, waiting up to the batching window for
    // more when there are fewer.
    std::vector<StreamRecord> batch;
    std::string last_read;  // filtered-out records count as done once read past
    const auto window_end =
        std::chrono::steady_clock::now() + std::chrono::seconds(settings.maximum_batching_window_s);
    // At most 100 reads with records a batch, so that a long run of filtered-out records is
    // checkpointed as it goes.
    int reads = 0;
    int64_t batch_bytes = 0;
    // ParallelizationFactor N: N concurrent batches of the shard, so N times the records.
    const int64_t wanted =
        settings.batch_size * std::max<int64_t>(1, settings.parallelization_factor);
    const int64_t max_bytes =
        kMaxBatchItemBytes * std::max<int64_t>(1, settings.parallelization_factor);
    bool drained = false;  // read to the shard's end for now
    while (static_cast<int64_t>(batch.size()) < wanted && !m->stop && reads < 100 &&
           batch_bytes < max_bytes) {
      GetRecordsRequest get;
      get.shard_iterator = iterator;
      get.limit =
          static_cast<int>(std::min<int64_t>(1000, wanted - static_cast<int64_t>(batch.size())));
      Result<GetRecordsResult> r = engine->GetRecords(ctx, get);
      if (!r.ok()) {
        iterator.clear();  // expired or trimmed: a new one from the checkpoint next pass
        break;
      }
      if (!r.value().records.empty()) {
        found = true;
        ++reads;
      }
      for (StreamRecord& rec : r.value().records) {
        last_read = rec.sequence_number;
        if (filter.Matches(rec, settings.event_source_arn)) {
          batch_bytes += rec.size_bytes;
          batch.push_back(std::move(rec));
        }
      }
      if (!r.value().next_shard_iterator) {
        iterator = "-";
        break;
      }
      iterator = *r.value().next_shard_iterator;
      if (r.value().records.empty()) {
        drained = true;
        if (batch.empty() || std::chrono::steady_clock::now() >= window_end) break;
        if (!m->Sleep(options_.idle_poll)) return false;
      } else {
        drained = false;
      }
    }
    if (iterator == "-") drained = true;
    if (settings.tumbling_window_s > 0) {
      if (!DeliverWindows(m, shard.shard_id, std::move(batch), last_read, drained)) return false;
      continue;
    }
    const std::string delivered_to = batch.empty() ? "" : batch.back().sequence_number;
    if (!batch.empty()) {
      const bool done = settings.parallelization_factor > 1
                            ? DeliverParallel(m, shard.shard_id, std::move(batch))
                            : Deliver(m, shard.shard_id, std::move(batch));
      if (!done) return false;  // stopped
    }
    if (!last_read.empty() && last_read != delivered_to) {
      Checkpoint(m, shard.shard_id, last_read, std::nullopt);
    }
  }
  return found;
}

// ParallelizationFactor: the batch's records split into that many lanes by their keys, so
// that one item's records stay in order in one lane; the lanes are delivered concurrently,
// each in batches of at most BatchSize, and the shard is checkpointed once all are done.
bool EventSourceMappings::DeliverParallel(Mapping* m, const std::string& shard,
                                          std::vector<StreamRecord> batch) {
  EventSourceMapping settings;
  {
    std::lock_guard lock(mu_);
    settings = m->m();
  }
  const size_t lanes = static_cast<size_t>(settings.parallelization_factor);
  const std::string last = batch.back().sequence_number;
  std::vector<std::vector<StreamRecord>> lane(lanes);
  for (StreamRecord& r : batch) {
    std::string key;
    EncodeItem(r.keys, &key);
    lane[std::hash<std::string>{}(key) % lanes].push_back(std::move(r));
  }
  std::atomic<bool> stopped{false};
  std::vector<std::thread> workers;
  for (std::vector<StreamRecord>& records : lane) {
    if (records.empty()) continue;
    workers.emplace_back([&, records = std::move(records)]() mutable {
      const size_t size = static_cast<size_t>(settings.batch_size);
      for (size_t at = 0; at < records.size() && !stopped; at += size) {
        const size_t end = std::min(records.size(), at + size);
        std::vector<StreamRecord> part(std::make_move_iterator(records.begin() + at),
                                       std::make_move_iterator(records.begin() + end));
        if (!Deliver(m, shard, std::move(part), /*checkpoints=*/false)) stopped = true;
      }
    });
  }
  for (std::thread& t : workers) t.join();
  if (stopped) return false;
  Checkpoint(m, shard, last, "OK");
  return true;
}

// TumblingWindowInSeconds: records go to the function window by window (by their creation
// time), each invocation with the state the function answered last in that window; once
// the window's end has passed and its records are delivered, a final invocation
// (isFinalInvokeForWindow) closes it, and only then is the shard checkpointed, so that a
// restart delivers an unfinished window again from a fresh state.
bool EventSourceMappings::DeliverWindows(Mapping* m, const std::string& shard,
                                         std::vector<StreamRecord> batch,
                                         const std::string& last_read, bool drained) {
  EventSourceMapping settings;
  {
    std::lock_guard lock(mu_);
    settings = m->m();
  }
  const int64_t width = settings.tumbling_window_s;
  Window& w = m->windows[shard];
  auto close = [&](bool early) {
    if (!InvokeWindow(m, settings, shard, {}, &w, /*final=*/true, early)) return false;
    if (!w.last_read.empty()) Checkpoint(m, shard, w.last_read, "OK");
    w = Window();
    return true;
  };
  size_t at = 0;
  while (at < batch.size()) {
    const int64_t start =
        static_cast<int64_t>(batch[at].approximate_creation_date_time) / width * width;
    if (w.open && w.start_s != start && !close(false)) return false;
    if (!w.open) {
      w.open = true;
      w.start_s = start;
    }
    size_t end = at;
    while (end < batch.size() && end - at < static_cast<size_t>(settings.batch_size) &&
           static_cast<int64_t>(batch[end].approximate_creation_date_time) / width * width ==
               start) {
      ++end;
    }
    std::vector<StreamRecord> part(std::make_move_iterator(batch.begin() + at),
                                   std::make_move_iterator(batch.begin() + end));
    const std::string part_last = part.back().sequence_number;
    if (!InvokeWindow(m, settings, shard, std::move(part), &w, false, false)) return false;
    w.last_read = part_last;
    // The service ends a window early when its state passes 1 MB.
    if (w.state.size() > kMaxWindowState && !close(true)) return false;
    at = end;
  }
  if (!last_read.empty()) {
    if (w.open) {
      w.last_read = last_read;  // filtered-out records: done when the window closes
    } else if (batch.empty()) {
      Checkpoint(m, shard, last_read, std::nullopt);
    }
  }
  // The window's end has passed and nothing more of it is waiting to be read.
  const int64_t now_s = NowMs() / 1000;
  if (w.open && drained && now_s >= w.start_s + width && !close(false)) return false;
  return true;
}

// One invocation of a window, retried as a batch is (MaximumRetryAttempts,
// MaximumRecordAgeInSeconds); an answer without `state` is a failure, as in the service.
// The window's state becomes the answer's. Records given up are dropped with the window's
// state. False when stopped.
bool EventSourceMappings::InvokeWindow(Mapping* m, const EventSourceMapping& settings,
                                       const std::string& shard, std::vector<StreamRecord> records,
                                       Window* w, bool final, bool early) {
  const std::string function = FunctionNameOf(settings.function_arn);
  protocol::WindowInvocation win;
  win.start_s = w->start_s;
  win.end_s = w->start_s + settings.tumbling_window_s;
  win.shard_id = shard;
  win.final = final;
  win.terminated_early = early;
  int64_t failures = 0;
  std::chrono::milliseconds backoff{100};
  for (bool retrying = false;; retrying = true) {
    if (m->stop) return false;
    if (retrying) m->retries++;
    win.state = w->state;
    m->invocations++;
    InvokeOutcome outcome = invoker_.Invoke(
        function, protocol::RenderWindowEvent(records, settings.event_source_arn, win),
        settings.uuid);
    if (m->stop && !outcome.delivered) return false;
    std::optional<std::string> state;
    if (outcome.delivered) state = protocol::ReadWindowState(outcome.body);
    if (state) {
      w->state = std::move(*state);
      if (!records.empty()) {
        m->iterator_age_ms =
            NowMs() - static_cast<int64_t>(records.back().approximate_creation_date_time * 1000);
      }
      std::lock_guard lock(mu_);
      m->m().last_processing_result = "OK";
      return true;
    }
    m->errors++;
    if (outcome.status != 0) ++failures;
    const bool out_of_retries =
        settings.maximum_retry_attempts >= 0 && failures > settings.maximum_retry_attempts;
    const bool too_old = !records.empty() && settings.maximum_record_age_s >= 0 &&
                         NowSeconds() - records.front().approximate_creation_date_time >
                             settings.maximum_record_age_s;
    if (out_of_retries || too_old) {
      if (settings.on_failure_destination && !records.empty()) {
        RecordFailure(settings, shard, records, outcome, std::max<int64_t>(failures, 1),
                      too_old && !out_of_retries);
      }
      std::lock_guard lock(mu_);
      m->m().last_processing_result = "PROBLEM: Function call failed";
      return true;
    }
    {
      std::lock_guard lock(mu_);
      m->m().last_processing_result =
          "PROBLEM: Function call failed (" +
          (outcome.error.empty() ? std::string("no state in the answer") : outcome.error) + ")";
    }
    if (!m->Sleep(backoff)) return false;
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
}

// Invokes the function with `batch` until it is done (delivered, or given up by the retry
// limits); checkpoints what is done. False when stopped first.
bool EventSourceMappings::Deliver(Mapping* m, const std::string& shard,
                                  std::vector<StreamRecord> batch, bool checkpoints) {
  EventSourceMapping settings;
  {
    std::lock_guard lock(mu_);
    settings = m->m();
  }
  const std::string function = FunctionNameOf(settings.function_arn);
  auto checkpoint = [&](const std::string& sequence, const std::string& result) {
    if (checkpoints) {
      Checkpoint(m, shard, sequence, result);
      return;
    }
    std::lock_guard lock(mu_);
    m->m().last_processing_result = result;
  };
  int64_t failures = 0;
  std::chrono::milliseconds backoff{100};
  size_t limit = batch.size();  // the records invoked: the first half once bisected
  bool retrying = false;        // the next invocation sends records already tried
  while (!batch.empty()) {
    if (m->stop) return false;
    if (retrying) m->retries++;
    limit = std::min(limit, batch.size());
    const std::vector<StreamRecord> part =
        limit == batch.size() ? std::vector<StreamRecord>()
                              : std::vector<StreamRecord>(
                                    batch.begin(), batch.begin() + static_cast<ptrdiff_t>(limit));
    const std::vector<StreamRecord>& sent = limit == batch.size() ? batch : part;
    m->invocations++;
    const std::string event = protocol::RenderStreamEvent(sent, settings.event_source_arn);
    InvokeOutcome outcome = invoker_.Invoke(function, event, settings.uuid);
    if (m->stop && !outcome.delivered) return false;
    size_t done = outcome.delivered ? limit : 0;
    if (outcome.delivered && settings.report_batch_item_failures) {
      std::optional<std::vector<std::string>> failed =
          protocol::ReadBatchItemFailures(outcome.body);
      if (!failed) {
        done = 0;  // a malformed list fails the whole batch
      } else if (!failed->empty()) {
        // Resumes at the earliest failed record of the batch.
        for (size_t i = 0; i < limit; ++i) {
          if (std::find(failed->begin(), failed->end(), batch[i].sequence_number) !=
              failed->end()) {
            done = i;
            break;
          }
        }
      }
    }
    if (done > 0) {
      m->iterator_age_ms =
          NowMs() - static_cast<int64_t>(batch[done - 1].approximate_creation_date_time * 1000);
      checkpoint(batch[done - 1].sequence_number, "OK");
      batch.erase(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(done));
    }
    if (done == limit) {  // all of what was sent: the rest of a bisected batch next
      limit = batch.size();
      failures = 0;
      backoff = std::chrono::milliseconds(100);
      retrying = false;
      continue;
    }
    limit -= done;
    m->errors++;
    retrying = true;
    // BisectBatchOnFunctionError: a batch the function failed is split in two and its first
    // half retried, without counting against MaximumRetryAttempts (developer guide).
    if (settings.bisect_batch_on_function_error && outcome.status != 0 && limit > 1) {
      limit = (limit + 1) / 2;
      continue;
    }
    // A function that did not answer (its runner is down) is retried without counting, as
    // the service retries a batch that did not reach the function.
    if (outcome.status != 0) ++failures;
    // Out of retries (MaximumRetryAttempts counts the retries after the first invocation),
    // or the oldest record is too old: what was sent is discarded and the shard goes on.
    const bool out_of_retries =
        settings.maximum_retry_attempts >= 0 && failures > settings.maximum_retry_attempts;
    const double oldest_age_s = NowSeconds() - batch.front().approximate_creation_date_time;
    const bool too_old =
        settings.maximum_record_age_s >= 0 && oldest_age_s > settings.maximum_record_age_s;
    if (out_of_retries || too_old) {
      if (settings.on_failure_destination) {
        RecordFailure(
            settings, shard,
            std::vector<StreamRecord>(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(limit)),
            outcome, std::max<int64_t>(failures, 1), too_old && !out_of_retries);
      }
      retrying = false;  // what comes next was not tried
      checkpoint(batch[limit - 1].sequence_number,
                 "PROBLEM: Function call failed" +
                     (outcome.error.empty() ? std::string() : " (" + outcome.error + ")"));
      batch.erase(batch.begin(), batch.begin() + static_cast<ptrdiff_t>(limit));
      limit = batch.size();
      failures = 0;
      backoff = std::chrono::milliseconds(100);
      continue;
    }
    {
      std::lock_guard lock(mu_);
      m->m().last_processing_result = "PROBLEM: Function call failed (" + outcome.error + ")";
    }
    if (!m->Sleep(backoff)) return false;
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
  return true;
}

}  // namespace ddb::triggers
