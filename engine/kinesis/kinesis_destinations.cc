// DynamoDB's Kinesis streaming destinations (Engine::*KinesisStreamingDestination, and the
// write path's record of each change: AddKinesisChange). The state machine and its refusals
// are the service's (docs/kinesis.md cites them); the transitions are instant, so an answer
// of ENABLING, DISABLING or UPDATING is followed by ACTIVE, DISABLED or ACTIVE at once.
#include "ddb/stored_item.h"
#include "engine/engine_impl.h"
#include "util/arn.h"
#include "util/ascii.h"
#include "util/digest.h"

namespace ddb {
namespace {

constexpr std::string_view kNotValidState =
    "Table is not in a valid state to enable Kinesis Streaming Destination: ";

bool Live(KinesisDestinationStatus s) {
  return s == KinesisDestinationStatus::kEnabling || s == KinesisDestinationStatus::kActive ||
         s == KinesisDestinationStatus::kUpdating || s == KinesisDestinationStatus::kDisabling;
}

Result<std::shared_ptr<const TableInfo>> TableFor(EngineImpl& impl, const std::string& name) {
  const std::string table(TableNameOf(name));
  auto info = impl.catalog->Find(table);
  if (!info || info->restore_job) {
    return Error::NotFound("Requested resource not found: Table: " + table + " not found");
  }
  return info;
}

// Where an Enable's stream is: the stream's name when it is this engine's, else why not
// (the service's descriptions of a destination that failed to enable).
struct Resolved {
  std::string stream_name;
  std::string failure;
};

Resolved Resolve(EngineImpl& impl, const RequestContext& ctx, const std::string& arn) {
  constexpr std::string_view kNoPermission =
      "User does not have a permission to use kinesis stream";
  std::optional<util::ArnParts> parts = util::ParseArn(arn);
  if (!parts || parts->service != "kinesis" || !parts->resource.starts_with("stream/")) {
    return {"", std::string(kNoPermission)};
  }
  if (parts->region != ctx.region) {
    return {"",
            "The kinesis Arn used to enable kinesis replication belongs to a stream which is "
            "not in the current region"};
  }
  if (parts->account != ctx.account_id) {
    return {"",
            "The kinesis Arn used to enable kinesis replication belongs to a stream which is "
            "not in Active state"};
  }
  std::string name(parts->resource.substr(std::string_view("stream/").size()));
  if (!impl.kinesis->Find(name)) return {"", std::string(kNoPermission)};
  return {name, ""};
}

// Keeps the live destination and the newest others, kMaxKeptKinesisDestinations in all.
void Bound(std::vector<KinesisDestination>* list) {
  size_t kept = 0;
  std::erase_if(*list, [&kept](const KinesisDestination& d) {
    return !Live(d.status) && ++kept > kMaxKeptKinesisDestinations;
  });
}

KinesisDestination* EntryOf(std::vector<KinesisDestination>* list, const std::string& arn) {
  for (KinesisDestination& d : *list) {
    if (d.stream_arn == arn) return &d;
  }
  return nullptr;
}

}  // namespace

Result<KinesisDestination> Engine::EnableKinesisStreamingDestination(
    const RequestContext& ctx, const std::string& table, const std::string& stream_arn,
    std::optional<KinesisTimePrecision> precision) {
  DDB_ASSIGN_OR_RETURN(auto info, TableFor(*impl_, table));
  const Resolved where = Resolve(*impl_, ctx, stream_arn);
  KinesisDestination answer;
  DDB_ASSIGN_OR_RETURN(
      auto after,
      impl_->catalog->Update(info->description.table_name, [&](TableDescription* d) -> Status {
        std::vector<KinesisDestination>& list = d->kinesis_destinations;
        for (const KinesisDestination& e : list) {
          if (Live(e.status)) {
            return Error::Validation(std::string(kNotValidState) +
                                     "EnableKinesisStreamingDestination must be DISABLED or "
                                     "ENABLE_FAILED to perform ENABLE operation.");
          }
        }
        // The same stream again is the same entry, enabled anew (newest first).
        std::erase_if(list,
                      [&](const KinesisDestination& e) { return e.stream_arn == stream_arn; });
        KinesisDestination entry;
        entry.stream_arn = stream_arn;
        entry.precision = precision;
        entry.stream_name = where.stream_name;
        entry.status = where.failure.empty() ? KinesisDestinationStatus::kActive
                                             : KinesisDestinationStatus::kEnableFailed;
        entry.status_description = where.failure;
        list.insert(list.begin(), entry);
        Bound(&list);
        answer = entry;
        return Status::Ok();
      }));
  (void)after;
  answer.status = KinesisDestinationStatus::kEnabling;
  return answer;
}

Result<KinesisDestination> Engine::DisableKinesisStreamingDestination(
    const RequestContext& ctx, const std::string& table, const std::string& stream_arn) {
  (void)ctx;
  DDB_ASSIGN_OR_RETURN(auto info, TableFor(*impl_, table));
  KinesisDestination answer;
  DDB_ASSIGN_OR_RETURN(
      auto after,
      impl_->catalog->Update(info->description.table_name, [&](TableDescription* d) -> Status {
        KinesisDestination* e = EntryOf(&d->kinesis_destinations, stream_arn);
        if (!e || e->status != KinesisDestinationStatus::kActive) {
          return Error::Validation(std::string(kNotValidState) +
                                   "KinesisStreamingDestination must be ACTIVE to perform DISABLE "
                                   "operation.");
        }
        e->status = KinesisDestinationStatus::kDisabled;
        e->stream_name.clear();
        answer = *e;
        Bound(&d->kinesis_destinations);
        return Status::Ok();
      }));
  (void)after;
  answer.status = KinesisDestinationStatus::kDisabling;
  return answer;
}

Result<KinesisDestination> Engine::UpdateKinesisStreamingDestination(
    const RequestContext& ctx, const std::string& table, const std::string& stream_arn,
    KinesisTimePrecision precision) {
  (void)ctx;
  DDB_ASSIGN_OR_RETURN(auto info, TableFor(*impl_, table));
  KinesisDestination answer;
  DDB_ASSIGN_OR_RETURN(
      auto after,
      impl_->catalog->Update(info->description.table_name, [&](TableDescription* d) -> Status {
        KinesisDestination* e = EntryOf(&d->kinesis_destinations, stream_arn);
        if (!e) {
          return Error::Validation(std::string(kNotValidState) +
                                   "No streaming destination with streamArn: " + stream_arn +
                                   " found for table: " + d->table_name);
        }
        if (e->status != KinesisDestinationStatus::kActive) {
          return Error::Validation(std::string(kNotValidState) +
                                   "Kinesis streaming is not in ACTIVE state. Updates are only "
                                   "allowed in ACTIVE state. TableName: " +
                                   d->table_name);
        }
        if (e->precision.value_or(KinesisTimePrecision::kMillisecond) == precision) {
          return Error::Validation(
              std::string("Invalid Request: Precision is already set to the desired value of ") +
              (precision == KinesisTimePrecision::kMicrosecond ? "MICROSECOND" : "MILLISECOND") +
              " for tableId: " + d->table_id + ", kdsArn: " + stream_arn);
        }
        e->precision = precision;
        answer = *e;
        return Status::Ok();
      }));
  (void)after;
  answer.status = KinesisDestinationStatus::kUpdating;
  return answer;
}

Result<std::pair<std::string, std::vector<KinesisDestination>>>
Engine::DescribeKinesisStreamingDestination(const RequestContext& ctx, const std::string& table) {
  (void)ctx;
  DDB_ASSIGN_OR_RETURN(auto info, TableFor(*impl_, table));
  return std::make_pair(info->description.table_name, info->description.kinesis_destinations);
}

std::shared_ptr<const KinesisStreamState> EngineImpl::KinesisStreamOf(
    const TableDescription& d) const {
  for (const KinesisDestination& e : d.kinesis_destinations) {
    if (e.status == KinesisDestinationStatus::kActive && !e.stream_name.empty()) {
      return kinesis->Find(e.stream_name);
    }
  }
  return nullptr;
}

bool EngineImpl::AddKinesisChange(const TableInfo& table, std::string_view item_key,
                                  const std::optional<Item>& old,
                                  const std::optional<Item>& updated, WriteOrigin origin,
                                  uint64_t sequence, Storage::Batch* batch) {
  const TableDescription& d = table.description;
  std::shared_ptr<const KinesisStreamState> stream = KinesisStreamOf(d);
  if (!stream) return false;
  const KinesisDestination* entry = nullptr;
  for (const KinesisDestination& e : d.kinesis_destinations) {
    if (e.status == KinesisDestinationStatus::kActive) entry = &e;
  }
  KinesisChangeImage c;
  c.origin = static_cast<uint8_t>(origin);
  c.precision = !entry->precision                                         ? 0
                : *entry->precision == KinesisTimePrecision::kMicrosecond ? 2
                                                                          : 1;
  c.creation_us = NowMicros();
  c.table_name = d.table_name;
  const Item& any = updated ? *updated : *old;
  Item keys;
  for (const KeySchemaElement& k : d.key_schema) {
    if (auto it = any.find(k.attribute_name); it != any.end()) keys.insert(*it);
  }
  EncodeItem(keys, &c.keys);
  if (old) EncodeItem(*old, &c.old_image);
  if (updated) EncodeItem(*updated, &c.new_image);
  // One item's changes share a partition key, so they stay in one shard, in order; its form
  // is the service's (32 upper-case hex digits; how the service derives it is not on record).
  const std::string partition_key = util::AsciiUpperCopy(util::Md5Hex(item_key));
  const uint32_t shard = KinesisShardOfPartitionKey(partition_key, stream->shard_count);
  batch->Put(Cf::kKinesis, KinesisRecordKey(stream->id, shard, sequence),
             EncodeKinesisChange(NowMs(), partition_key, c));
  return true;
}

}  // namespace ddb
