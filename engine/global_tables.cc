#include "engine/global_tables.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <span>

#include "ddb/engine.h"
#include "engine/engine_impl.h"
#include "engine/storage/coding.h"
#include "engine/storage/key_codec.h"
#include "engine/transactions.h"

namespace ddb {

namespace {
constexpr std::string_view kStampPrefix = "rep/";
constexpr std::string_view kCheckpointPrefix = "repcp/";
}  // namespace

std::string ReplicationStampKey(std::string_view item_key) {
  std::string k(kStampPrefix);
  k.append(item_key);
  return k;
}

std::string EncodeReplicationStamp(uint64_t stamp) {
  std::string v;
  PutFixed64BE(&v, stamp);
  return v;
}

std::optional<uint64_t> DecodeReplicationStamp(std::string_view value) {
  uint64_t stamp = 0;
  if (value.size() != 8 || !GetFixedBE(&value, 8, &stamp)) return std::nullopt;
  return stamp;
}

std::string ReplicationStampPrefix(uint32_t table_id) {
  return std::string(kStampPrefix) + TablePrefix(table_id);
}

std::string ReplicationStampPrefixEnd(uint32_t table_id) {
  return std::string(kStampPrefix) + TablePrefixEnd(table_id);
}

std::string ReplicationCheckpointPrefix(uint32_t table_id) {
  std::string k(kCheckpointPrefix);
  PutFixed32BE(&k, table_id);
  return k;
}

std::string ReplicationCheckpointPrefixEnd(uint32_t table_id) {
  std::string k(kCheckpointPrefix);
  PutFixed32BE(&k, table_id + 1);
  return k;
}

std::string ReplicationCheckpointKey(uint32_t table_id, std::string_view region) {
  std::string k = ReplicationCheckpointPrefix(table_id);
  k.append(region);
  return k;
}

uint64_t NextStamp(uint64_t now_ms, uint64_t floor) {
  static std::atomic<uint64_t> last{0};
  const uint64_t wanted = std::max(now_ms << 16, floor + 1);
  uint64_t prev = last.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    next = std::max(wanted, prev + 1);
  } while (!last.compare_exchange_weak(prev, next, std::memory_order_relaxed));
  return next;
}

Result<std::optional<uint64_t>> EngineImpl::ReplicationStampOf(const std::string& item_key) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> raw,
                       storage->Get(Cf::kMeta, ReplicationStampKey(item_key)));
  if (!raw) return std::optional<uint64_t>();
  std::optional<uint64_t> stamp = DecodeReplicationStamp(*raw);
  if (!stamp) return Error::Internal("unreadable replication stamp");
  return stamp;
}

uint64_t EngineImpl::NextReplicationStamp(uint64_t floor) { return NextStamp(NowMs(), floor); }

namespace {

// The table, whatever its status (a replica being filled is CREATING).
Result<std::shared_ptr<const TableInfo>> AnyTable(EngineImpl& impl, const std::string& name) {
  auto info = impl.catalog->Find(std::string(TableNameOf(name)));
  if (!info) return TableNotFound();
  return info;
}

Result<std::shared_ptr<const TableInfo>> GlobalTable(EngineImpl& impl, const std::string& name) {
  DDB_ASSIGN_OR_RETURN(auto info, AnyTable(impl, name));
  if (info->description.replicas.empty()) {
    return Error::Validation("Table " + info->description.table_name + " has no replicas");
  }
  return info;
}

AttributeValue KeyValue(ScalarType type, std::string bytes) {
  switch (type) {
    case ScalarType::kS:
      return AttributeValue::S(std::move(bytes));
    case ScalarType::kN:
      return AttributeValue::N(std::move(bytes));
    case ScalarType::kB:
      break;
  }
  return AttributeValue::B(std::move(bytes));
}

}  // namespace

bool KeyAttributesOfItemKey(const TableDescription& d, std::string_view item_key, Item* key) {
  uint64_t pk_len = 0;
  if (item_key.size() < 14) return false;
  item_key.remove_prefix(12);  // table id, token
  if (!GetFixedBE(&item_key, 2, &pk_len) || item_key.size() < pk_len) return false;
  key->emplace(d.hash_key(),
               KeyValue(d.AttributeTypeOf(d.hash_key()), std::string(item_key.substr(0, pk_len))));
  item_key.remove_prefix(pk_len);
  if (const std::string* range = d.range_key()) {
    AttributeValue sk;
    if (!DecodeSortKey(item_key, ToAttributeType(d.AttributeTypeOf(*range)), &sk)) return false;
    key->emplace(*range, std::move(sk));
  } else if (!item_key.empty()) {
    return false;
  }
  return true;
}

namespace {

// ReadReplicaSnapshot's cursors: "i" | the last item key returned, then "t" | the last stamp
// key returned.
constexpr char kItemsPhase = 'i';
constexpr char kTombstonesPhase = 't';

}  // namespace

Result<ReplicaSnapshotPage> Engine::ReadReplicaSnapshot(const std::string& table,
                                                        const std::string& cursor, size_t limit) {
  DDB_ASSIGN_OR_RETURN(auto info, GlobalTable(*impl_, table));
  const TableDescription& d = info->description;
  const char phase = cursor.empty() ? kItemsPhase : cursor[0];
  std::string after = cursor.empty() ? std::string() : cursor.substr(1);
  if (phase != kItemsPhase && phase != kTombstonesPhase) {
    return Error::Validation("Invalid replica snapshot cursor");
  }
  limit = std::max<size_t>(limit, 1);
  ReplicaSnapshotPage page;
  // Keys first, then each entry read under its item's lock: the item and its stamp agree.
  const Cf cf = phase == kItemsPhase ? Cf::kItems : Cf::kMeta;
  const std::string begin =
      phase == kItemsPhase ? TablePrefix(info->id) : ReplicationStampPrefix(info->id);
  const std::string end =
      phase == kItemsPhase ? TablePrefixEnd(info->id) : ReplicationStampPrefixEnd(info->id);
  if (!after.empty() && (after < begin || after >= end)) {
    return Error::Validation("Invalid replica snapshot cursor");
  }
  std::vector<std::string> keys;
  DDB_RETURN_IF_ERROR(impl_->storage->ForEach(cf, after.empty() ? begin : after, end,
                                              [&](std::string_view key, std::string_view) {
                                                if (key == after) return true;
                                                keys.emplace_back(key);
                                                return keys.size() < limit;
                                              }));
  for (const std::string& k : keys) {
    const std::string item_key = phase == kItemsPhase ? k : k.substr(kStampPrefix.size());
    std::lock_guard lock(impl_->StripeFor(item_key));
    DDB_ASSIGN_OR_RETURN(std::optional<Item> item, impl_->ReadItem(item_key));
    DDB_ASSIGN_OR_RETURN(std::optional<uint64_t> stamp, impl_->ReplicationStampOf(item_key));
    ReplicatedChange change;
    change.stamp = stamp.value_or(0);
    if (phase == kItemsPhase) {
      if (!item) continue;  // deleted since: its stamp comes in the second phase
      for (const KeySchemaElement& e : d.key_schema) {
        change.key.emplace(e.attribute_name, item->at(e.attribute_name));
      }
      change.new_image = std::move(item);
    } else {
      if (item || !stamp) continue;  // a live item went in the first phase
      if (!KeyAttributesOfItemKey(d, item_key, &change.key)) {
        return Error::Internal("unreadable item key in the replication stamps");
      }
    }
    page.changes.push_back(std::move(change));
  }
  if (keys.size() >= limit) {
    page.cursor = std::string(1, phase) + keys.back();
  } else if (phase == kItemsPhase) {
    page.cursor = std::string(1, kTombstonesPhase);
  }
  return page;
}

Result<TableDescription> Engine::SetReplicas(const RequestContext& ctx, const std::string& table,
                                             std::vector<ReplicaDescription> replicas) {
  DDB_ASSIGN_OR_RETURN(auto before, AnyTable(*impl_, table));
  const std::string& name = before->description.table_name;
  const std::string new_label = impl_->streams->NewLabel(name, impl_->NowMs());
  // As UpdateTable: a stream enabled now holds no record below this sequence.
  const uint64_t stream_start = impl_->sequencer->Peek();
  DDB_ASSIGN_OR_RETURN(auto after, impl_->catalog->Update(name, [&](TableDescription* d) {
    d->replicas = replicas;
    if (replicas.empty()) {
      d->global_table_version.reset();
      return Status::Ok();
    }
    d->global_table_version = kGlobalTableVersion;
    // The service turns the stream on for a new replica; a KEYS_ONLY one stays as it is.
    if (!d->stream_specification) {
      d->stream_specification = StreamSpecification{true, StreamViewType::kNewAndOldImages};
      d->latest_stream_label = new_label;
    }
    return Status::Ok();
  }));
  if (after->description.latest_stream_label != before->description.latest_stream_label) {
    DDB_RETURN_IF_ERROR(impl_->OpenStream(*after, stream_start));
  }
  return impl_->Describe(ctx, *after);
}

Result<TableDescription> Engine::SetStrongConsistency(const RequestContext& ctx,
                                                      const std::string& table, bool strong,
                                                      std::vector<WitnessDescription> witnesses) {
  DDB_ASSIGN_OR_RETURN(auto before, AnyTable(*impl_, table));
  DDB_ASSIGN_OR_RETURN(
      auto after, impl_->catalog->Update(before->description.table_name, [&](TableDescription* d) {
        d->multi_region_strong = strong;
        d->witnesses = strong ? witnesses : std::vector<WitnessDescription>{};
        return Status::Ok();
      }));
  return impl_->Describe(ctx, *after);
}

void Engine::SetStrongWriteHooks(StrongWriteHooks hooks) {
  auto shared = std::make_shared<const StrongWriteHooks>(std::move(hooks));
  std::lock_guard lock(impl_->strong_hooks_mu);
  impl_->strong_hooks = shared->claim ? shared : nullptr;
}

Status Engine::SetFilling(const std::string& table, bool filling) {
  DDB_ASSIGN_OR_RETURN(auto info, AnyTable(*impl_, table));
  if (filling) {
    impl_->table_holds->HoldForImport(info->description.table_name);
  } else {
    impl_->table_holds->ReleaseImport(info->description.table_name);
  }
  return Status::Ok();
}

Result<uint64_t> Engine::ReplicationLogEnd(const std::string& table) {
  DDB_ASSIGN_OR_RETURN(auto info, AnyTable(*impl_, table));
  return impl_->sequencer->SafePoint();
}

Result<ReplicationLogPage> Engine::ReadReplicationLog(const std::string& table, uint64_t after,
                                                      size_t limit) {
  DDB_ASSIGN_OR_RETURN(auto info, GlobalTable(*impl_, table));
  ReplicationLogPage page;
  page.next = after;
  const TableDescription& d = info->description;
  if (!d.latest_stream_label) return page;
  auto stream = impl_->streams->Find(d.table_name, *d.latest_stream_label);
  if (!stream) return page;
  // Only records below the safe point: none can later appear before them.
  uint64_t upper = impl_->sequencer->SafePoint();
  if (stream->end_sequence) upper = std::min(upper, *stream->end_sequence);
  const uint64_t from = std::max(after + 1, stream->FirstReadable());
  if (upper < from) {
    page.next = std::max(after, upper);
    return page;
  }
  page.next = upper;
  bool bad = false;
  DDB_RETURN_IF_ERROR(
      impl_->storage->ForEach(Cf::kStreams, StreamRecordKey(info->id, stream->label, from),
                              StreamRecordKey(info->id, stream->label, upper + 1),
                              [&](std::string_view key, std::string_view value) {
                                ChangeRecord record;
                                WriteOrigin origin;
                                ReplicatedChange change;
                                // The key from the record's item key: the old image is not needed,
                                // so not decoded.
                                if (!DecodeStreamRecord(key, value, &record, &origin, &change.stamp,
                                                        /*old_image=*/false) ||
                                    !KeyAttributesOfItemKey(d, record.item_key, &change.key)) {
                                  bad = true;
                                  return false;
                                }
                                change.sequence = record.sequence;
                                change.commit_time_ms = record.commit_time_ms;
                                change.new_image = std::move(record.new_image);
                                change.replicated = origin == WriteOrigin::kReplicated;
                                page.changes.push_back(std::move(change));
                                if (page.changes.size() >= limit) {
                                  page.next = page.changes.back().sequence;
                                  return false;
                                }
                                return true;
                              }));
  if (bad) return Error::Internal("unreadable stream record");
  return page;
}

namespace {

Status CheckChangeKey(const TableDescription& d, const ReplicatedChange& change) {
  for (const KeySchemaElement& k : d.key_schema) {
    auto it = change.key.find(k.attribute_name);
    if (it == change.key.end() ||
        it->second.type() != ToAttributeType(d.AttributeTypeOf(k.attribute_name))) {
      return Error::Validation("The replicated change's key does not match the table's schema");
    }
  }
  return Status::Ok();
}

// ApplyReplicatedBatch's work: how many changes it took, and how many of them applied.
struct BatchApplied {
  size_t taken = 0;
  size_t applied = 0;
};

Result<BatchApplied> ApplyRun(EngineImpl& impl, const std::string& table,
                              std::span<const ReplicatedChange> changes) {
  DDB_ASSIGN_OR_RETURN(auto info, GlobalTable(impl, table));
  // The run: distinct items, none held by a transaction in flight.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const ReplicatedChange& change : changes) {
    DDB_RETURN_IF_ERROR(CheckChangeKey(info->description, change));
    std::string key = impl.ItemKeyOf(*info, change.key);
    if (!seen.insert(key).second) break;
    if (impl.transaction_claims.HeldForWriting(key)) {
      if (keys.empty()) return TransactionConflict();
      break;
    }
    keys.push_back(std::move(key));
  }
  StripeLocks locks(impl, keys);
  Storage::Batch batch(*impl.storage);
  std::vector<uint64_t> sequences;
  BatchApplied result{keys.size(), 0};
  auto fail = [&](const Error& e) {
    for (uint64_t seq : sequences) impl.sequencer->End(seq);
    return e;
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    const ReplicatedChange& change = changes[i];
    Result<std::optional<uint64_t>> stored = impl.ReplicationStampOf(keys[i]);
    if (!stored.ok()) return fail(stored.error());
    // Last writer wins: an older change than the item's last loses (so does a fill's stamp 0
    // against any stamped write).
    if (stored.value() && change.stamp <= *stored.value()) continue;
    Result<std::optional<Item>> old = impl.ReadItem(keys[i]);
    if (!old.ok()) return fail(old.error());
    Status added = impl.AddWrite(info->id, keys[i], old.value(), change.new_image, &batch,
                                 &sequences, WriteOrigin::kReplicated, change.stamp);
    if (!added.ok()) return fail(added.error());
    ++result.applied;
  }
  DDB_RETURN_IF_ERROR(impl.Commit(batch, sequences, WriteSync::kDeferred));
  return result;
}

}  // namespace

Result<bool> Engine::ApplyReplicated(const std::string& table, const ReplicatedChange& change) {
  DDB_ASSIGN_OR_RETURN(BatchApplied done, ApplyRun(*impl_, table, {&change, 1}));
  return done.applied == 1;
}

Result<size_t> Engine::ApplyReplicatedBatch(const std::string& table,
                                            const std::vector<ReplicatedChange>& changes) {
  DDB_ASSIGN_OR_RETURN(BatchApplied done, ApplyRun(*impl_, table, changes));
  return done.taken;
}

Result<uint64_t> Engine::ReplicationCheckpoint(const std::string& table,
                                               const std::string& region) {
  DDB_ASSIGN_OR_RETURN(auto info, AnyTable(*impl_, table));
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> raw,
                       impl_->storage->Get(Cf::kMeta, ReplicationCheckpointKey(info->id, region)));
  if (!raw) return uint64_t{0};
  std::optional<uint64_t> position = DecodeReplicationStamp(*raw);
  if (!position) return Error::Internal("unreadable replication checkpoint");
  return *position;
}

Status Engine::SaveReplicationCheckpoint(const std::string& table, const std::string& region,
                                         uint64_t position) {
  DDB_ASSIGN_OR_RETURN(auto info, AnyTable(*impl_, table));
  Storage::Batch batch(*impl_->storage);
  batch.Put(Cf::kMeta, ReplicationCheckpointKey(info->id, region),
            EncodeReplicationStamp(position));
  // Not synced: a checkpoint lost in a power cut only makes changes be applied again, and
  // applying one twice changes nothing (its stamp is no longer greater).
  return impl_->storage->Write(batch, WriteSync::kDeferred);
}

}  // namespace ddb
