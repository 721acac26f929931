#include "replication/replicator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <regex>
#include <set>

namespace ddb::replication {
namespace {

// Changes read from a source per look, and applied per link before the others get a turn.
constexpr size_t kReadBatch = 1024;
// Changes read ahead of their time per link (a delay of a second at 5,000 writes/s holds
// 5,000): the memory a link may take.
constexpr size_t kMaxPending = 16384;
// How often an idle link looks for new changes, and how often a link saves its checkpoint.
constexpr uint64_t kIdleWaitMs = 10;
constexpr uint64_t kCheckpointEveryMs = 1000;
// Changes applied in one write (Engine::ApplyReplicatedBatch).
constexpr size_t kApplyRun = 512;
// A fill copies this many items per snapshot page, and shows its progress this often.
constexpr size_t kFillPage = 256;
constexpr uint64_t kProgressEveryMs = 1000;

std::string LinkKey(const std::string& owner, const std::string& table, const std::string& from,
                    const std::string& to) {
  std::string k = owner;
  for (const std::string* part : {&table, &from, &to}) {
    k.push_back('\0');
    k.append(*part);
  }
  return k;
}

void LogError(const std::string& message) {
  std::fprintf(stderr, "ddb-server: replication: %s\n", message.c_str());
}

RequestContext ContextIn(const std::string& owner, const std::string& region) {
  RequestContext ctx;
  ctx.region = region;
  ctx.account_id = owner;
  return ctx;
}

// The replica's table as created in its Region: the source's schema, indexes, stream and
// Time to Live, on demand, with the replica's overrides.
// A provisioned table takes a new replica only when its write capacity, and its GSIs', has
// auto scaling (UpdateTableReplicaAutoScaling): replicas must take the same writes.
Status CheckWriteCapacityScales(const TableDescription& d) {
  if (d.billing_mode == BillingMode::kPayPerRequest) return Status::Ok();
  if (!d.auto_scaling.write) {
    return Error::Validation(
        "Table write capacity should either be Pay-Per-Request or AutoScaled.");
  }
  for (const SecondaryIndexDefinition& g : d.global_secondary_indexes) {
    const std::vector<TableAutoScaling::Index>& indexes = d.auto_scaling.indexes;
    const bool scales = std::any_of(
        indexes.begin(), indexes.end(),
        [&](const TableAutoScaling::Index& i) { return i.index_name == g.index_name && i.write; });
    // Guessed wording (the table's, for its index).
    if (!scales) {
      return Error::Validation(
          "Index write capacity should either be Pay-Per-Request or "
          "AutoScaled: " +
          g.index_name);
    }
  }
  return Status::Ok();
}

// A table's auto scaling, as an update that sets it all on another table (a new replica's).
TableAutoScalingUpdate SetAll(const TableAutoScaling& a) {
  auto set = [](const std::optional<AutoScalingSettings>& s) {
    if (!s) return std::optional<AutoScalingSettingsUpdate>();
    return std::optional<AutoScalingSettingsUpdate>(AutoScalingSettingsUpdate{
        s->minimum_units, s->maximum_units, std::nullopt, s->role_arn, s->policy});
  };
  TableAutoScalingUpdate u{set(a.read), set(a.write), {}};
  for (const TableAutoScaling::Index& i : a.indexes) {
    u.indexes.push_back({i.index_name, set(i.read), set(i.write)});
  }
  return u;
}

CreateTableRequest ReplicaTable(const TableDescription& d, const ReplicaDescription& r) {
  CreateTableRequest req;
  req.table_name = d.table_name;
  req.attribute_definitions = d.attribute_definitions;
  req.key_schema = d.key_schema;
  auto plain = [](std::vector<SecondaryIndexDefinition> indexes) {
    for (SecondaryIndexDefinition& i : indexes) {
      i.index_status = IndexStatus::kActive;
      i.backfilling = false;
      i.item_count = 0;
      i.size_bytes = 0;
    }
    return indexes;
  };
  req.local_secondary_indexes = plain(d.local_secondary_indexes);
  req.global_secondary_indexes = plain(d.global_secondary_indexes);
  for (SecondaryIndexDefinition& g : req.global_secondary_indexes) {
    for (const ReplicaIndexSettings& o : r.global_secondary_indexes) {
      if (o.index_name != g.index_name || !o.max_read_request_units) continue;
      OnDemandThroughput t = g.on_demand_throughput.value_or(OnDemandThroughput{});
      t.max_read_request_units = *o.max_read_request_units;
      g.on_demand_throughput = t;
    }
  }
  req.billing_mode = d.billing_mode;
  if (d.billing_mode == BillingMode::kProvisioned) {
    // A provisioned table's (it has write auto scaling): the same capacity, the read
    // capacity overridden where the replica says so.
    req.provisioned_throughput = d.provisioned_throughput;
    if (r.read_capacity_override) {
      req.provisioned_throughput->read_capacity_units = *r.read_capacity_override;
    }
    for (SecondaryIndexDefinition& g : req.global_secondary_indexes) {
      for (const ReplicaIndexSettings& o : r.global_secondary_indexes) {
        if (o.index_name == g.index_name && o.read_capacity_units && g.provisioned_throughput) {
          g.provisioned_throughput->read_capacity_units = *o.read_capacity_units;
        }
      }
    }
  }
  req.on_demand_throughput = d.on_demand_throughput;
  if (r.max_read_request_units_override) {
    OnDemandThroughput t = req.on_demand_throughput.value_or(OnDemandThroughput{});
    t.max_read_request_units = *r.max_read_request_units_override;
    req.on_demand_throughput = t;
  }
  if (d.stream_specification) req.stream_specification = d.stream_specification;
  req.table_class = r.table_class_override ? r.table_class_override : d.table_class;
  return req;
}

// The shape of an AWS Region's name: a two-letter area, an optional "-gov", a direction and
// a number ("us-east-1", "ap-southeast-2", "us-gov-west-1"). The service refuses a Region it
// does not have ("Region us-fake-1 is not supported. ..." followed by its list, which ddb
// does not reproduce); ddb refuses the names no Region could have.
bool AwsRegionName(std::string_view name) {
  static const std::regex kRegion(
      "[a-z]{2}(-gov)?-(north|south|east|west|central|northeast|northwest|southeast|southwest)-"
      "[1-9][0-9]?");
  return name.size() <= 32 && std::regex_match(name.begin(), name.end(), kRegion);
}

bool InProgress(ReplicaStatus s) {
  return s == ReplicaStatus::kCreating || s == ReplicaStatus::kUpdating ||
         s == ReplicaStatus::kDeleting;
}

}  // namespace

struct Replicator::Link {
  std::string owner, table, from, to;
  // Read from the source up to here; every change up to pending's first is applied.
  uint64_t read_position = 0;
  uint64_t saved_position = 0;
  uint64_t last_save_ms = 0;
  std::deque<ReplicatedChange> pending;  // read, not yet due
  std::atomic<bool> dropped{false};
  std::atomic<uint64_t> applied{0};
  std::atomic<uint64_t> backlog{0};
  std::atomic<uint64_t> last_lag_ms{0};
  // The lags of the last kLagWindow changes applied, a ring (Links() reads it).
  std::mutex lags_mu;
  std::vector<uint32_t> lags;  // guarded by lags_mu
  size_t next_lag = 0;         // guarded by lags_mu

  void RecordLags(const std::vector<uint32_t>& batch) {
    std::lock_guard lock(lags_mu);
    for (uint32_t lag : batch) {
      if (lags.size() < kLagWindow) {
        lags.push_back(lag);
      } else {
        lags[next_lag] = lag;
        next_lag = (next_lag + 1) % kLagWindow;
      }
    }
  }

  uint64_t AppliedPosition() const {
    return pending.empty() ? read_position : pending.front().sequence - 1;
  }
};

Replicator::Replicator(NamespaceOpener open, OwnerOf owner_of, ReplicatorOptions options)
    : open_(std::move(open)), owner_of_(std::move(owner_of)), options_(std::move(options)) {}

Replicator::~Replicator() { Stop(); }

uint64_t Replicator::Now() const {
  if (options_.clock) return options_.clock();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

Result<Engine*> Replicator::Open(const std::string& owner, const std::string& region) {
  Result<Engine*> e = open_(owner, region);
  if (e.ok()) Hook(owner, region, e.value());
  return e;
}

void Replicator::Hook(const std::string& owner, const std::string& region, Engine* engine) {
  {
    std::lock_guard lock(hooks_mu_);
    if (hooks_closed_ || !hooked_.insert(engine).second) return;
  }
  Engine::StrongWriteHooks hooks;
  hooks.claim = [this, owner, region](const std::string& table, const std::string& item_id) {
    return Claim(owner, region, table, item_id);
  };
  hooks.replicate = [this, owner, region, engine](const std::string& table,
                                                  const std::string& item_id,
                                                  const ReplicatedChange& change) {
    Status s = ReplicateStrong(owner, region, engine, table, change);
    Release(owner, table, item_id);
    return s;
  };
  hooks.release = [this, owner](const std::string& table, const std::string& item_id) {
    Release(owner, table, item_id);
  };
  engine->SetStrongWriteHooks(std::move(hooks));
}

Status Replicator::Claim(const std::string& owner, const std::string& region,
                         const std::string& table, const std::string& item_id) {
  std::lock_guard lock(claims_mu_);
  ItemClaim& claim = claims_[LinkKey(owner, table, item_id, "")];
  if (claim.writers > 0 && claim.region != region) {
    // The service's text (its API reference, ReplicatedWriteConflictException).
    return Error(ErrorCode::kReplicatedWriteConflict,
                 "The request was rejected because one or more items in the request are being "
                 "modified by a request in another Region.");
  }
  claim.region = region;
  ++claim.writers;
  return Status::Ok();
}

void Replicator::Release(const std::string& owner, const std::string& table,
                         const std::string& item_id) {
  std::lock_guard lock(claims_mu_);
  auto it = claims_.find(LinkKey(owner, table, item_id, ""));
  if (it != claims_.end() && --it->second.writers <= 0) claims_.erase(it);
}

Status Replicator::ReplicateStrong(const std::string& owner, const std::string& region,
                                   Engine* engine, const std::string& table,
                                   const ReplicatedChange& change) {
  Result<TableDescription> d = engine->DescribeTable(ContextIn(owner, region), table);
  if (!d.ok()) return Status::Ok();  // the table went meanwhile: nothing to keep in step
  for (const ReplicaDescription& r : d.value().replicas) {
    // An offline Region gets the change from its link when it is back.
    if (RegionOffline(r.region_name)) continue;
    Result<Engine*> there = Open(owner, r.region_name);
    if (!there.ok()) continue;
    Result<bool> applied = there.value()->ApplyReplicated(table, change);
    // Transactions are refused on such tables, so an item is held only for an instant.
    for (int tries = 0;
         !applied.ok() && applied.error().code() == ErrorCode::kTransactionConflict && tries < 1000;
         ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      applied = there.value()->ApplyReplicated(table, change);
    }
    if (!applied.ok() && applied.error().code() != ErrorCode::kResourceNotFound) {
      LogError("a strongly consistent write of " + table + " not applied in " + r.region_name +
               " (its link will): " + applied.error().message());
    }
  }
  return Status::Ok();
}

Result<Replicator::Members> Replicator::MembersOf(const std::string& owner,
                                                  const std::string& region,
                                                  const std::string& table) {
  DDB_ASSIGN_OR_RETURN(Engine * engine, Open(owner, region));
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine->DescribeTable(ContextIn(owner, region), table));
  Members members;
  for (const ReplicaDescription& r : d.replicas) members[r.region_name] = r;
  // This Region's own entry (its overrides) is in the others' lists.
  ReplicaDescription self;
  self.region_name = region;
  for (const auto& [other, _] : members) {
    Result<Engine*> e = Open(owner, other);
    if (!e.ok()) continue;
    Result<TableDescription> od = e.value()->DescribeTable(ContextIn(owner, other), table);
    if (!od.ok()) continue;
    for (const ReplicaDescription& r : od.value().replicas) {
      if (r.region_name == region) self = r;
    }
    break;
  }
  members[region] = self;
  return members;
}

Status Replicator::WriteLists(const std::string& owner, const std::string& table,
                              const Members& members) {
  for (const auto& [region, _] : members) {
    std::vector<ReplicaDescription> others;
    if (members.size() > 1) {
      for (const auto& [other, r] : members) {
        if (other != region) others.push_back(r);
      }
    }
    DDB_ASSIGN_OR_RETURN(Engine * engine, Open(owner, region));
    Result<TableDescription> set =
        engine->SetReplicas(ContextIn(owner, region), table, std::move(others));
    if (!set.ok()) return set.error();
  }
  return Status::Ok();
}

void Replicator::AddLink(const std::string& owner, const std::string& table,
                         const std::string& from, const std::string& to, uint64_t position) {
  auto link = std::make_shared<Link>();
  link->owner = owner;
  link->table = table;
  link->from = from;
  link->to = to;
  link->read_position = position;
  link->saved_position = position;
  std::lock_guard lock(mu_);
  auto& slot = links_[LinkKey(owner, table, from, to)];
  if (slot) slot->dropped = true;
  slot = std::move(link);
  cv_.notify_all();
}

void Replicator::DropLinks(const std::string& owner, const std::string& table,
                           const std::string& region) {
  std::lock_guard lock(mu_);
  for (auto it = links_.begin(); it != links_.end();) {
    const Link& l = *it->second;
    if (l.owner == owner && l.table == table && (l.from == region || l.to == region)) {
      it->second->dropped = true;
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
}

Status Replicator::CheckStrongChanges(const RequestContext& ctx, const TableDescription& d,
                                      const protocol::ReplicaChanges& changes) {
  auto count = [](const std::vector<ReplicaUpdate>& list, ReplicaUpdate::Action action) {
    return std::count_if(list.begin(), list.end(),
                         [&](const ReplicaUpdate& u) { return u.action == action; });
  };
  const auto creates = count(changes.updates, ReplicaUpdate::Action::kCreate);
  const auto deletes = count(changes.updates, ReplicaUpdate::Action::kDelete);
  const auto witness_creates = count(changes.witness_updates, ReplicaUpdate::Action::kCreate);
  // The service's texts (aws-controllers-k8s' records of its answers), unless marked guessed.
  if (!changes.witness_updates.empty() && changes.strong != true && !d.multi_region_strong) {
    return Error::Validation(
        "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter "
        "is present.");
  }
  if (changes.strong.has_value() && !d.replicas.empty()) {
    return Error::Validation(
        "MultiRegionConsistency parameter is unsupported on existing global "
        "table");
  }
  if (d.multi_region_strong) {
    if (creates > 0 || witness_creates > 0) {
      return Error::Validation(
          "Cannot add replicas to a global table with strong MultiRegionConsistency");
    }
    if (deletes > 0 && static_cast<size_t>(deletes) != d.replicas.size()) {
      return Error::Validation(
          "Deletion of only one table replica is not supported for global tables with "
          "MultiRegionConsistency set to STRONG.");
    }
    return Status::Ok();
  }
  if (changes.strong != true) return Status::Ok();
  if (deletes > 0 ||
      !((creates == 2 && witness_creates == 0) || (creates == 1 && witness_creates == 1))) {
    return Error::Validation(
        "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.");
  }
  // The Region sets of multi-Region strong consistency (the service's, 2025): all of a
  // table's Regions in one of them.
  static const std::vector<std::set<std::string, std::less<>>> kSets = {
      {"us-east-1", "us-east-2", "us-west-2"},
      {"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
      {"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"}};
  const std::set<std::string, std::less<>>* home = nullptr;
  for (const auto& set : kSets) {
    if (set.count(ctx.region)) home = &set;
  }
  std::vector<std::string> outside;
  if (!home) outside.push_back(ctx.region);
  for (const auto* list : {&changes.updates, &changes.witness_updates}) {
    for (const ReplicaUpdate& u : *list) {
      if (!home || !home->count(u.replica.region_name)) outside.push_back(u.replica.region_name);
    }
  }
  if (!outside.empty()) {
    std::string text;
    for (const std::string& r : outside) text += (text.empty() ? "" : ", ") + r;
    return Error::Validation(
        "Unsupported Region(s) specified for global tables with MultiRegionConsistency set to "
        "STRONG: [" +
        text + "].");
  }
  // The service's restrictions on such tables (guessed wordings: not on record).
  if (d.item_count > 0) {
    return Error::Validation(
        "The table must be empty to become a global table with MultiRegionConsistency set to "
        "STRONG");
  }
  if (!d.local_secondary_indexes.empty()) {
    return Error::Validation(
        "Local secondary indexes are not supported for global tables with "
        "MultiRegionConsistency set to STRONG");
  }
  if (d.ttl_attribute) {
    return Error::Validation(
        "Time to Live is not supported for global tables with MultiRegionConsistency set to "
        "STRONG");
  }
  return Status::Ok();
}

Result<TableDescription> Replicator::UpdateReplicas(Engine& engine, const RequestContext& ctx,
                                                    const std::string& table,
                                                    const protocol::ReplicaChanges& changes) {
  std::lock_guard control(control_mu_);
  Hook(owner_of_(ctx), ctx.region, &engine);
  const std::vector<ReplicaUpdate>& updates = changes.updates;
  const std::string owner = owner_of_(ctx);
  DDB_ASSIGN_OR_RETURN(TableDescription d, engine.DescribeTable(ctx, table));
  // The service's texts (aws-controllers-k8s' records of its answers).
  for (const auto* list : {&updates, &changes.witness_updates}) {
    for (const ReplicaUpdate& u : *list) {
      if (!AwsRegionName(u.replica.region_name)) {
        return Error::Validation("Region " + u.replica.region_name + " is not supported.");
      }
    }
  }
  DDB_RETURN_IF_ERROR(CheckStrongChanges(ctx, d, changes));
  for (const ReplicaUpdate& u : updates) {
    if (u.replica.region_name == ctx.region) {
      return Error::Validation(
          "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
          "DeleteTable, or UpdateTable as required.");
    }
  }
  std::vector<std::string> strangers;
  for (const ReplicaUpdate& u : updates) {
    const bool member = std::any_of(
        d.replicas.begin(), d.replicas.end(),
        [&](const ReplicaDescription& r) { return r.region_name == u.replica.region_name; });
    if (u.action == ReplicaUpdate::Action::kCreate && member) {
      return Error::Validation("Failed to create a the new replica of table with name: '" +
                               d.table_name +
                               "' because one or more replicas already existed as tables.");
    }
    if (u.action != ReplicaUpdate::Action::kCreate && !member) {
      strangers.push_back(u.replica.region_name);
    }
  }
  if (!strangers.empty()) {
    std::string list;
    for (const std::string& s : strangers) list += (list.empty() ? "" : ", ") + s;
    return Error::Validation(
        "Update global table operation failed because one or more replicas were not part of "
        "the global table. Please retry the request without these replicas: [" +
        list + "].");
  }
  if (d.table_status != TableStatus::kActive ||
      std::any_of(d.replicas.begin(), d.replicas.end(),
                  [](const ReplicaDescription& r) { return InProgress(r.status); })) {
    return Error::InUse(
        "Attempt to change a resource which is still in use: Table is being "
        "updated: " +
        d.table_name);
  }
  const int creates_and_deletes =
      static_cast<int>(std::count_if(updates.begin(), updates.end(), [](const ReplicaUpdate& u) {
        return u.action != ReplicaUpdate::Action::kUpdate;
      }));
  if (creates_and_deletes > 1 && !d.multi_region_strong && changes.strong != true) {
    return Error::Validation(
        "Update table operation with more than one create or delete replica actions not "
        "allowed");
  }
  std::vector<std::string> deleted;
  for (const ReplicaUpdate& u : updates) {
    switch (u.action) {
      case ReplicaUpdate::Action::kCreate: {
        DDB_RETURN_IF_ERROR(CheckWriteCapacityScales(d));
        DDB_ASSIGN_OR_RETURN(d, CreateReplica(engine, ctx, owner, d, u.replica));
        break;
      }
      case ReplicaUpdate::Action::kUpdate:
        break;  // all together, below: one write of the lists however many there are
      case ReplicaUpdate::Action::kDelete:
        DDB_ASSIGN_OR_RETURN(d, DeleteReplica(ctx, owner, d, u.replica.region_name));
        deleted.push_back(u.replica.region_name);
        break;
    }
  }
  if (std::any_of(updates.begin(), updates.end(), [](const ReplicaUpdate& u) {
        return u.action == ReplicaUpdate::Action::kUpdate;
      })) {
    DDB_ASSIGN_OR_RETURN(Members members, MembersOf(owner, ctx.region, d.table_name));
    for (const ReplicaUpdate& u : updates) {
      if (u.action != ReplicaUpdate::Action::kUpdate || !members.count(u.replica.region_name)) {
        continue;
      }
      ReplicaDescription& r = members[u.replica.region_name];
      if (u.replica.read_capacity_override) {
        r.read_capacity_override = u.replica.read_capacity_override;
      }
      if (u.replica.max_read_request_units_override) {
        r.max_read_request_units_override = u.replica.max_read_request_units_override;
      }
      if (u.replica.table_class_override) r.table_class_override = u.replica.table_class_override;
      if (u.replica.kms_master_key_id) r.kms_master_key_id = u.replica.kms_master_key_id;
      if (!u.replica.global_secondary_indexes.empty()) {
        r.global_secondary_indexes = u.replica.global_secondary_indexes;
      }
    }
    DDB_RETURN_IF_ERROR(WriteLists(owner, d.table_name, members));
  }
  // Multi-Region strong consistency: on every replica, with the witnesses; gone with them.
  if (changes.strong == true || (d.multi_region_strong && !deleted.empty())) {
    const bool strong = changes.strong == true;
    std::vector<WitnessDescription> witnesses;
    for (const ReplicaUpdate& w : changes.witness_updates) {
      if (strong && w.action == ReplicaUpdate::Action::kCreate) {
        witnesses.push_back({w.replica.region_name, WitnessStatus::kActive});
      }
    }
    DDB_ASSIGN_OR_RETURN(Members members, MembersOf(owner, ctx.region, table));
    for (const auto& [region, _] : members) {
      DDB_ASSIGN_OR_RETURN(Engine * e, Open(owner, region));
      Hook(owner, region, e);
      RequestContext there = ctx;
      there.region = region;
      Result<TableDescription> set = e->SetStrongConsistency(there, table, strong, witnesses);
      if (!set.ok()) return set.error();
    }
  }
  DDB_ASSIGN_OR_RETURN(TableDescription answer, engine.DescribeTable(ctx, table));
  for (const std::string& region : deleted) {
    ReplicaDescription going;
    going.region_name = region;
    going.status = ReplicaStatus::kDeleting;
    answer.replicas.push_back(going);
    if (!answer.global_table_version) answer.global_table_version = kGlobalTableVersion;
  }
  answer.table_status = TableStatus::kUpdating;
  return answer;
}

Result<TableDescription> Replicator::CreateReplica(Engine& source, const RequestContext& ctx,
                                                   const std::string& owner,
                                                   const TableDescription& table,
                                                   const ReplicaDescription& replica) {
  const std::string& region = replica.region_name;
  DDB_ASSIGN_OR_RETURN(Engine * target, Open(owner, region));
  RequestContext there = ctx;
  there.region = region;
  Result<TableDescription> created = target->CreateTable(there, ReplicaTable(table, replica));
  if (!created.ok()) {
    if (created.error().code() == ErrorCode::kResourceInUse) {
      return Error::Validation("Failed to create a the new replica of table with name: '" +
                               table.table_name +
                               "' because one or more replicas already existed as tables.");
    }
    return created.error();
  }
  DDB_RETURN_IF_ERROR(target->SetFilling(table.table_name, true));
  // The new replica scales as the table does (its read capacity from then on its own).
  if (!table.auto_scaling.empty()) {
    Result<TableDescription> scaled =
        target->UpdateAutoScaling(there, table.table_name, SetAll(table.auto_scaling));
    if (!scaled.ok()) LogError("auto scaling of the new replica: " + scaled.error().message());
  }
  if (table.ttl_attribute) {
    Result<TimeToLiveSpecification> ttl =
        target->UpdateTimeToLive(table.table_name, {true, *table.ttl_attribute});
    if (!ttl.ok()) LogError("Time to Live of the new replica: " + ttl.error().message());
  }
  DDB_ASSIGN_OR_RETURN(Members members, MembersOf(owner, ctx.region, table.table_name));
  ReplicaDescription entry = replica;
  entry.status = ReplicaStatus::kCreating;
  entry.percent_progress = 0;
  members[region] = entry;
  DDB_RETURN_IF_ERROR(WriteLists(owner, table.table_name, members));
  StartFill(owner, table.table_name, ctx.region, region);
  return source.DescribeTable(ctx, table.table_name);
}

Result<TableDescription> Replicator::DeleteReplica(const RequestContext& ctx,
                                                   const std::string& owner,
                                                   const TableDescription& table,
                                                   const std::string& region) {
  DropLinks(owner, table.table_name, region);
  DDB_ASSIGN_OR_RETURN(Members members, MembersOf(owner, ctx.region, table.table_name));
  members.erase(region);
  DDB_RETURN_IF_ERROR(WriteLists(owner, table.table_name, members));
  // The replica's table goes with it, as in the service.
  if (Result<Engine*> target = Open(owner, region); target.ok()) {
    RequestContext there = ctx;
    there.region = region;
    (void)target.value()->SetReplicas(there, table.table_name, {});
    Result<TableDescription> gone = target.value()->DeleteTable(there, table.table_name);
    if (!gone.ok() && gone.error().code() != ErrorCode::kResourceNotFound) {
      LogError("deleting the replica in " + region + ": " + gone.error().message());
    }
  }
  return table;
}

void Replicator::Forget(const std::string& owner, const std::string& table, const std::string& gone,
                        const std::string& member) {
  std::lock_guard control(control_mu_);
  Result<Members> members = MembersOf(owner, member, table);
  if (!members.ok() || !members.value().count(gone)) return;
  // Still there after all (a replica being created, or the same table again): keep it.
  if (Result<Engine*> e = Open(owner, gone); e.ok()) {
    Result<TableDescription> d = e.value()->DescribeTable(ContextIn(owner, gone), table);
    if (d.ok() && !d.value().replicas.empty()) return;
  }
  DropLinks(owner, table, gone);
  members.value().erase(gone);
  if (Status s = WriteLists(owner, table, members.value()); !s.ok()) {
    LogError("removing " + gone + " from the replicas of " + table + ": " + s.error().message());
  }
}

void Replicator::StartFill(const std::string& owner, const std::string& table,
                           const std::string& source, const std::string& target) {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  fills_.emplace_back(&Replicator::Fill, this, owner, table, source, target);
}

void Replicator::Fill(std::string owner, std::string table, std::string source,
                      std::string target) {
  auto stopped = [this] {
    std::lock_guard lock(mu_);
    return stopping_;
  };
  // Stopped by the server's shutdown: done again at the next start. Otherwise the replica's
  // creation failed: without its source (deleted meanwhile) the partial table goes; after
  // another error it stays, CREATION_FAILED, for a ReplicaUpdates Delete.
  auto fail = [&](const Error& e) {
    if (stopped()) {
      LogError("filling the replica of " + table + " in " + target + " from " + source +
               " stopped (done again at the next start): " + e.message());
      return;
    }
    LogError("creating the replica of " + table + " in " + target + " from " + source +
             " failed: " + e.message());
    std::lock_guard control(control_mu_);
    Result<Engine*> there = Open(owner, target);
    if (!there.ok()) return;
    (void)there.value()->SetFilling(table, false);
    Result<TableDescription> d = there.value()->DescribeTable(ContextIn(owner, target), table);
    if (!d.ok()) return;
    Result<Members> members = MembersOf(owner, target, table);
    if (!members.ok()) return;
    if (e.code() == ErrorCode::kResourceNotFound) {
      members.value().erase(target);
      for (auto it = members.value().begin(); it != members.value().end();) {
        Result<Engine*> x = Open(owner, it->first);
        const bool alive =
            x.ok() && x.value()->DescribeTable(ContextIn(owner, it->first), table).ok();
        it = alive ? std::next(it) : members.value().erase(it);
      }
      (void)there.value()->SetReplicas(ContextIn(owner, target), table, {});
      (void)there.value()->DeleteTable(ContextIn(owner, target), table);
      if (!members.value().empty()) (void)WriteLists(owner, table, members.value());
      return;
    }
    members.value()[target].status = ReplicaStatus::kCreationFailed;
    members.value()[target].percent_progress.reset();
    (void)WriteLists(owner, table, members.value());
  };
  Result<Engine*> src = Open(owner, source);
  Result<Engine*> dst = Open(owner, target);
  if (!src.ok() || !dst.ok()) return fail(src.ok() ? dst.error() : src.error());
  (void)dst.value()->SetFilling(table, true);
  // Where the other Regions' changes start reaching the new replica: what the snapshot of
  // the source will hold (the source's own changes up to now, and the others' as far as they
  // reached the source; those saved checkpoints lag what was applied, which only means that
  // some changes are applied twice).
  Result<Members> members = MembersOf(owner, source, table);
  if (!members.ok()) return fail(members.error());
  std::map<std::string, uint64_t> starts;
  Result<uint64_t> source_end = src.value()->ReplicationLogEnd(table);
  if (!source_end.ok()) return fail(source_end.error());
  starts[source] = source_end.value();
  for (const auto& [region, _] : members.value()) {
    if (region == source || region == target) continue;
    Result<Engine*> e = Open(owner, region);
    if (!e.ok()) return fail(e.error());
    Result<uint64_t> reached = e.value()->ReplicationCheckpoint(table, source);
    starts[region] = reached.ok() ? reached.value() : 0;
  }
  // The snapshot: items and deleted items' stamps, applied last-writer-wins.
  Result<TableDescription> d = src.value()->DescribeTable(ContextIn(owner, source), table);
  const int64_t total = d.ok() ? std::max<int64_t>(d.value().item_count, 1) : 1;
  int64_t copied = 0;
  uint64_t shown_ms = Now();
  std::string cursor;
  do {
    while (!stopped() && (RegionOffline(source) || RegionOffline(target))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kIdleWaitMs));
    }
    if (stopped()) return;
    Result<ReplicaSnapshotPage> page = src.value()->ReadReplicaSnapshot(table, cursor, kFillPage);
    if (!page.ok()) return fail(page.error());
    const std::vector<ReplicatedChange>& changes = page.value().changes;
    for (size_t from = 0; from < changes.size();) {
      std::vector<ReplicatedChange> run(
          changes.begin() + static_cast<ptrdiff_t>(from),
          changes.begin() + static_cast<ptrdiff_t>(std::min(changes.size(), from + kApplyRun)));
      Result<size_t> taken = dst.value()->ApplyReplicatedBatch(table, run);
      if (!taken.ok() && taken.error().code() == ErrorCode::kTransactionConflict && !stopped()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      if (!taken.ok()) return fail(taken.error());
      for (size_t i = 0; i < taken.value(); ++i) copied += run[i].new_image ? 1 : 0;
      from += taken.value();
    }
    cursor = page.value().cursor;
    if (Now() - shown_ms >= kProgressEveryMs) {
      shown_ms = Now();
      std::lock_guard control(control_mu_);
      Result<Members> now = MembersOf(owner, source, table);
      if (!now.ok() || !now.value().count(target)) return;  // deleted meanwhile
      now.value()[target].percent_progress =
          static_cast<int>(std::min<int64_t>(99, copied * 100 / total));
      (void)WriteLists(owner, table, now.value());
    }
  } while (!cursor.empty());
  // The links: into the new replica from where its snapshot ends, and out of it from its
  // log's end (it has no change of its own yet: it was CREATING).
  Result<uint64_t> target_end = dst.value()->ReplicationLogEnd(table);
  if (!target_end.ok()) return fail(target_end.error());
  std::lock_guard control(control_mu_);
  Result<Members> now = MembersOf(owner, source, table);
  if (!now.ok() || !now.value().count(target)) return;  // deleted meanwhile
  for (const auto& [region, position] : starts) {
    AddLink(owner, table, region, target, position);
    if (Result<Engine*> e = Open(owner, region); e.ok()) {
      (void)e.value()->SaveReplicationCheckpoint(table, target, position);
    }
  }
  for (const auto& [region, _] : now.value()) {
    if (region == target) continue;
    AddLink(owner, table, target, region, target_end.value());
    (void)dst.value()->SaveReplicationCheckpoint(table, region, target_end.value());
  }
  now.value()[target].status = ReplicaStatus::kActive;
  now.value()[target].percent_progress.reset();
  if (Status s = WriteLists(owner, table, now.value()); !s.ok()) {
    // control_mu_ is held: logged, not failed (the lists say CREATING; a restart fills again).
    return LogError("making the replica of " + table + " in " + target +
                    " ACTIVE: " + s.error().message());
  }
  (void)dst.value()->SetFilling(table, false);
}

void Replicator::Start(const std::vector<RegionEngine>& namespaces) {
  std::set<std::pair<std::string, std::string>> filling;  // (owner/table, target)
  for (const RegionEngine& ns : namespaces) {
    Hook(ns.owner, ns.region, ns.engine);
    ListTablesRequest list;
    while (true) {
      Result<ListTablesResult> page = ns.engine->ListTables(list);
      if (!page.ok()) break;
      for (const std::string& table : page.value().table_names) {
        Result<TableDescription> d =
            ns.engine->DescribeTable(ContextIn(ns.owner, ns.region), table);
        if (!d.ok() || d.value().replicas.empty()) continue;
        for (const ReplicaDescription& r : d.value().replicas) {
          Result<uint64_t> position = ns.engine->ReplicationCheckpoint(table, r.region_name);
          AddLink(ns.owner, table, ns.region, r.region_name, position.ok() ? position.value() : 0);
          // A fill a restart interrupted is done again, from one of the Regions listing it.
          if (r.status == ReplicaStatus::kCreating &&
              filling.emplace(ns.owner + "/" + table, r.region_name).second) {
            StartFill(ns.owner, table, ns.region, r.region_name);
          }
        }
      }
      if (!page.value().last_evaluated_table_name) break;
      list.exclusive_start_table_name = page.value().last_evaluated_table_name;
    }
  }
  std::lock_guard lock(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  thread_ = std::thread(&Replicator::Run, this);
}

void Replicator::Stop() {
  std::vector<std::thread> fills;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    fills.swap(fills_);
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  for (std::thread& t : fills) t.join();
  {
    // The engines outlive this replicator: their STRONG tables' writes stop coming here.
    std::lock_guard lock(hooks_mu_);
    hooks_closed_ = true;
    for (Engine* e : hooked_) e->SetStrongWriteHooks({});
    hooked_.clear();
  }
  // What the links applied since their last checkpoint.
  std::lock_guard lock(mu_);
  for (auto& [_, link] : links_) {
    if (link->dropped || link->AppliedPosition() <= link->saved_position) continue;
    Result<Engine*> src = Open(link->owner, link->from);
    if (src.ok()) {
      (void)src.value()->SaveReplicationCheckpoint(link->table, link->to, link->AppliedPosition());
    }
  }
}

void Replicator::Run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    std::vector<std::shared_ptr<Link>> links;
    links.reserve(links_.size());
    for (const auto& [_, link] : links_) links.push_back(link);
    lock.unlock();
    uint64_t wait_ms = kIdleWaitMs;
    for (const std::shared_ptr<Link>& link : links) {
      if (!link->dropped) wait_ms = std::min(wait_ms, Pump(*link));
    }
    lock.lock();
    if (wait_ms > 0) {
      cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), [this] { return stopping_; });
    }
  }
}

uint64_t Replicator::Pump(Link& link) {
  // A Region offline neither sends nor receives; its changes wait in its log.
  if (RegionOffline(link.from) || RegionOffline(link.to)) return kIdleWaitMs;
  Result<Engine*> src = Open(link.owner, link.from);
  Result<Engine*> dst = Open(link.owner, link.to);
  if (!src.ok() || !dst.ok()) return kIdleWaitMs;
  bool more_to_read = false;
  // Nothing committed in the source since the last read, and nothing waiting: an idle link
  // costs this look, not a read of the log.
  Result<uint64_t> end = src.value()->ReplicationLogEnd(link.table);
  const bool nothing_new = end.ok() && end.value() <= link.read_position;
  if (nothing_new && link.pending.empty()) return kIdleWaitMs;
  if (!nothing_new && link.pending.size() < kMaxPending) {
    Result<ReplicationLogPage> page =
        src.value()->ReadReplicationLog(link.table, link.read_position, kReadBatch);
    if (!page.ok()) {
      // The table went, or is no longer global, in the source (DeleteTable there): the link
      // ends with it, and the Region leaves the others' lists.
      if (page.error().code() == ErrorCode::kResourceNotFound ||
          page.error().code() == ErrorCode::kValidation) {
        link.dropped = true;
        Forget(link.owner, link.table, link.from, link.to);
      }
      return kIdleWaitMs;
    }
    more_to_read = page.value().changes.size() >= kReadBatch;
    for (ReplicatedChange& c : page.value().changes) {
      if (!c.replicated) link.pending.push_back(std::move(c));
    }
    link.read_position = std::max(link.read_position, page.value().next);
  }
  const uint64_t now = Now();
  uint64_t wait_ms = more_to_read ? 0 : kIdleWaitMs;
  size_t done = 0;
  std::vector<uint32_t> lags;
  // Due changes go in runs of up to kApplyRun, one write each (ApplyReplicatedBatch).
  std::vector<ReplicatedChange> run;
  while (!link.pending.empty() && done < kReadBatch) {
    run.clear();
    for (const ReplicatedChange& c : link.pending) {
      const uint64_t due = c.commit_time_ms + static_cast<uint64_t>(options_.delay_ms);
      if (due > now) {
        wait_ms = std::min(wait_ms, due - now);
        break;
      }
      run.push_back(c);
      if (run.size() == kApplyRun) break;
    }
    if (run.empty()) break;
    Result<size_t> taken = dst.value()->ApplyReplicatedBatch(link.table, run);
    if (!taken.ok()) {
      const ErrorCode code = taken.error().code();
      if (code == ErrorCode::kResourceNotFound) {
        link.dropped = true;  // the replica went
        return kIdleWaitMs;
      }
      // A transaction holds the item (try again at once), or a storage error (later).
      if (code != ErrorCode::kTransactionConflict) {
        LogError("applying changes of " + link.table + " from " + link.from + " in " + link.to +
                 ": " + taken.error().message());
      }
      wait_ms = code == ErrorCode::kTransactionConflict ? 1 : 100;
      break;
    }
    // The lag as the changes are applied (Now() again: applying takes time too).
    const uint64_t applied_at = Now();
    for (size_t i = 0; i < taken.value(); ++i) {
      const uint64_t commit = link.pending.front().commit_time_ms;
      link.last_lag_ms = applied_at > commit ? applied_at - commit : 0;
      lags.push_back(static_cast<uint32_t>(std::min<uint64_t>(link.last_lag_ms, UINT32_MAX)));
      link.pending.pop_front();
    }
    link.applied.fetch_add(taken.value(), std::memory_order_relaxed);
    done += taken.value();
  }
  if (done >= kReadBatch && !link.pending.empty()) wait_ms = 0;  // the other links' turn first
  link.backlog = link.pending.size();
  if (!lags.empty()) link.RecordLags(lags);
  const uint64_t position = link.AppliedPosition();
  if (position > link.saved_position && now - link.last_save_ms >= kCheckpointEveryMs) {
    if (src.value()->SaveReplicationCheckpoint(link.table, link.to, position).ok()) {
      link.saved_position = position;
      link.last_save_ms = now;
    }
  }
  return wait_ms;
}

void Replicator::FollowUpdateTable(const RequestContext& ctx, const TableDescription& table,
                                   const UpdateTableRequest& req) {
  // What the service keeps in step across replicas: capacity mode and on-demand limits,
  // indexes. Deletion protection, the table class (overridable per replica), encryption and
  // the stream (which a global table keeps) stay the Region's own.
  UpdateTableRequest same;
  same.table_name = table.table_name;
  same.attribute_definitions = req.attribute_definitions;
  same.billing_mode = req.billing_mode;
  same.provisioned_throughput = req.provisioned_throughput;
  same.on_demand_throughput = req.on_demand_throughput;
  same.warm_throughput = req.warm_throughput;
  same.global_secondary_index_updates = req.global_secondary_index_updates;
  same.vector_index_updates = req.vector_index_updates;
  if (!same.billing_mode && !same.provisioned_throughput && !same.on_demand_throughput &&
      !same.warm_throughput && same.global_secondary_index_updates.empty() &&
      same.vector_index_updates.empty()) {
    return;
  }
  const std::string owner = owner_of_(ctx);
  for (const ReplicaDescription& r : table.replicas) {
    Result<Engine*> e = Open(owner, r.region_name);
    RequestContext there = ctx;
    there.region = r.region_name;
    Result<TableDescription> done =
        e.ok() ? e.value()->UpdateTable(there, same) : Result<TableDescription>(e.error());
    if (!done.ok()) {
      LogError("UpdateTable of " + table.table_name + " not followed in " + r.region_name + ": " +
               done.error().message());
    }
  }
}

void Replicator::FollowTimeToLive(const RequestContext& ctx, const TableDescription& table,
                                  const TimeToLiveSpecification& spec) {
  const std::string owner = owner_of_(ctx);
  for (const ReplicaDescription& r : table.replicas) {
    Result<Engine*> e = Open(owner, r.region_name);
    Result<TimeToLiveSpecification> done = e.ok()
                                               ? e.value()->UpdateTimeToLive(table.table_name, spec)
                                               : Result<TimeToLiveSpecification>(e.error());
    if (!done.ok()) {
      LogError("UpdateTimeToLive of " + table.table_name + " not followed in " + r.region_name +
               ": " + done.error().message());
    }
  }
}

Result<Engine*> Replicator::EngineIn(const RequestContext& ctx, const std::string& region) {
  return Open(owner_of_(ctx), region);
}

void Replicator::SetRegionOffline(const std::string& region, bool offline) {
  std::lock_guard lock(mu_);
  if (offline) {
    offline_.insert(region);
  } else {
    offline_.erase(region);
  }
  any_offline_ = !offline_.empty();
  cv_.notify_all();
}

bool Replicator::RegionOffline(std::string_view region) const {
  if (!any_offline_.load(std::memory_order_relaxed)) return false;
  std::lock_guard lock(mu_);
  return offline_.find(region) != offline_.end();
}

std::vector<std::string> Replicator::OfflineRegions() const {
  std::lock_guard lock(mu_);
  return {offline_.begin(), offline_.end()};
}

std::vector<LinkStatus> Replicator::Links() const {
  std::lock_guard lock(mu_);
  std::vector<LinkStatus> out;
  for (const auto& [_, link] : links_) {
    LinkStatus s;
    s.owner = link->owner;
    s.table = link->table;
    s.from = link->from;
    s.to = link->to;
    s.applied = link->applied.load();
    s.backlog = link->backlog.load();
    s.last_lag_ms = link->last_lag_ms.load();
    std::vector<uint32_t> lags;
    {
      std::lock_guard lags_lock(link->lags_mu);
      lags = link->lags;
    }
    if (!lags.empty()) {
      std::sort(lags.begin(), lags.end());
      s.lag_p50_ms = lags[lags.size() / 2];
      s.lag_p99_ms = lags[std::min(lags.size() - 1, lags.size() * 99 / 100)];
      s.lag_max_ms = lags.back();
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string RenderMetricsText(const std::vector<LinkStatus>& links) {
  if (links.empty()) return "";
  std::string out;
  auto family = [&](const char* name, const char* type, const char* help,
                    uint64_t LinkStatus::*field) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const LinkStatus& l : links) {
      out += std::string(name) + "{owner=\"" + l.owner + "\",table=\"" + l.table + "\",from=\"" +
             l.from + "\",to=\"" + l.to + "\"} " + std::to_string(l.*field) + "\n";
    }
  };
  family("ddb_replication_applied_total", "counter",
         "Changes of a global table applied from one Region's replica to another's.",
         &LinkStatus::applied);
  family("ddb_replication_backlog", "gauge",
         "Changes read from the source Region and not yet applied (waiting for the delay).",
         &LinkStatus::backlog);
  family("ddb_replication_lag_milliseconds", "gauge",
         "Commit to apply of the last change replicated.", &LinkStatus::last_lag_ms);
  family("ddb_replication_lag_p99_milliseconds", "gauge",
         "Commit to apply, 99th percentile over the link's last 4096 changes.",
         &LinkStatus::lag_p99_ms);
  family("ddb_replication_lag_max_milliseconds", "gauge",
         "Commit to apply, the most over the link's last 4096 changes.", &LinkStatus::lag_max_ms);
  return out;
}

}  // namespace ddb::replication
