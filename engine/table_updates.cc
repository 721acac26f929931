// UpdateTable: throughput, billing mode, streams, table class, deletion protection, and
// GlobalSecondaryIndexUpdates (create with an online backfill, update, delete).
//
// Adding a GSI to a live table: the catalog first gains the index (CREATING, backfilling);
// from then on every write maintains the item's entry in it too (Mutate re-reads the catalog
// under the item's lock). The backfill then walks the table and writes each item's entry
// under that same lock, so an entry is never older than the item. When the walk ends the
// index becomes ACTIVE.
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <tuple>

#include "engine/capacity/throughput_quotas.h"
#include "engine/engine_impl.h"
#include "engine/table_validation.h"
#include "util/uuid.h"

namespace ddb {
namespace {

const std::string& kInvalid = kInvalidParameters;
constexpr size_t kBackfillChunk = 256;

// ValidateUpdate's steps.

// Something to change. Errors: kValidation.
Status CheckSomethingToUpdate(const UpdateTableRequest& req) {
  if (!req.billing_mode && !req.provisioned_throughput && !req.stream_specification &&
      req.global_secondary_index_updates.empty() && req.vector_index_updates.empty() &&
      !req.deletion_protection_enabled && !req.on_demand_throughput && !req.table_class &&
      !req.warm_throughput && !req.sse_specification) {
    return Error::Validation(
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, "
        "MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, "
        "DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is "
        "required");
  }
  return Status::Ok();
}

// The billing mode against the throughput given, and a throughput that changes something.
// Errors: kValidation.
Status CheckThroughputUpdate(const UpdateTableRequest& req, const TableDescription& d) {
  BillingMode mode = req.billing_mode.value_or(d.billing_mode);
  if (mode == BillingMode::kPayPerRequest && req.provisioned_throughput) {
    return Error::Validation(kInvalid +
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
  }
  if (req.billing_mode == BillingMode::kProvisioned && !req.provisioned_throughput) {
    return Error::Validation(kInvalid +
                             "ProvisionedThroughput must be specified when BillingMode is "
                             "PROVISIONED");
  }
  if (req.provisioned_throughput && d.billing_mode == BillingMode::kProvisioned &&
      mode == BillingMode::kProvisioned &&
      req.provisioned_throughput->read_capacity_units ==
          d.provisioned_throughput.read_capacity_units &&
      req.provisioned_throughput->write_capacity_units ==
          d.provisioned_throughput.write_capacity_units) {
    const std::string reads = std::to_string(d.provisioned_throughput.read_capacity_units);
    const std::string writes = std::to_string(d.provisioned_throughput.write_capacity_units);
    return Error::Validation(
        "The provisioned throughput for the table will not change. The requested value equals "
        "the current value. Current ReadCapacityUnits provisioned for the table: " +
        reads + ". Requested ReadCapacityUnits: " + reads +
        ". Current WriteCapacityUnits provisioned for the table: " + writes +
        ". Requested WriteCapacityUnits: " + writes +
        ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
        "higher limits.");
  }
  return Status::Ok();
}

// Whether an index of the table other than one `req` deletes is being created or deleted
// (deleting an index during its own backfill cancels it: the API reference, Backfilling).
bool OtherIndexChangeInProgress(const UpdateTableRequest& req, const TableDescription& d) {
  std::set<std::string> deleted;
  for (const auto& u : req.global_secondary_index_updates) {
    if (u.kind == GlobalSecondaryIndexUpdate::Kind::kDelete) deleted.insert(u.index.index_name);
  }
  for (const auto& u : req.vector_index_updates) {
    if (u.kind == VectorIndexUpdate::Kind::kDelete) deleted.insert(u.index.index_name);
  }
  auto busy = [&](IndexStatus s, const std::string& name) {
    return (s == IndexStatus::kCreating && !deleted.count(name)) || s == IndexStatus::kDeleting;
  };
  return std::any_of(d.global_secondary_indexes.begin(), d.global_secondary_indexes.end(),
                     [&](const auto& g) { return busy(g.index_status, g.index_name); }) ||
         std::any_of(d.vector_indexes.begin(), d.vector_indexes.end(),
                     [&](const auto& v) { return busy(v.index_status, v.index_name); });
}

// GlobalSecondaryIndexUpdates: one per index; creating or deleting an index is an online
// operation: one per request, and not together with table throughput, stream, table class
// or deletion-protection changes. Errors: kValidation, kLimitExceeded.
Status CheckIndexUpdates(const UpdateTableRequest& req, const TableDescription& d) {
  std::set<std::string> seen;
  for (const auto& u : req.global_secondary_index_updates) {
    if (!seen.insert(u.index.index_name).second) {
      return Error::Validation(kInvalid +
                               "Only one global secondary index update per index is allowed "
                               "simultaneously. Index: " +
                               u.index.index_name);
    }
  }
  // Vector indexes share the limit: "Two Create actions in a single UpdateTable fail with
  // LimitExceededException: ... per table" (AWS's DynamoDB skill for coding assistants,
  // references/vector-search.md, which quotes the service's errors verbatim).
  size_t online = req.vector_index_updates.size();
  for (const auto& u : req.global_secondary_index_updates) {
    if (u.kind != GlobalSecondaryIndexUpdate::Kind::kUpdate) ++online;
  }
  // ... and not while an earlier request's index is still being created or deleted (what
  // back-to-back CreateIndex calls meet in the service: architect/architect#334).
  const bool in_progress = OtherIndexChangeInProgress(req, d);
  if (online > 1 || (online == 1 && in_progress)) {
    return Error{ErrorCode::kLimitExceeded,
                 "Subscriber limit exceeded: Only 1 online index can be created or deleted "
                 "simultaneously per table"};
  }
  if (online == 0) return Status::Ok();
  if (req.provisioned_throughput) {
    return Error::Validation("You cannot create or delete index while updating table IOPS");
  }
  if (req.stream_specification) {
    return Error::Validation("You cannot create or delete index while changing stream status");
  }
  if (req.table_class) {
    return Error::Validation("TableClass modification must be the only operation in the request");
  }
  if (req.deletion_protection_enabled) {
    return Error::Validation(
        "DeletionProtection modification must be the only operation in the request");
  }
  if (req.warm_throughput) {
    return Error::Validation(
        "Create global secondary index cannot be specified when updating WarmThroughput");
  }
  if (req.sse_specification) {
    return Error::Validation(
        "Server-Side Encryption modification must be the only operation in the request");
  }
  return Status::Ok();
}

Status ValidateUpdate(const UpdateTableRequest& req, const TableDescription& d) {
  DDB_RETURN_IF_ERROR(CheckSomethingToUpdate(req));
  DDB_RETURN_IF_ERROR(CheckThroughputUpdate(req, d));
  return CheckIndexUpdates(req, d);
}

// Enabling or disabling the stream. "new_label" labels a stream enabled now.
Status ApplyStreamUpdate(const StreamSpecification& spec, const std::string& new_label,
                         TableDescription* d) {
  // Messages as the service words them (tests/wire/test_streams.py).
  if (spec.stream_enabled) {
    if (d->stream_specification) {
      return Error::Validation("Table already has an enabled stream: TableName: " + d->table_name);
    }
    if (!spec.stream_view_type) {
      return Error::Validation(kInvalid +
                               "If stream is being enabled then UpdateViewType is required");
    }
    d->stream_specification = spec;
    d->latest_stream_label = new_label;
    return Status::Ok();
  }
  if (spec.stream_view_type) {
    return Error::Validation(kInvalid +
                             "If stream is being disabled, then UpdateViewType must not be "
                             "specified");
  }
  if (!d->stream_specification) {
    return Error::Validation("Table has no stream to disable: TableName: " + d->table_name);
  }
  if (!d->replicas.empty()) {
    return Error::Validation("Disabling Stream is not allowed for a Global Table replica.");
  }
  d->stream_specification.reset();  // LatestStreamArn/Label linger, as in the service
  return Status::Ok();
}

// Applies the request to a copy of the description (inside Catalog::Update).
// Billing mode, provisioned and on-demand throughput, and the warm throughput, which only
// grows: it follows the highest capacity the table was provisioned with or became on demand
// with, and can be raised (never lowered) explicitly.
Status ApplyCapacityUpdate(const UpdateTableRequest& req, TableDescription* d) {
  const WarmThroughput warm_before = d->EffectiveWarmThroughput();
  if (req.billing_mode == BillingMode::kPayPerRequest &&
      d->billing_mode != BillingMode::kPayPerRequest) {
    d->last_update_to_pay_per_request = static_cast<double>(WallClockMillis()) / 1000.0;
  }
  if (req.billing_mode) d->billing_mode = *req.billing_mode;
  if (d->billing_mode == BillingMode::kPayPerRequest) {
    d->provisioned_throughput = ProvisionedThroughput{};
    d->auto_scaling = TableAutoScaling{};  // on-demand capacity has nothing to scale
    // The GSIs go on demand with the table, as in the service (switching needs no index
    // settings; going back to provisioned needs each GSI's throughput).
    for (SecondaryIndexDefinition& gsi : d->global_secondary_indexes) {
      gsi.provisioned_throughput.reset();
    }
  } else if (req.provisioned_throughput) {
    d->provisioned_throughput = *req.provisioned_throughput;
  }
  if (req.on_demand_throughput) {
    d->on_demand_throughput = MergeOnDemand(d->on_demand_throughput, *req.on_demand_throughput);
  }
  WarmThroughput warm = warm_before;
  const WarmThroughput reached = d->EffectiveWarmThroughput();
  warm.read_units_per_second = std::max(warm.read_units_per_second, reached.read_units_per_second);
  warm.write_units_per_second =
      std::max(warm.write_units_per_second, reached.write_units_per_second);
  if (req.warm_throughput) {
    for (auto [requested, current, unit] :
         {std::tuple{req.warm_throughput->read_units_per_second, &warm.read_units_per_second,
                     "ReadUnitsPerSecond"},
          std::tuple{req.warm_throughput->write_units_per_second, &warm.write_units_per_second,
                     "WriteUnitsPerSecond"}}) {
      if (requested < 0) continue;  // not given: unchanged
      if (requested < *current) {
        return Error::Validation("Requested " + std::string(unit) +
                                 " for WarmThroughput for table is lower than current "
                                 "WarmThroughput, decreasing WarmThroughput is not supported");
      }
      *current = requested;
    }
  }
  d->warm_throughput = warm;
  return Status::Ok();
}

// Streams, encryption, table class and deletion protection.
Status ApplySettingsUpdate(const UpdateTableRequest& req, const std::string& new_label,
                           TableDescription* d) {
  if (req.stream_specification) {
    DDB_RETURN_IF_ERROR(ApplyStreamUpdate(*req.stream_specification, new_label, d));
  }
  if (req.sse_specification) {
    if (req.sse_specification->enabled) {
      d->sse_kms_key = SseKmsKey(*req.sse_specification, util::NewUuid());
    } else if (!d->sse_kms_key) {
      return Error::Validation(kInvalid + "Table is already encrypted by default");
    } else {
      d->sse_kms_key.reset();
    }
  }
  if (req.table_class) {
    d->table_class = req.table_class;
    d->table_class_last_update = static_cast<double>(WallClockMillis()) / 1000.0;
  }
  if (req.deletion_protection_enabled) {
    d->deletion_protection_enabled = *req.deletion_protection_enabled;
  }
  return Status::Ok();
}

Status CreateGsi(const SecondaryIndexDefinition& index, TableDescription* d) {
  auto named = [&](const SecondaryIndexDefinition& i) { return i.index_name == index.index_name; };
  if (std::any_of(d->global_secondary_indexes.begin(), d->global_secondary_indexes.end(), named) ||
      std::any_of(d->local_secondary_indexes.begin(), d->local_secondary_indexes.end(), named)) {
    return Error::Validation("Attempting to create an index which already exists");
  }
  if (d->global_secondary_indexes.size() >= kMaxGlobalIndexes) {
    return Error{ErrorCode::kLimitExceeded,
                 "Subscriber limit exceeded: Number of global secondary indexes exceeds "
                 "per-table limit of " +
                     std::to_string(kMaxGlobalIndexes)};
  }
  SecondaryIndexDefinition def = index;
  if (def.on_demand_throughput) {
    def.on_demand_throughput = MergeOnDemand(std::nullopt, *def.on_demand_throughput);
  }
  def.index_status = IndexStatus::kCreating;
  def.backfilling = true;
  DDB_RETURN_IF_ERROR(CheckIndexThroughput(d->billing_mode, def));
  d->global_secondary_indexes.push_back(std::move(def));
  return Status::Ok();
}

// A GSI's new provisioned or on-demand throughput.
Status UpdateGsi(const SecondaryIndexDefinition& update, SecondaryIndexDefinition* gsi) {
  if (update.provisioned_throughput) {
    const ProvisionedThroughput& want = *update.provisioned_throughput;
    if (gsi->provisioned_throughput &&
        gsi->provisioned_throughput->read_capacity_units == want.read_capacity_units &&
        gsi->provisioned_throughput->write_capacity_units == want.write_capacity_units) {
      const std::string& name = gsi->index_name;
      const std::string reads = std::to_string(want.read_capacity_units);
      const std::string writes = std::to_string(want.write_capacity_units);
      return Error::Validation(
          "The provisioned throughput for the index " + name +
          " will not change. The requested value equals the current value. Current "
          "ReadCapacityUnits provisioned for index " +
          name + ": " + reads + ". Requested ReadCapacityUnits: " + reads +
          ". Current WriteCapacityUnits provisioned for index " + name + ": " + writes +
          ". Requested WriteCapacityUnits: " + writes +
          ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to "
          "request higher limits.");
    }
    gsi->provisioned_throughput = update.provisioned_throughput;
  }
  if (update.on_demand_throughput) {
    gsi->on_demand_throughput =
        MergeOnDemand(gsi->on_demand_throughput, *update.on_demand_throughput);
  }
  return Status::Ok();
}

// One entry of VectorIndexUpdates: a new index starts CREATING and Backfilling (the
// backfill, EngineImpl::BackfillVectorIndex, makes it ACTIVE); a deleted one goes at once
// (UpdateTable's answer shows it DELETING). Messages as the GSIs' (guessed for vector
// indexes: the service's are not published).
Status ApplyVectorUpdate(const VectorIndexUpdate& u, TableDescription* d) {
  auto& list = d->vector_indexes;
  auto it = std::find_if(list.begin(), list.end(), [&](const VectorIndexDefinition& v) {
    return v.index_name == u.index.index_name;
  });
  if (u.kind == VectorIndexUpdate::Kind::kCreate) {
    if (it != list.end()) {
      return Error::Validation(
          kInvalid + "Attempting to create an index which already exists: " + u.index.index_name);
    }
    VectorIndexDefinition def = u.index;
    def.index_status = IndexStatus::kCreating;
    def.backfilling = true;
    def.reports_backfilling = true;
    list.push_back(std::move(def));
    return Status::Ok();
  }
  if (it == list.end()) {
    return Error::NotFound("Requested resource not found: Index: " + u.index.index_name +
                           " not found");
  }
  list.erase(it);
  return Status::Ok();
}

// One entry of GlobalSecondaryIndexUpdates.
// `hold_deletes`: a deleted index stays in the description, DELETING, until
// EngineImpl::RemoveDeletingIndex (EngineOptions::index_status_hold_ms).
Status ApplyGsiUpdate(const GlobalSecondaryIndexUpdate& u, bool hold_deletes, TableDescription* d) {
  if (u.kind == GlobalSecondaryIndexUpdate::Kind::kCreate) return CreateGsi(u.index, d);
  auto& gsis = d->global_secondary_indexes;
  auto it = std::find_if(gsis.begin(), gsis.end(), [&](const SecondaryIndexDefinition& g) {
    return g.index_name == u.index.index_name;
  });
  if (it == gsis.end() || it->index_status == IndexStatus::kDeleting) {
    return Error::NotFound("Requested resource not found: Index: " + u.index.index_name +
                           " not found");
  }
  if (u.kind == GlobalSecondaryIndexUpdate::Kind::kUpdate) return UpdateGsi(u.index, &*it);
  std::erase_if(d->auto_scaling.indexes, [&](const TableAutoScaling::Index& i) {
    return i.index_name == u.index.index_name;
  });
  if (hold_deletes) {
    it->index_status = IndexStatus::kDeleting;
    it->backfilling = false;
  } else {
    gsis.erase(it);
  }
  return Status::Ok();
}

// New AttributeDefinitions add what is not defined yet (an existing attribute keeps its
// type, as in the service); afterwards only key attributes stay defined, so a deleted
// index's keys and unused new definitions go.
void AddAttributeDefinitions(const std::vector<AttributeDefinition>& defs, TableDescription* d) {
  for (const auto& def : defs) {
    bool known = std::any_of(
        d->attribute_definitions.begin(), d->attribute_definitions.end(),
        [&](const AttributeDefinition& e) { return e.attribute_name == def.attribute_name; });
    if (!known) d->attribute_definitions.push_back(def);
  }
}

// "Schema:[SchemaElement: key{xyz:S:HASH}]", as the service prints a key schema, with the
// attribute types taken from `type_of`.
template <typename TypeOf>
std::string SchemaText(const std::vector<KeySchemaElement>& keys, TypeOf type_of) {
  std::string out = "Schema:[";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ", ";
    out += "SchemaElement: key{" + keys[i].attribute_name + ":" +
           std::string(ScalarTypeName(type_of(keys[i].attribute_name))) + ":" +
           (keys[i].key_type == KeyType::kHash ? "HASH" : "RANGE") + "}";
  }
  return out + "]";
}

// A new GSI may not give a key attribute of the table or of an existing index another type.
Status CheckNoRedefinition(const UpdateTableRequest& req, const TableDescription& d) {
  auto new_type = [&](const std::string& name) {
    for (const auto& a : req.attribute_definitions) {
      if (a.attribute_name == name) return a.attribute_type;
    }
    return d.AttributeTypeOf(name);
  };
  for (const auto& u : req.global_secondary_index_updates) {
    if (u.kind != GlobalSecondaryIndexUpdate::Kind::kCreate) continue;
    for (const auto& k : u.index.key_schema) {
      const ScalarType wanted = new_type(k.attribute_name);
      const std::vector<KeySchemaElement>* existing = nullptr;
      if (std::any_of(d.key_schema.begin(), d.key_schema.end(), [&](const KeySchemaElement& e) {
            return e.attribute_name == k.attribute_name;
          }))
        existing = &d.key_schema;
      for (const auto* indexes : {&d.local_secondary_indexes, &d.global_secondary_indexes}) {
        for (const auto& idx : *indexes) {
          for (const auto& e : idx.key_schema) {
            if (!existing && e.attribute_name == k.attribute_name) existing = &idx.key_schema;
          }
        }
      }
      if (!existing || d.AttributeTypeOf(k.attribute_name) == wanted) continue;
      return Error::Validation(
          "One or more parameter values were invalid: Attributes cannot be redefined. Please "
          "check that your attribute has the same type as previously defined. Existing schema: " +
          SchemaText(*existing, [&](const std::string& n) { return d.AttributeTypeOf(n); }) +
          " New schema: " + SchemaText(u.index.key_schema, new_type));
    }
  }
  return Status::Ok();
}

void DropUnusedAttributeDefinitions(TableDescription* d) {
  std::set<std::string> keys;
  for (const auto& k : d->key_schema) keys.insert(k.attribute_name);
  for (const auto* indexes : {&d->local_secondary_indexes, &d->global_secondary_indexes}) {
    for (const auto& idx : *indexes) {
      for (const auto& k : idx.key_schema) keys.insert(k.attribute_name);
    }
  }
  for (const auto& idx : d->vector_indexes) {
    for (const auto& e : idx.search_schema) keys.insert(e.attribute_name);
  }
  std::erase_if(d->attribute_definitions,
                [&](const AttributeDefinition& a) { return !keys.count(a.attribute_name); });
}

// The resulting schema obeys CreateTable's rules (keys defined, definitions used, ...).
Status ValidateAsCreated(const TableDescription& d) {
  CreateTableRequest as_create;
  as_create.table_name = d.table_name;
  as_create.attribute_definitions = d.attribute_definitions;
  as_create.key_schema = d.key_schema;
  as_create.local_secondary_indexes = d.local_secondary_indexes;
  as_create.global_secondary_indexes = d.global_secondary_indexes;
  as_create.vector_indexes = d.vector_indexes;
  as_create.billing_mode = d.billing_mode;
  if (d.billing_mode == BillingMode::kProvisioned) {
    as_create.provisioned_throughput = d.provisioned_throughput;
  }
  return ValidateCreateTable(as_create);
}

Status ApplyUpdate(const UpdateTableRequest& req, const std::string& new_label, bool hold_deletes,
                   TableDescription* d) {
  DDB_RETURN_IF_ERROR(ApplyCapacityUpdate(req, d));
  DDB_RETURN_IF_ERROR(ApplySettingsUpdate(req, new_label, d));
  DDB_RETURN_IF_ERROR(CheckNewIndexKeysDefined(req));
  DDB_RETURN_IF_ERROR(CheckNoRedefinition(req, *d));
  AddAttributeDefinitions(req.attribute_definitions, d);
  for (const auto& u : req.global_secondary_index_updates)
    DDB_RETURN_IF_ERROR(ApplyGsiUpdate(u, hold_deletes, d));
  for (const auto& u : req.vector_index_updates) DDB_RETURN_IF_ERROR(ApplyVectorUpdate(u, d));
  DropUnusedAttributeDefinitions(d);
  return ValidateAsCreated(*d);
}

}  // namespace

namespace {

// UpdateTable's steps once the new description is written.

// The stream follows the description: closed when disabled, a new one opened when enabled
// (holding no record below `stream_start`).
Status FollowStreamChange(EngineImpl& impl, const std::string& table_name,
                          const TableDescription& was, const TableInfo& after,
                          uint64_t stream_start) {
  const TableDescription& now = after.description;
  if (was.stream_specification && !now.stream_specification && was.latest_stream_label) {
    DDB_RETURN_IF_ERROR(impl.CloseStream(table_name, *was.latest_stream_label));
  }
  if (now.stream_specification && now.latest_stream_label != was.latest_stream_label) {
    DDB_RETURN_IF_ERROR(impl.OpenStream(after, stream_start));
  }
  return Status::Ok();
}

// The counters, entries and simulated partitions of the indexes the update removed (a
// partition model kept for a deleted index went on in /metrics beside a new index of its
// name: two series with the same labels).
Status RemoveDroppedIndexes(EngineImpl& impl, const TableInfo& before, const TableInfo& after) {
  for (const IndexSchema& index : before.indexes) {
    if (after.FindIndex(index.name)) continue;
    Storage::Batch batch(*impl.storage);
    batch.DeleteStats(StatsKey(index.index_id));
    DDB_RETURN_IF_ERROR(impl.storage->Write(batch));
    DDB_RETURN_IF_ERROR(impl.storage->DeleteRange(Cf::kIndexes, TablePrefix(index.index_id),
                                                  TablePrefixEnd(index.index_id)));
    impl.partitions->Drop(index.index_id);
  }
  return Status::Ok();
}

// The background work of the index updates: a new GSI's backfill, a deleted GSI's hold
// (index_status_hold_ms), a new vector index registered (empty, so that writes from here on
// reach it) and backfilled, a deleted vector index dropped.
void StartIndexJobs(EngineImpl& impl, const UpdateTableRequest& req, const TableInfo& after) {
  for (const auto& u : req.global_secondary_index_updates) {
    std::lock_guard lock(impl.backfill_mu);
    if (u.kind == GlobalSecondaryIndexUpdate::Kind::kCreate) {
      const IndexSchema* index = after.FindIndex(u.index.index_name);
      if (index == nullptr) continue;  // not reached: the update added it
      impl.backfills.emplace_back(&EngineImpl::Backfill, &impl, after.id, req.table_name,
                                  u.index.index_name, index->index_id);
    } else if (u.kind == GlobalSecondaryIndexUpdate::Kind::kDelete &&
               impl.options.index_status_hold_ms > 0) {
      impl.backfills.emplace_back(&EngineImpl::RemoveDeletingIndex, &impl, req.table_name,
                                  u.index.index_name, /*hold=*/true);
    }
  }
  for (const auto& u : req.vector_index_updates) {
    if (u.kind == VectorIndexUpdate::Kind::kCreate) {
      for (const auto& def : after.description.vector_indexes) {
        if (def.index_name == u.index.index_name) impl.vectors->Create(after.id, def);
      }
      std::lock_guard lock(impl.backfill_mu);
      impl.backfills.emplace_back(&EngineImpl::BackfillVectorIndex, &impl, after.id, req.table_name,
                                  u.index.index_name);
    } else {
      impl.vectors->Drop(after.id, u.index.index_name);
    }
  }
}

// UpdateTable's answer shows the indexes it deletes as DELETING (GSIs already are, in the
// description, while held).
void DescribeDeletedIndexes(const UpdateTableRequest& req, const TableDescription& was, bool held,
                            TableDescription* d) {
  for (const auto& u : req.vector_index_updates) {
    if (u.kind != VectorIndexUpdate::Kind::kDelete) continue;
    for (const auto& v : was.vector_indexes) {
      if (v.index_name != u.index.index_name) continue;
      VectorIndexDefinition gone = v;
      gone.index_status = IndexStatus::kDeleting;
      gone.backfilling = false;
      d->vector_indexes.push_back(std::move(gone));
    }
  }
  if (held) return;
  for (const auto& u : req.global_secondary_index_updates) {
    if (u.kind != GlobalSecondaryIndexUpdate::Kind::kDelete) continue;
    SecondaryIndexDefinition gone = u.index;
    for (const auto& g : was.global_secondary_indexes) {
      if (g.index_name == u.index.index_name) gone = g;
    }
    gone.index_status = IndexStatus::kDeleting;
    d->global_secondary_indexes.push_back(std::move(gone));
  }
}

}  // namespace

Result<TableDescription> Engine::UpdateTable(const RequestContext& ctx,
                                             const UpdateTableRequest& req) {
  const std::string table_name(TableNameOf(req.table_name));
  if (std::optional<TableStatus> held = impl_->table_holds->StatusOf(table_name)) {
    return TableHolds::InUse(*held, table_name);
  }
  DDB_ASSIGN_OR_RETURN(auto before, impl_->FindTable(req.table_name));
  // An index change waits a little for another index's to end: on ddb a small table's
  // backfill ends within milliseconds, and a client that does not wait for ACTIVE would
  // otherwise meet the one-at-a-time limit only when the machine is slow. Bounded: 1 s, in
  // 5 ms polls (the limit answers after it, as for a large backfill or a held status).
  if (!req.global_secondary_index_updates.empty() || !req.vector_index_updates.empty()) {
    for (int poll = 0; poll < 200 && OtherIndexChangeInProgress(req, before->description); ++poll) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      DDB_ASSIGN_OR_RETURN(before, impl_->FindTable(req.table_name));
    }
  }
  DDB_RETURN_IF_ERROR(ValidateUpdate(req, before->description));
  DDB_RETURN_IF_ERROR(CheckThroughputQuotas(req, ctx.region));
  std::string new_label = impl_->streams->NewLabel(req.table_name, impl_->NowMs());
  // A stream enabled now holds no record below this sequence (writers that see the new
  // description take their sequences later).
  uint64_t stream_start = impl_->sequencer->Peek();
  DDB_ASSIGN_OR_RETURN(auto after, impl_->catalog->Update(req.table_name, [&](TableDescription* d) {
    return ApplyUpdate(req, new_label, impl_->options.index_status_hold_ms > 0, d);
  }));
  DDB_RETURN_IF_ERROR(
      FollowStreamChange(*impl_, req.table_name, before->description, *after, stream_start));
  DDB_RETURN_IF_ERROR(RemoveDroppedIndexes(*impl_, *before, *after));
  StartIndexJobs(*impl_, req, *after);
  impl_->table_holds->Hold(table_name, TableStatus::kUpdating);
  TableDescription d = impl_->Describe(ctx, *after);
  d.table_status = TableStatus::kUpdating;
  DescribeDeletedIndexes(req, before->description, impl_->options.index_status_hold_ms > 0, &d);
  return d;
}

void EngineImpl::RemoveDeletingIndex(std::string table_name, std::string index_name, bool hold) {
  if (hold && !HoldIndexStatus()) return;  // still DELETING on disk: removed at the next open
  Result<std::shared_ptr<const TableInfo>> updated =
      catalog->Update(table_name, [&](TableDescription* d) {
        std::erase_if(d->global_secondary_indexes, [&](const SecondaryIndexDefinition& g) {
          return g.index_name == index_name && g.index_status == IndexStatus::kDeleting;
        });
        DropUnusedAttributeDefinitions(d);  // its keys' definitions go with it
        return Status::Ok();
      });
  // Not found: the table went meanwhile, and the index with it.
  if (!updated.ok() && updated.error().code() != ErrorCode::kResourceNotFound) {
    LogIfFailed(updated.status(), "cannot remove DELETING GSI " + table_name + "/" + index_name +
                                      " (removed at the next open)");
  }
}

void EngineImpl::Backfill(uint32_t table_id, std::string table_name, std::string index_name,
                          uint32_t index_id) {
  if (options.index_status_hold_ms > 0 && !HoldIndexStatus()) return;
  // A storage error stops the backfill; the index stays CREATING until the next open, which
  // starts it over.
  const std::string stopped =
      "GSI backfill of " + table_name + "/" + index_name + " stopped (redone at the next open)";
  std::string next = TablePrefix(table_id);
  const std::string end = TablePrefixEnd(table_id);
  while (!stopping) {
    std::shared_ptr<const TableInfo> table = catalog->FindById(table_id);
    const IndexSchema* index = table ? table->FindIndex(index_name) : nullptr;
    // The table or index deleted meanwhile (another index of the same name has its own).
    if (!index || index->index_id != index_id) return;
    std::vector<std::string> keys;
    Status s = storage->ForEach(Cf::kItems, next, end, [&](std::string_view key, std::string_view) {
      keys.emplace_back(key);
      return keys.size() < kBackfillChunk;
    });
    if (!s.ok()) return LogIfFailed(s, stopped);
    for (const std::string& key : keys) {
      std::lock_guard lock(StripeFor(key));
      Result<std::optional<Item>> item = ReadItem(key);
      LogIfFailed(item.status(), "GSI backfill of " + table_name + "/" + index_name +
                                     " skipped an item it cannot read");
      if (!item.ok() || !item.value()) continue;
      std::optional<IndexEntryData> entry = IndexEntry(*index, *item.value());
      if (!entry) continue;
      Storage::Batch batch(*storage);
      if (GsisInline()) {
        // Writers keep this index exact meanwhile (AddIndexUpdates looks their old entry
        // up), so the walk counts only the entries it adds.
        Result<std::optional<std::string>> found = storage->Get(Cf::kIndexes, entry->key);
        if (!found.ok()) return LogIfFailed(found.status(), stopped);
        if (found.value()) continue;
        batch.AddToStats(StatsKey(index->index_id), 1, entry->size);
      }
      batch.Put(Cf::kIndexes, entry->key, entry->value);
      // Not synced: the synced catalog write that marks the index ACTIVE covers it.
      if (Status w = storage->Write(batch, WriteSync::kDeferred); !w.ok()) {
        return LogIfFailed(w, stopped);
      }
    }
    if (keys.size() < kBackfillChunk) break;
    next = keys.back();
    next.push_back('\0');
  }
  if (stopping) return;  // resumes on the next start (see Open)
  if (GsisInline()) return MarkBackfilled(table_name, index_name, index_id);
  // Recount once the applier has applied every change logged before the walk ended: those
  // changes' deltas assumed entries this walk may already have written. Later changes find
  // the entries as their old images left them, so their deltas are exact again.
  // "Before the walk ended" is every sequence taken by then, not SafePoint(): a write the
  // walk saw has ended, but a lower sequence of another item may still be in flight, and
  // SafePoint() stops below it. Such a write's change, applied after the recount, would
  // undo an entry the walk never wrote (one item miscounted, seen in CI).
  // Each wait is bounded by the simulated lag plus a second: one that runs out means the
  // applier made no progress (counted in ddb_gsi_wait_timeouts_total), and the walk waits on.
  uint64_t logged = sequencer->Peek() - 1;
  while (!stopping && !gsi_applier->WaitApplied(logged, options.gsi_propagation_delay_ms + 1000)) {
  }
  if (stopping) return;  // resumes from scratch on the next start (see Open)
  std::shared_ptr<const TableInfo> table = catalog->FindById(table_id);
  const IndexSchema* index = table ? table->FindIndex(index_name) : nullptr;
  if (!index || index->index_id != index_id) return;
  std::lock_guard applier_still(gsi_applier->apply_mutex());
  int64_t count = 0, size = 0;
  Status s =
      storage->ForEach(Cf::kIndexes, TablePrefix(index->index_id), TablePrefixEnd(index->index_id),
                       [&](std::string_view, std::string_view value) {
                         Item projected;
                         if (DecodeItem(value, &projected)) {
                           ++count;
                           size += static_cast<int64_t>(ItemSize(projected)) + 100;
                         }
                         return true;
                       });
  if (!s.ok()) return LogIfFailed(s, stopped);
  Storage::Batch batch(*storage);
  batch.SetStats(StatsKey(index->index_id), count, size);
  if (Status w = storage->Write(batch, WriteSync::kDeferred); !w.ok()) {
    return LogIfFailed(w, stopped);
  }
  if (options.index_status_hold_ms > 0 && !HoldIndexStatus()) return;
  MarkBackfilled(table_name, index_name, index_id);
}

void EngineImpl::MarkBackfilled(const std::string& table_name, const std::string& index_name,
                                uint32_t index_id) {
  Result<std::shared_ptr<const TableInfo>> updated =
      catalog->Update(table_name, [&](const TableInfo& current, TableDescription* d) {
        const IndexSchema* index = current.FindIndex(index_name);
        if (!index || index->index_id != index_id) return Status::Ok();  // not this one's
        for (auto& g : d->global_secondary_indexes) {
          if (g.index_name == index_name) {
            g.index_status = IndexStatus::kActive;
            g.backfilling = false;
          }
        }
        return Status::Ok();
      });
  // Not found: the table went meanwhile, and the index with it.
  if (!updated.ok() && updated.error().code() != ErrorCode::kResourceNotFound) {
    LogIfFailed(updated.status(), "cannot mark GSI " + table_name + "/" + index_name +
                                      " ACTIVE (backfilled again at the next open)");
  }
}

}  // namespace ddb
