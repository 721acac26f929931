// Global tables across the Regions of one server (docs/global-tables.md). Each Region is its
// own namespace (an Engine, server/namespaces.h); a global table is one table of that name in
// each replica's Region. The Replicator carries every change made in one Region to the others:
// per ordered pair of Regions of a table (a link), it reads the source's log
// (Engine::ReadReplicationLog), waits until the change is `delay_ms` old, and applies it to
// the target (Engine::ApplyReplicated, last writer wins by the change's stamp), skipping the
// changes the source itself got from another Region. How far each link got is kept in the
// source engine (Engine::SaveReplicationCheckpoint), so a restart resumes there; applying a
// change twice changes nothing.
//
// UpdateTable's ReplicaUpdates come here (protocol::ReplicaCoordinator): a new replica is
// created in its Region, shown CREATING while it is filled from a snapshot of the source
// (Engine::ReadReplicaSnapshot) as writes continue, then ACTIVE; a deleted one leaves every
// list and its table is deleted. Every Region's table lists the other replicas.
//
// Uses only the embedding API (include/ddb) and protocol/handler.h.
// Thread safety: all public methods may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ddb/engine.h"
#include "protocol/handler.h"

namespace ddb::replication {

struct ReplicatorOptions {
  // How old a change is before the other Regions get it. The service's is usually under a
  // second ("usually propagated to all replica tables within a second"; its
  // ReplicationLatency metric is "0.5 to 2.5 seconds" within one geographic area).
  int delay_ms = 1000;
  // The engines' clock (EngineOptions::clock_for_testing), which stamps commit times;
  // null: the system clock.
  std::function<uint64_t()> clock;
};

// The engine of `owner` (an account or an access key, as the server isolates namespaces) in
// `region`, opened when new.
using NamespaceOpener =
    std::function<Result<Engine*>(std::string_view owner, std::string_view region)>;
// The owner of the caller's namespace.
using OwnerOf = std::function<std::string(const RequestContext& ctx)>;

// One open namespace, for Resume.
struct RegionEngine {
  std::string owner;
  std::string region;
  Engine* engine = nullptr;
};

// One link's figures, for /metrics and the console.
struct LinkStatus {
  std::string owner;
  std::string table;
  std::string from;
  std::string to;
  uint64_t applied = 0;      // changes applied since the server started
  uint64_t backlog = 0;      // changes read from the source and not yet applied
  uint64_t last_lag_ms = 0;  // commit to apply, of the last change applied
  // Commit to apply over the last kLagWindow changes applied (0 when none).
  uint64_t lag_p50_ms = 0;
  uint64_t lag_p99_ms = 0;
  uint64_t lag_max_ms = 0;
};

// How many of a link's latest changes its lag percentiles are taken over.
inline constexpr size_t kLagWindow = 4096;

// The links' figures in the Prometheus text format, for GET /metrics: per link
// (account or access key, table, from, to) the changes applied, the backlog and the last
// lag.
std::string RenderMetricsText(const std::vector<LinkStatus>& links);

class Replicator : public protocol::ReplicaCoordinator {
 public:
  Replicator(NamespaceOpener open, OwnerOf owner_of, ReplicatorOptions options);
  ~Replicator() override;
  Replicator(const Replicator&) = delete;
  Replicator& operator=(const Replicator&) = delete;

  // Takes up the global tables found in these namespaces (the server's, at start), from
  // their checkpoints; fills a replica that a restart interrupted again. Starts the thread.
  void Start(const std::vector<RegionEngine>& namespaces);
  // Stops the thread and the fills (a fill stopped is done again at the next Start).
  void Stop();

  Result<TableDescription> UpdateReplicas(Engine& engine, const RequestContext& ctx,
                                          const std::string& table,
                                          const protocol::ReplicaChanges& changes) override;

  void FollowUpdateTable(const RequestContext& ctx, const TableDescription& table,
                         const UpdateTableRequest& req) override;
  void FollowTimeToLive(const RequestContext& ctx, const TableDescription& table,
                        const TimeToLiveSpecification& spec) override;
  Result<Engine*> EngineIn(const RequestContext& ctx, const std::string& region) override;

  std::vector<LinkStatus> Links() const;

  // Outages you can cause (`ddb region offline|online`, the server's /admin/regions): an
  // offline Region's requests are refused by the server (ServiceUnavailable), and nothing is
  // replicated to or from it (nor is a replica filled there) until it is back; then its links
  // catch up from where they stopped.
  void SetRegionOffline(const std::string& region, bool offline);
  bool RegionOffline(std::string_view region) const;
  std::vector<std::string> OfflineRegions() const;

 private:
  struct Link;
  using Members = std::map<std::string, ReplicaDescription>;  // region -> replica

  uint64_t Now() const;
  // Multi-Region strong consistency: the hooks of every engine this replicator reaches
  // (Engine::SetStrongWriteHooks), the items being written (one Region at a time), and a
  // committed write applied in the other Regions before it is acknowledged.
  void Hook(const std::string& owner, const std::string& region, Engine* engine);
  Status Claim(const std::string& owner, const std::string& region, const std::string& table,
               const std::string& item_id);
  void Release(const std::string& owner, const std::string& table, const std::string& item_id);
  Status ReplicateStrong(const std::string& owner, const std::string& region, Engine* engine,
                         const std::string& table, const ReplicatedChange& change);
  // The rules of MultiRegionConsistency and GlobalTableWitnessUpdates, with the service's
  // texts.
  Status CheckStrongChanges(const RequestContext& ctx, const TableDescription& table,
                            const protocol::ReplicaChanges& changes);
  Result<Engine*> Open(const std::string& owner, const std::string& region);
  // Every replica of the table (its own Region included), as `region`'s table lists them.
  Result<Members> MembersOf(const std::string& owner, const std::string& region,
                            const std::string& table);
  // Writes each member's list of the others. REQUIRES: control_mu_ held.
  Status WriteLists(const std::string& owner, const std::string& table, const Members& members);
  void AddLink(const std::string& owner, const std::string& table, const std::string& from,
               const std::string& to, uint64_t position);
  void DropLinks(const std::string& owner, const std::string& table, const std::string& region);
  Result<TableDescription> CreateReplica(Engine& source, const RequestContext& ctx,
                                         const std::string& owner, const TableDescription& table,
                                         const ReplicaDescription& replica);
  Result<TableDescription> DeleteReplica(const RequestContext& ctx, const std::string& owner,
                                         const TableDescription& table, const std::string& region);
  // `gone`'s table was deleted (or is no longer global): it leaves the lists of the others
  // (found through `member`'s).
  void Forget(const std::string& owner, const std::string& table, const std::string& gone,
              const std::string& member);
  void StartFill(const std::string& owner, const std::string& table, const std::string& source,
                 const std::string& target);
  void Fill(std::string owner, std::string table, std::string source, std::string target);
  void Run();
  // Applies what is due on one link; returns when the next change is due (ms), 0 for none.
  uint64_t Pump(Link& link);

  const NamespaceOpener open_;
  const OwnerOf owner_of_;
  const ReplicatorOptions options_;
  // Serialises changes of replica sets (UpdateReplicas, a fill's end).
  std::mutex control_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Link>> links_;  // guarded by mu_
  std::vector<std::thread> fills_;                      // guarded by mu_
  bool stopping_ = false;                               // guarded by mu_
  bool started_ = false;                                // guarded by mu_
  std::thread thread_;
  std::mutex hooks_mu_;
  std::set<Engine*> hooked_;   // guarded by hooks_mu_
  bool hooks_closed_ = false;  // guarded by hooks_mu_: Stop() took them away
  struct ItemClaim {
    std::string region;
    int writers = 0;
  };
  std::mutex claims_mu_;
  std::map<std::string, ItemClaim> claims_;     // guarded by claims_mu_
  std::set<std::string, std::less<>> offline_;  // guarded by mu_
  std::atomic<bool> any_offline_{false};        // !offline_.empty(), read without the lock
};

}  // namespace ddb::replication
