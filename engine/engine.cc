#include "engine/engine.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <random>

#include "engine/catalog.h"
#include "engine/item_codec.h"
#include "engine/item_validation.h"
#include "engine/key_codec.h"
#include "engine/storage.h"
#include "engine/table_validation.h"

namespace ddb {
namespace {

// Writers of one item serialise on a striped lock (item key hash -> stripe) so that the
// old item read, the new item written and the counter deltas agree.
constexpr size_t kLockStripes = 1024;

std::string NewUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

double NowSeconds() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

const Error& TableNotFound() {
  static const Error e = Error::NotFound("Requested resource not found");
  return e;
}

Item Project(const Item& item, const std::vector<std::string>& names) {
  if (names.empty()) return item;
  Item out;
  for (const auto& n : names) {
    auto it = item.find(n);
    if (it != item.end()) out.insert(*it);
  }
  return out;
}

}  // namespace

class Engine::Impl {
 public:
  std::unique_ptr<Storage> storage;
  std::unique_ptr<Catalog> catalog;
  std::array<std::mutex, kLockStripes> stripes;

  std::mutex& StripeFor(const std::string& item_key) {
    return stripes[std::hash<std::string>{}(item_key) % kLockStripes];
  }

  Result<std::shared_ptr<const TableInfo>> FindTable(const std::string& name) {
    auto info = catalog->Find(name);
    if (!info) return TableNotFound();
    return info;
  }

  std::string ItemKeyOf(const TableInfo& table, const Item& item_or_key) {
    const TableDescription& d = table.description;
    const AttributeValue& pk = item_or_key.at(d.hash_key());
    const std::string* range = d.range_key();
    return EncodeItemKey(table.id, pk, range ? &item_or_key.at(*range) : nullptr);
  }

  Result<std::optional<Item>> ReadItem(const std::string& key) {
    DDB_ASSIGN_OR_RETURN(std::optional<std::string> raw, storage->Get(Cf::kItems, key));
    if (!raw) return std::optional<Item>();
    Item item;
    if (!DecodeItem(*raw, &item)) return Error::Internal("unreadable item");
    return std::optional<Item>(std::move(item));
  }

  TableDescription Describe(const RequestContext& ctx, const TableInfo& table) {
    TableDescription d = table.description;
    d.table_arn = "arn:aws:dynamodb:" + ctx.region + ":000000000000:table/" + d.table_name;
    auto count = storage->GetCounter(ItemCountKey(table.id));
    auto size = storage->GetCounter(TableSizeKey(table.id));
    d.item_count = count.ok() ? count.value() : 0;
    d.table_size_bytes = size.ok() ? size.value() : 0;
    return d;
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto impl = std::make_unique<Impl>();
  DDB_ASSIGN_OR_RETURN(impl->storage,
                       Storage::Open(StorageOptions{options.data_dir, options.in_memory}));
  DDB_ASSIGN_OR_RETURN(impl->catalog, Catalog::Load(impl->storage.get()));
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

Result<TableDescription> Engine::CreateTable(const RequestContext& ctx,
                                             const CreateTableRequest& req) {
  DDB_RETURN_IF_ERROR(ValidateCreateTable(req));
  TableDescription d;
  d.table_name = req.table_name;
  d.table_id = NewUuid();
  d.table_status = TableStatus::kActive;
  d.creation_date_time = NowSeconds();
  d.attribute_definitions = req.attribute_definitions;
  d.key_schema = req.key_schema;
  d.local_secondary_indexes = req.local_secondary_indexes;
  d.global_secondary_indexes = req.global_secondary_indexes;
  d.billing_mode = req.billing_mode.value_or(BillingMode::kProvisioned);
  if (req.provisioned_throughput) d.provisioned_throughput = *req.provisioned_throughput;
  d.on_demand_throughput = req.on_demand_throughput;
  if (req.stream_specification && req.stream_specification->stream_enabled) {
    d.stream_specification = req.stream_specification;
  }
  d.table_class = req.table_class;
  d.deletion_protection_enabled = req.deletion_protection_enabled;
  DDB_ASSIGN_OR_RETURN(auto info, impl_->catalog->Create(std::move(d)));
  TableDescription out = impl_->Describe(ctx, *info);
  return out;
}

Result<TableDescription> Engine::DescribeTable(const RequestContext& ctx, const std::string& name) {
  auto info = impl_->catalog->Find(name);
  if (!info) return Error::NotFound("Requested resource not found: Table: " + name + " not found");
  return impl_->Describe(ctx, *info);
}

Result<TableDescription> Engine::DeleteTable(const RequestContext& ctx, const std::string& name) {
  auto existing = impl_->catalog->Find(name);
  if (existing && existing->description.deletion_protection_enabled) {
    return Error::Validation(
        "Resource cannot be deleted as it is currently protected against "
        "deletion. Disable deletion protection first.");
  }
  TableDescription before;
  if (existing) before = impl_->Describe(ctx, *existing);
  DDB_ASSIGN_OR_RETURN(auto info, impl_->catalog->Drop(name));
  if (!existing || existing->id != info->id) before = impl_->Describe(ctx, *info);
  before.table_status = TableStatus::kDeleting;
  return before;
}

Result<ListTablesResult> Engine::ListTables(const ListTablesRequest& req) {
  if (req.limit < 1 || req.limit > 100) {
    return ValidationErrors(
        {"Value '" + std::to_string(req.limit) +
         "' at 'limit' failed to satisfy constraint: Member must have value " +
         (req.limit < 1 ? "greater than or equal to 1" : "less than or equal to 100")});
  }
  ListTablesResult result;
  for (const auto& name : impl_->catalog->Names()) {
    if (req.exclusive_start_table_name && name <= *req.exclusive_start_table_name) continue;
    if (result.table_names.size() == static_cast<size_t>(req.limit)) {
      result.last_evaluated_table_name = result.table_names.back();
      break;
    }
    result.table_names.push_back(name);
  }
  return result;
}

Result<PutItemResult> Engine::PutItem(const PutItemRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  if (req.return_values != ReturnValues::kNone && req.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  DDB_RETURN_IF_ERROR(ValidateItem(table->description, req.item));
  std::string key = impl_->ItemKeyOf(*table, req.item);
  std::string value;
  EncodeItem(req.item, &value);
  int64_t new_size = static_cast<int64_t>(ItemSize(req.item));

  PutItemResult result;
  std::lock_guard lock(impl_->StripeFor(key));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->ReadItem(key));
  Storage::Batch batch(*impl_->storage);
  batch.Put(Cf::kItems, key, value);
  if (old) {
    batch.AddToCounter(TableSizeKey(table->id), new_size - static_cast<int64_t>(ItemSize(*old)));
  } else {
    batch.AddToCounter(ItemCountKey(table->id), 1);
    batch.AddToCounter(TableSizeKey(table->id), new_size);
  }
  DDB_RETURN_IF_ERROR(impl_->storage->Write(batch));
  if (req.return_values == ReturnValues::kAllOld) result.attributes = std::move(old);
  return result;
}

Result<GetItemResult> Engine::GetItem(const GetItemRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  DDB_RETURN_IF_ERROR(ValidateKey(table->description, req.key));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> item,
                       impl_->ReadItem(impl_->ItemKeyOf(*table, req.key)));
  GetItemResult result;
  if (item) result.item = Project(*item, req.projection);
  return result;
}

Result<DeleteItemResult> Engine::DeleteItem(const DeleteItemRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  if (req.return_values != ReturnValues::kNone && req.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  DDB_RETURN_IF_ERROR(ValidateKey(table->description, req.key));
  std::string key = impl_->ItemKeyOf(*table, req.key);

  DeleteItemResult result;
  std::lock_guard lock(impl_->StripeFor(key));
  DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->ReadItem(key));
  if (old) {
    Storage::Batch batch(*impl_->storage);
    batch.Delete(Cf::kItems, key);
    batch.AddToCounter(ItemCountKey(table->id), -1);
    batch.AddToCounter(TableSizeKey(table->id), -static_cast<int64_t>(ItemSize(*old)));
    DDB_RETURN_IF_ERROR(impl_->storage->Write(batch));
  }
  if (req.return_values == ReturnValues::kAllOld) result.attributes = std::move(old);
  return result;
}

}  // namespace ddb
