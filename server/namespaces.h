// The engines that hold a server's tables. Under --isolation shared, one engine for every
// caller (today's namespace, DynamoDB Local's -sharedDb). Under --isolation account, one per
// account and region of the signing key, as the service keeps tables: each in its own
// directory, <data-dir>/accounts/<account>/<region>, or in memory. Under --isolation
// access-key, one per access key and region (<data-dir>/keys/<key>/<region>), as DynamoDB
// Local keeps its databases without -sharedDb.
// Namespaces are opened on their first request, and those found on disk at Open.
// Thread safety: Of, Find and Sources may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/engine.h"
#include "protocol/handler.h"
#include "protocol/lambda.h"
#include "replication/replicator.h"
#include "server/config.h"

namespace ddb::server {

class Namespaces {
 public:
  // Engines opened with `base` (data_dir: the server's; in_memory as given).
  Namespaces(EngineOptions base, Isolation isolation);
  // One shared namespace: `engine`, which the caller owns and which must outlive this.
  explicit Namespaces(Engine& engine);
  ~Namespaces();
  Namespaces(const Namespaces&) = delete;
  Namespaces& operator=(const Namespaces&) = delete;

  // Opens the shared engine, or the account namespaces found under the data directory.
  // Errors: the engines' Open errors.
  Status Open();

  // The engine of the caller's namespace (by account, or by access key), opened now if it
  // is new. Errors: as Of.
  Result<Engine*> ForCaller(const RequestContext& ctx);
  // The engine of `account`'s namespace in `region` (the caller's, or the owner's of a
  // table ARN), opened now if it is new; the shared engine when namespaces are shared.
  // Errors: kValidation for an account or region that cannot name a namespace; the
  // engine's Open errors.
  Result<Engine*> Of(std::string_view account, std::string_view region);
  // The same without opening one: nullptr when the namespace does not exist.
  Engine* Find(std::string_view account, std::string_view region);

  Isolation isolation() const { return isolation_; }

  // Global tables: the owner of the caller's namespace (its account, or its access key under
  // --isolation access-key), and the namespace of an owner in any region, opened now if new.
  std::string OwnerOf(const RequestContext& ctx) const {
    return isolation_ == Isolation::kAccessKey ? ctx.access_key_id : ctx.account_id;
  }
  Result<Engine*> OfOwner(std::string_view owner, std::string_view region) {
    if (isolation_ == Isolation::kShared) return shared_;
    return OpenNamespace(owner, region);
  }
  // Every open namespace but the shared one.
  struct Entry {
    std::string owner;
    std::string region;
    Engine* engine = nullptr;
  };
  std::vector<Entry> List();
  // The replicator of global tables (main.cc; none under --isolation shared), which
  // UpdateTable's ReplicaUpdates go to and /metrics shows. Must outlive the requests.
  void SetReplicator(replication::Replicator* replicator) { replicator_ = replicator; }
  replication::Replicator* replicator() const { return replicator_; }
  // The event source mappings (main.cc), which requests signed for "lambda" go to. Must
  // outlive the requests.
  void SetTriggers(protocol::TriggerCoordinator* triggers) { triggers_ = triggers; }
  protocol::TriggerCoordinator* triggers() const { return triggers_; }

  // Every open namespace for GET /metrics, labelled account="...",region="..." (no labels
  // when shared).
  std::vector<protocol::MetricsSource> Sources();

 private:
  // The namespace of `owner` (an account or an access key, by isolation) in `region`.
  Result<Engine*> OpenNamespace(std::string_view owner, std::string_view region);

  EngineOptions base_;
  Isolation isolation_;
  uint64_t id_;  // unique per object, for the threads' last-hit caches
  Engine* shared_ = nullptr;
  std::unique_ptr<Engine> owned_shared_;
  std::mutex mu_;
  // "<owner>/<region>" -> engine.
  std::map<std::string, std::unique_ptr<Engine>, std::less<>> engines_;
  replication::Replicator* replicator_ = nullptr;
  protocol::TriggerCoordinator* triggers_ = nullptr;
};

}  // namespace ddb::server
