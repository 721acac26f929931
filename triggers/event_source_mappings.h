// Event source mappings for DynamoDB streams (docs/triggers.md): the Lambda API's mappings
// (protocol::TriggerCoordinator), each with a poller thread that reads its stream's shards in
// order through the embedding API (Engine::DescribeStream, GetShardIterator, GetRecords),
// gathers batches (BatchSize, MaximumBatchingWindowInSeconds) and invokes the function
// (FunctionInvoker) until it succeeds or the batch runs out of retries
// (MaximumRetryAttempts, MaximumRecordAgeInSeconds), checkpointing the last record done in
// each shard. ReportBatchItemFailures resumes at the lowest failed record;
// ParallelizationFactor delivers lanes of a shard (by item key) concurrently;
// TumblingWindowInSeconds carries the function's state through each window. Mappings and
// checkpoints are kept in a file of the data directory, so a restart resumes where it was.
//
// Uses only the embedding API (include/ddb), protocol/handler.h and protocol/lambda.h.
// Thread safety: all public methods may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "protocol/lambda.h"
#include "triggers/function_invoker.h"

namespace ddb::triggers {

// The engine of `owner` (an account or an access key, as the server isolates namespaces) in
// `region`; and the owner of a caller's namespace.
using NamespaceOf = std::function<Result<Engine*>(std::string_view owner, std::string_view region)>;
using OwnerOf = std::function<std::string(const RequestContext& ctx)>;

struct TriggerOptions {
  std::string state_file;  // where mappings and checkpoints are kept; "": nowhere (in memory)
  FunctionEndpoints functions;
  // Where the records of batches given up go when a mapping has an on-failure destination
  // (DestinationConfig.OnFailure): <dir>/<destination name>/<time>-<id>.json; "": nowhere
  // (such mappings are refused).
  std::string failure_dir;
  // How often a mapping without records looks again (the service: four times a second).
  std::chrono::milliseconds idle_poll{20};
};

class EventSourceMappings final : public protocol::TriggerCoordinator {
 public:
  EventSourceMappings(NamespaceOf namespaces, OwnerOf owner_of, TriggerOptions options);
  ~EventSourceMappings() override;
  EventSourceMappings(const EventSourceMappings&) = delete;
  EventSourceMappings& operator=(const EventSourceMappings&) = delete;

  // Reads the kept mappings and starts the enabled ones. Errors: the file is unreadable.
  Status Start();
  // Stops every poller, ending invocations in flight (their batches are retried at the next
  // start); returns within a few milliseconds.
  void Stop();

  Result<protocol::EventSourceMapping> CreateMapping(
      const RequestContext& ctx, const protocol::EventSourceMappingChange& c) override;
  Result<protocol::EventSourceMapping> GetMapping(const RequestContext& ctx,
                                                  const std::string& uuid) override;
  std::vector<protocol::EventSourceMapping> ListMappings(
      const RequestContext& ctx, const std::optional<std::string>& event_source_arn,
      const std::optional<std::string>& function_name) override;
  Result<protocol::EventSourceMapping> UpdateMapping(
      const RequestContext& ctx, const std::string& uuid,
      const protocol::EventSourceMappingChange& c) override;
  Result<protocol::EventSourceMapping> DeleteMapping(const RequestContext& ctx,
                                                     const std::string& uuid) override;

  // Per mapping: ddb_event_source_mapping_invocations_total, _errors_total (function
  // errors), _retries_total (invocations of records already tried) and
  // _iterator_age_milliseconds (the age of the last record delivered, when it
  // was: the service's IteratorAge), labelled uuid and function.
  std::string RenderMetrics() const override;
  std::string RenderConsoleJson() const override;

 private:
  struct Mapping;
  void Poll(Mapping* m);
  bool PollOnce(Mapping* m, Engine* engine, const RequestContext& ctx);
  // `checkpoints`: false for a lane of a parallel batch (DeliverParallel checkpoints).
  bool Deliver(Mapping* m, const std::string& shard, std::vector<StreamRecord> batch,
               bool checkpoints = true);
  bool DeliverParallel(Mapping* m, const std::string& shard, std::vector<StreamRecord> batch);
  // A shard's open tumbling window (TumblingWindowInSeconds); the poller's own.
  struct Window {
    bool open = false;
    int64_t start_s = 0;
    std::string state = "{}";
    std::string last_read;  // the shard's checkpoint once the window closes
  };
  bool DeliverWindows(Mapping* m, const std::string& shard, std::vector<StreamRecord> batch,
                      const std::string& last_read, bool drained);
  bool InvokeWindow(Mapping* m, const protocol::EventSourceMapping& settings,
                    const std::string& shard, std::vector<StreamRecord> records, Window* w,
                    bool final, bool early);
  // Records of `shard` up to `sequence` are done; `result` becomes LastProcessingResult.
  void Checkpoint(Mapping* m, const std::string& shard, const std::string& sequence,
                  const std::optional<std::string>& result);
  // The invocation record of a batch given up, written for the mapping's destination.
  void RecordFailure(const protocol::EventSourceMapping& settings, const std::string& shard,
                     const std::vector<StreamRecord>& given_up, const InvokeOutcome& last,
                     int64_t invocations, bool too_old);
  void StartPoller(Mapping* m);
  void StopPoller(Mapping* m, std::unique_lock<std::mutex>& lock);
  void Save();                                                        // under mu_
  Mapping* Find(const RequestContext& ctx, const std::string& uuid);  // under mu_

  const NamespaceOf namespaces_;
  const OwnerOf owner_of_;
  const TriggerOptions options_;
  FunctionInvoker invoker_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Mapping>> mappings_;  // by UUID; guarded by mu_
  uint64_t next_order_ = 0;                                   // guarded by mu_
  bool stopped_ = false;                                      // guarded by mu_
};

}  // namespace ddb::triggers
