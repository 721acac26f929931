#include "ddb/engine.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <tuple>

#include "ddb/stored_item.h"
#include "engine/capacity/throughput_quotas.h"
#include "engine/capacity/write_capacity.h"
#include "engine/catalog.h"
#include "engine/engine_impl.h"
#include "engine/expression/expression.h"
#include "engine/item_validation.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/storage/storage.h"
#include "engine/storage/store_format.h"
#include "engine/table_validation.h"
#include "util/uuid.h"

namespace ddb {

Engine::Engine(std::unique_ptr<EngineImpl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

namespace {

// Engine::Open's steps, in their order.

// The store: RocksDB opened and its format checked, then what is loaded from it before
// anything runs: the catalog, backups and history, ClientRequestTokens.
Status OpenStore(EngineImpl* impl) {
  const EngineOptions& options = impl->options;
  DDB_ASSIGN_OR_RETURN(impl->storage, Storage::Open(StorageOptions{
                                          .path = options.data_dir,
                                          .in_memory = options.in_memory,
                                          .compact_on_open = options.compact_on_open,
                                          .sync_writes = options.durability == Durability::kFsync,
                                          .logger = options.logger,
                                          .block_cache_bytes = options.block_cache_bytes}));
  DDB_RETURN_IF_ERROR(CheckStoreFormat(impl->storage.get()));
  DDB_ASSIGN_OR_RETURN(impl->catalog, Catalog::Load(impl->storage.get()));
  impl->vectors = std::make_unique<VectorIndexes>();
  DDB_RETURN_IF_ERROR(impl->OpenBackups());
  return impl->request_tokens.Load(impl->storage.get(), impl->NowMs());
}

// Whether any table or stream has a resource-based policy (EngineImpl::policies_seen).
bool AnyResourcePolicy(const Catalog& catalog) {
  for (const std::string& name : catalog.Names()) {
    auto info = catalog.Find(name);
    if (info && (info->description.resource_policy || !info->description.stream_policies.empty())) {
      return true;
    }
  }
  return false;
}

// The change log and the streams: the sequencer continues after the highest sequence on disk
// or already applied. Returns the GSI applier's watermark (the last applied sequence).
Result<uint64_t> OpenChangeLog(EngineImpl* impl) {
  DDB_ASSIGN_OR_RETURN(int64_t watermark, impl->storage->GetCounter(kGsiWatermarkKey));
  // Only records above the watermark are live; bounding the reverse seek there keeps it
  // from walking the tombstones of applied records.
  DDB_ASSIGN_OR_RETURN(
      std::optional<std::string> last_change,
      impl->storage->LastKey(Cf::kChanges, ChangeKey(static_cast<uint64_t>(watermark) + 1)));
  uint64_t last = static_cast<uint64_t>(watermark);
  if (last_change) {
    std::string_view k = *last_change;
    uint64_t seq = 0;
    if (GetFixedBE(&k, 8, &seq)) last = std::max(last, seq);
  }
  DDB_ASSIGN_OR_RETURN(impl->streams, StreamRegistry::Load(impl->storage.get()));
  last = std::max(last, impl->streams->LastSequence());
  DDB_ASSIGN_OR_RETURN(impl->kinesis, KinesisRegistry::Load(impl->storage.get()));
  DDB_ASSIGN_OR_RETURN(uint64_t kinesis_last, impl->kinesis->LastSequence());
  last = std::max(last, kinesis_last);
  impl->sequencer = std::make_unique<ChangeSequencer>(last);
  return static_cast<uint64_t>(watermark);
}

// EngineOptions::s3_dir when it is not given: <data_dir>/s3, or, in memory, a directory
// under the system's temporary directory.
std::string DefaultS3Dir(const EngineOptions& options) {
  return options.in_memory
             ? (std::filesystem::temp_directory_path() / ("ddb-s3-" + std::to_string(::getpid())))
                   .string()
             : (std::filesystem::path(options.data_dir) / "s3").string();
}

// The GSI applier over the change log from `watermark`: its thread runs under simulated GSI
// lag; otherwise GSIs are written with their items, and a backlog left by a run with
// simulated lag (or by a crash during one) is applied now, before the first request.
void StartGsiApplier(EngineImpl* impl, uint64_t watermark) {
  impl->gsi_applier = std::make_unique<GsiApplier>(
      impl->storage.get(), impl->catalog.get(), impl->sequencer.get(), watermark,
      impl->options.gsi_propagation_delay_ms, [impl] { return impl->NowMs(); });
  impl->gsi_applier->SetAppliedHook([impl](const TableInfo& table, const ChangeRecord& record) {
    impl->ApplyVectorChange(table, record);
  });
  if (impl->GsisInline()) {
    impl->gsi_applier->Drain();
  } else {
    impl->gsi_applier->Start();
  }
}

// The background jobs (housekeeping.cc), logging through the store's logger. Time to Live:
// expired items are deleted within seconds (the service takes up to days).
void StartHousekeeping(EngineImpl* impl) {
  impl->housekeeping = std::make_unique<Housekeeping>(
      impl->HousekeepingTasks(), [impl](LogSeverity severity, std::string_view message) {
        impl->storage->Log(severity, message);
      });
  impl->housekeeping->Start();
}

// The per-table work the last run left unfinished: backfills interrupted by a shutdown
// start over (entries are idempotent), and so do Time to Live records never finished, or
// never begun (data written by older versions); an index left DELETING by a hold the last
// run did not finish goes now.
Status ResumeTableWork(EngineImpl* impl) {
  for (const std::string& name : impl->catalog->Names()) {
    auto table = impl->catalog->Find(name);
    if (table->description.ttl_attribute) {
      DDB_ASSIGN_OR_RETURN(std::optional<std::string> built,
                           impl->storage->Get(Cf::kMeta, TtlBuiltKey(table->id)));
      if (built != table->description.ttl_attribute) {
        DDB_RETURN_IF_ERROR(impl->StartTtlBackfill(table->id));
      }
    }
    for (const IndexSchema& index : table->indexes) {
      if (!index.backfilling) continue;
      std::lock_guard lock(impl->backfill_mu);
      impl->backfills.emplace_back(&EngineImpl::Backfill, impl, table->id, name, index.name,
                                   index.index_id);
    }
    for (const auto& def : table->description.global_secondary_indexes) {
      if (def.index_status != IndexStatus::kDeleting) continue;
      std::lock_guard lock(impl->backfill_mu);
      impl->backfills.emplace_back(&EngineImpl::RemoveDeletingIndex, impl, name, def.index_name,
                                   /*hold=*/false);
    }
  }
  return Status::Ok();
}

// Imports and exports: their records, and the jobs the last run left running.
Status OpenImportsAndExports(EngineImpl* impl) {
  impl->imports = std::make_unique<Imports>(impl);
  impl->exports = std::make_unique<Exports>(impl);
  DDB_RETURN_IF_ERROR(impl->imports->Load());
  return impl->exports->Load();
}

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto impl = std::make_unique<EngineImpl>();
  impl->options = options;
  if (options.clock_for_testing) {
    impl->history_clock.SetTimeSourceForTesting(options.clock_for_testing);
  }
  DDB_RETURN_IF_ERROR(OpenStore(impl.get()));
  impl->policies_seen = AnyResourcePolicy(*impl->catalog);
  DDB_ASSIGN_OR_RETURN(const uint64_t watermark, OpenChangeLog(impl.get()));
  impl->table_holds = std::make_unique<TableHolds>(options.table_status_hold_ms);
  if (impl->options.s3_dir.empty()) impl->options.s3_dir = DefaultS3Dir(options);
  impl->partitions = std::make_unique<PartitionModel>(PartitionModelOptions{
      .simulate = options.simulate_capacity, .split_bytes = options.partition_split_bytes});
  StartGsiApplier(impl.get(), watermark);
  StartHousekeeping(impl.get());
  // Vector indexes are rebuilt from the items (vector_search.cc); one cut short while
  // backfilling is finished by that.
  DDB_RETURN_IF_ERROR(impl->LoadVectorIndexes());
  DDB_RETURN_IF_ERROR(ResumeTableWork(impl.get()));
  DDB_RETURN_IF_ERROR(OpenImportsAndExports(impl.get()));
  impl->StartContributorTracking();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

EngineImpl::~EngineImpl() {
  stopping = true;  // a task's round in progress returns early
  if (housekeeping) housekeeping->Stop();
  // Stopped before the backfills are joined: one waiting for the applier returns at once.
  if (gsi_applier) gsi_applier->Stop();
  std::lock_guard lock(backfill_mu);
  for (auto& t : backfills) {
    if (t.joinable()) t.join();
  }
}

namespace {

// CreateTable's steps.

// The account's table quota, counting the tables that exist now.
Status CheckAccountQuotaAgainst(const Catalog& catalog, const CreateTableRequest& req,
                                const std::string& region) {
  std::vector<std::shared_ptr<const TableInfo>> tables;
  std::vector<const TableDescription*> existing;
  for (const std::string& name : catalog.Names()) {
    if (auto info = catalog.Find(name)) tables.push_back(std::move(info));
  }
  for (const auto& info : tables) existing.push_back(&info->description);
  return CheckAccountQuota(req, existing, region);
}

// StreamSpecification: a view type exactly when the stream is enabled. Errors: kValidation.
Status CheckStreamSpecification(const CreateTableRequest& req) {
  if (req.stream_specification && req.stream_specification->stream_enabled &&
      !req.stream_specification->stream_view_type) {
    // The service's UpdateTable wording (CreateTable's is not documented).
    return Error::Validation(
        "One or more parameter values were invalid: If stream is being enabled then "
        "UpdateViewType is required");
  }
  if (req.stream_specification && !req.stream_specification->stream_enabled &&
      req.stream_specification->stream_view_type) {
    return Error::Validation(
        "One or more parameter values were invalid: Table is being created with a stream "
        "disabled, UpdateViewType should not be specified");
  }
  return Status::Ok();
}

// The new table's description as the request gives it (a new TableId, created `now_ms`,
// vector indexes ACTIVE at once since they are empty), without its warm throughput, stream
// and resource policy.
TableDescription NewTableDescription(const CreateTableRequest& req, uint64_t now_ms) {
  TableDescription d;
  d.table_name = req.table_name;
  d.table_id = util::NewUuid();
  d.table_status = TableStatus::kActive;
  d.creation_date_time = static_cast<double>(now_ms) / 1000.0;
  d.attribute_definitions = req.attribute_definitions;
  d.key_schema = req.key_schema;
  d.local_secondary_indexes = req.local_secondary_indexes;
  d.global_secondary_indexes = req.global_secondary_indexes;
  d.vector_indexes = req.vector_indexes;
  for (auto& v : d.vector_indexes) {
    v.index_status = IndexStatus::kActive;  // empty, so nothing to backfill
    v.backfilling = false;
    v.reports_backfilling = false;
  }
  d.billing_mode = req.billing_mode.value_or(BillingMode::kProvisioned);
  if (d.billing_mode == BillingMode::kPayPerRequest) {
    d.last_update_to_pay_per_request = d.creation_date_time;
  }
  if (req.provisioned_throughput) d.provisioned_throughput = *req.provisioned_throughput;
  if (req.on_demand_throughput) {
    d.on_demand_throughput = MergeOnDemand(std::nullopt, *req.on_demand_throughput);
  }
  for (auto& idx : d.global_secondary_indexes) {
    if (idx.on_demand_throughput) {
      idx.on_demand_throughput = MergeOnDemand(std::nullopt, *idx.on_demand_throughput);
    }
  }
  if (req.sse_specification && req.sse_specification->enabled) {
    d.sse_kms_key = SseKmsKey(*req.sse_specification, util::NewUuid());
  }
  d.table_class = req.table_class;
  d.deletion_protection_enabled = req.deletion_protection_enabled;
  d.tags = req.tags;
  return d;
}

// The request's WarmThroughput, raising the table's default (never lowering it).
// Errors: kValidation.
Status ApplyWarmThroughput(const CreateTableRequest& req, TableDescription* d) {
  if (!req.warm_throughput) return Status::Ok();
  WarmThroughput warm = d->EffectiveWarmThroughput();
  for (auto [requested, current, unit] :
       {std::tuple{req.warm_throughput->read_units_per_second, &warm.read_units_per_second,
                   "ReadUnitsPerSecond"},
        std::tuple{req.warm_throughput->write_units_per_second, &warm.write_units_per_second,
                   "WriteUnitsPerSecond"}}) {
    if (requested < 0) continue;
    if (requested < *current) {
      return Error::Validation("Requested " + std::string(unit) +
                               " for WarmThroughput for table is lower than current "
                               "WarmThroughput, decreasing WarmThroughput is not supported");
    }
    *current = requested;
  }
  d->warm_throughput = warm;
  return Status::Ok();
}

}  // namespace

Result<TableDescription> EngineImpl::CreateTable(const RequestContext& ctx,
                                                 const CreateTableRequest& req) {
  DDB_RETURN_IF_ERROR(ValidateCreateTable(req));
  DDB_RETURN_IF_ERROR(CheckThroughputQuotas(req, ctx.region));
  DDB_RETURN_IF_ERROR(CheckAccountQuotaAgainst(*catalog, req, ctx.region));
  DDB_RETURN_IF_ERROR(CheckStreamSpecification(req));
  TableDescription d = NewTableDescription(req, NowMs());
  DDB_RETURN_IF_ERROR(ApplyWarmThroughput(req, &d));
  if (req.stream_specification && req.stream_specification->stream_enabled) {
    d.stream_specification = req.stream_specification;
    d.latest_stream_label = streams->NewLabel(req.table_name, NowMs());
  }
  if (req.resource_policy) DDB_RETURN_IF_ERROR(CheckResourcePolicySize(*req.resource_policy));
  if (table_holds->Deleting(req.table_name)) {
    return Error::InUse("Table already exists: " + req.table_name);
  }
  d.resource_policy = NewTablePolicy(req.resource_policy);
  if (d.resource_policy) policies_seen = true;
  uint64_t stream_start = sequencer->Peek();
  DDB_ASSIGN_OR_RETURN(auto info, catalog->Create(std::move(d)));
  for (const auto& v : info->description.vector_indexes) vectors->Create(info->id, v);
  if (info->description.latest_stream_label) {
    DDB_RETURN_IF_ERROR(OpenStream(*info, stream_start));
  }
  table_holds->Hold(req.table_name, TableStatus::kCreating);
  TableDescription out = Describe(ctx, *info);
  return out;
}

Result<TableDescription> Engine::CreateTable(const RequestContext& ctx,
                                             const CreateTableRequest& req) {
  return impl_->CreateTable(ctx, req);
}

Result<TableDescription> Engine::DescribeTable(const RequestContext& ctx, const std::string& name) {
  auto info = impl_->catalog->Find(name);
  if (!info) {
    if (auto deleting = impl_->table_holds->Deleting(name)) return *std::move(deleting);
    return Error::NotFound("Requested resource not found: Table: " + name + " not found");
  }
  return impl_->Describe(ctx, *info);
}

Result<ListTablesResult> Engine::ListTables(const ListTablesRequest& req) {
  if (req.limit < 1 || req.limit > 100) {
    return ValidationErrors(
        {"Value '" + std::to_string(req.limit) +
         "' at 'limit' failed to satisfy constraint: Member must have value " +
         (req.limit < 1 ? "greater than or equal to 1" : "less than or equal to 100")});
  }
  ListTablesResult result;
  // Tables held DELETING are still listed, as there.
  std::vector<std::string> names = impl_->catalog->Names();
  if (std::vector<std::string> deleting = impl_->table_holds->DeletingNames(); !deleting.empty()) {
    std::vector<std::string> all;
    std::set_union(names.begin(), names.end(), deleting.begin(), deleting.end(),
                   std::back_inserter(all));
    names = std::move(all);
  }
  for (const auto& name : names) {
    if (req.exclusive_start_table_name && name <= *req.exclusive_start_table_name) continue;
    if (result.table_names.size() == static_cast<size_t>(req.limit)) {
      result.last_evaluated_table_name = result.table_names.back();
      break;
    }
    result.table_names.push_back(name);
  }
  return result;
}

namespace {

Status CheckPutDeleteReturnValues(ReturnValues rv) {
  if (rv != ReturnValues::kNone && rv != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  return Status::Ok();
}

}  // namespace

Result<PutItemResult> Engine::PutItem(const PutItemRequest& req) {
  DDB_RETURN_IF_ERROR(CheckPutDeleteReturnValues(req.return_values));
  DDB_ASSIGN_OR_RETURN(PreparedWrite write,
                       CompileWriteExpressions(PreparedWrite::Kind::kPut, std::nullopt, req));
  // The size limit before the table lookup, as the service checks; the size is reused below.
  const auto size = static_cast<int64_t>(ItemSize(req.item));
  DDB_RETURN_IF_ERROR(ValidateItemSize(static_cast<size_t>(size)));
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  // Nothing needs the old item but its size: no decoding, no copy of the new item.
  const bool plain =
      !write.condition && req.return_values == ReturnValues::kNone && table->indexes.empty();
  DDB_RETURN_IF_ERROR(BindWrite(table, req.item, &write, /*check_keys=*/true,
                                /*keep_item=*/!plain));
  DDB_RETURN_IF_ERROR(impl_->AdmitKey(*table, req.item, /*write=*/true));
  PutItemResult result;
  if (plain) {
    DDB_ASSIGN_OR_RETURN(std::optional<int64_t> old_size,
                         impl_->PutWithoutIndexes(table->id, write.key, req.item, size));
    if (old_size) {
      const double units =
          WriteUnits(static_cast<size_t>(std::max(*old_size, size)), /*transactional=*/false);
      impl_->ChargeTableWrite(*table, req.item, *old_size, size, units, write.key);
      if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
        result.consumed_capacity = ConsumedCapacity(req.table_name);
        result.consumed_capacity->AddTable(units, /*write=*/true);
      }
      return result;
    }
    write.item_or_key = req.item;  // the table needs the general path after all
  }
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->Write(write, nullptr));
  result.item_collection_metrics =
      impl_->CollectionMetrics(*table, req.item, req.return_item_collection_metrics);
  ConsumedCapacity cost(req.table_name);
  const WriteSizes sizes = AddWriteCapacity(*table, old, req.item, false, &cost);
  impl_->ChargeWrite(*table, req.item, old, req.item, cost, sizes, write.key);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    result.consumed_capacity = std::move(cost);
  }
  if (req.return_values == ReturnValues::kAllOld) result.attributes = std::move(old);
  return result;
}

Result<GetItemResult> Engine::GetItem(const GetItemRequest& req) {
  // The expression first, then the table and the key (the service's order of checks).
  DDB_ASSIGN_OR_RETURN(
      std::optional<Projection> projection,
      CompileReadProjection(
          req.projection_expression, req.attributes_to_get,
          req.expression_attribute_names ? &*req.expression_attribute_names : nullptr));
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  DDB_RETURN_IF_ERROR(ValidateKey(table->description, req.key));
  DDB_RETURN_IF_ERROR(impl_->AdmitKey(*table, req.key, /*write=*/false));
  GetItemResult result;
  std::optional<Item> item;
  size_t size = 0;
  const std::string key = impl_->ItemKeyOf(*table, req.key);
  if (req.accept_encoded_item && !projection) {
    DDB_ASSIGN_OR_RETURN(result.encoded_item, impl_->storage->Get(Cf::kItems, key));
    if (result.encoded_item) {
      std::optional<size_t> encoded_size = EncodedItemSize(*result.encoded_item);
      if (!encoded_size) return Error::Internal("unreadable item");
      size = *encoded_size;
    }
  } else {
    DDB_ASSIGN_OR_RETURN(item, impl_->ReadItem(key));
    if (item) size = ItemSize(*item);
  }
  double units = ReadUnits(size, req.consistent_read);
  const std::string& pk = KeyBytes(req.key.at(table->description.hash_key()));
  impl_->ChargeRead(*table, nullptr, TokenOfKey(key), pk, units);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    result.consumed_capacity = ConsumedCapacity{req.table_name};
    result.consumed_capacity->AddTable(units, /*write=*/false);
  }
  if (item) result.item = projection ? ApplyProjection(*projection, *item) : std::move(*item);
  return result;
}

Result<DeleteItemResult> Engine::DeleteItem(const DeleteItemRequest& req) {
  DDB_RETURN_IF_ERROR(CheckPutDeleteReturnValues(req.return_values));
  DDB_ASSIGN_OR_RETURN(PreparedWrite write,
                       CompileWriteExpressions(PreparedWrite::Kind::kDelete, std::nullopt, req));
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  DDB_RETURN_IF_ERROR(BindWrite(table, req.key, &write));
  DDB_RETURN_IF_ERROR(impl_->AdmitKey(*table, req.key, /*write=*/true));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->Write(write, nullptr));
  DeleteItemResult result;
  result.item_collection_metrics =
      impl_->CollectionMetrics(*table, req.key, req.return_item_collection_metrics);
  ConsumedCapacity cost(req.table_name);
  const WriteSizes sizes = AddWriteCapacity(*table, old, std::nullopt, false, &cost);
  impl_->ChargeWrite(*table, req.key, old, std::nullopt, cost, sizes, write.key);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    result.consumed_capacity = std::move(cost);
  }
  if (req.return_values == ReturnValues::kAllOld) result.attributes = std::move(old);
  return result;
}

Result<UpdateItemResult> Engine::UpdateItem(const UpdateItemRequest& req) {
  DDB_ASSIGN_OR_RETURN(PreparedWrite write, CompileWriteExpressions(PreparedWrite::Kind::kUpdate,
                                                                    req.update_expression, req));
  write.update_item_size_rule = !req.finished_item_size_only;
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  DDB_RETURN_IF_ERROR(BindWrite(table, req.key, &write));
  DDB_RETURN_IF_ERROR(impl_->AdmitKey(*table, req.key, /*write=*/true));
  std::optional<Item> new_item;
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->Write(write, &new_item));
  UpdateItemResult result;
  result.item_collection_metrics =
      impl_->CollectionMetrics(*table, req.key, req.return_item_collection_metrics);
  ConsumedCapacity cost(req.table_name);
  const WriteSizes sizes = AddWriteCapacity(*table, old, new_item, false, &cost);
  impl_->ChargeWrite(*table, req.key, old, new_item, cost, sizes, write.key);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    result.consumed_capacity = std::move(cost);
  }
  result.attributes =
      UpdateReturnValues(req.return_values, write, std::move(old), std::move(new_item));
  return result;
}

}  // namespace ddb
