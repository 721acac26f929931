// Kinesis Data Streams operations (Engine::*Kinesis*; ddb/kinesis.h, docs/kinesis.md). Layout
// and codecs: kinesis_streams.h.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>

#include "ddb/stored_item.h"
#include "engine/engine_impl.h"
#include "util/iso8601.h"

namespace ddb {
namespace {

Error InvalidArgument(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

std::string StreamArnOf(const RequestContext& ctx, const std::string& name) {
  return "arn:aws:kinesis:" + ctx.region + ":" + ctx.account_id + ":stream/" + name;
}

KinesisStreamInfo InfoOf(const RequestContext& ctx, const KinesisStreamState& s) {
  KinesisStreamInfo info;
  info.name = s.name;
  info.arn = StreamArnOf(ctx, s.name);
  info.mode = s.mode;
  info.created_ms = s.created_ms;
  info.shards.reserve(s.shard_count);
  for (uint32_t i = 0; i < s.shard_count; ++i) {
    info.shards.push_back({KinesisShardId(i), KinesisStartingHashKey(i, s.shard_count),
                           KinesisEndingHashKey(i, s.shard_count),
                           FormatKinesisSequence(s.id, i, s.start_sequence)});
  }
  return info;
}

// A UUID-shaped id derived from the record's place, so that every read gives the same one.
std::string EventIdOf(uint32_t stream_id, uint32_t shard, uint64_t sequence) {
  const std::string key = KinesisRecordKey(stream_id, shard, sequence);
  XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  uint64_t hi = (h.high64 & ~0xf000ull) | 0x4000ull;                        // version 4
  uint64_t lo = (h.low64 & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffull));
  return buf;
}

bool ToTableChange(const KinesisChangeImage& c, uint32_t stream_id, uint32_t shard,
                   uint64_t sequence, KinesisTableChange* out) {
  out->table_name = c.table_name;
  out->event_id = EventIdOf(stream_id, shard, sequence);
  out->creation_us = c.creation_us;
  out->precision_set = c.precision != 0;
  out->precision =
      c.precision == 2 ? KinesisTimePrecision::kMicrosecond : KinesisTimePrecision::kMillisecond;
  out->by_time_to_live = c.origin == static_cast<uint8_t>(WriteOrigin::kTimeToLive);
  if (!DecodeItem(c.keys, &out->keys)) return false;
  out->size_bytes = static_cast<int64_t>(ItemSize(out->keys));
  if (!c.new_image.empty()) {
    out->new_image.emplace();
    if (!DecodeItem(c.new_image, &*out->new_image)) return false;
    out->size_bytes += static_cast<int64_t>(ItemSize(*out->new_image));
  }
  if (!c.old_image.empty()) {
    out->old_image.emplace();
    if (!DecodeItem(c.old_image, &*out->old_image)) return false;
    out->size_bytes += static_cast<int64_t>(ItemSize(*out->old_image));
  }
  out->event_name = !out->old_image ? "INSERT" : !out->new_image ? "REMOVE" : "MODIFY";
  return true;
}

}  // namespace

Status Engine::CreateKinesisStream(const RequestContext& ctx,
                                   const CreateKinesisStreamRequest& req) {
  KinesisStreamState state;
  state.name = req.name;
  state.mode = req.mode;
  if (req.mode == KinesisStreamMode::kOnDemand) {
    state.shard_count = kKinesisOnDemandShards;
  } else {
    if (!req.shard_count) {
      return InvalidArgument("ShardCount is required for streams in PROVISIONED mode.");
    }
    if (*req.shard_count < 1) return InvalidArgument("ShardCount must be at least 1.");
    state.shard_count = static_cast<uint32_t>(*req.shard_count);
  }
  state.created_ms = impl_->NowMs();
  // No record of the new stream is below the next sequence.
  state.start_sequence = impl_->sequencer->Peek();
  DDB_ASSIGN_OR_RETURN(auto added,
                       impl_->kinesis->Add(std::move(state), ctx.account_id, ctx.region));
  (void)added;
  return Status::Ok();
}

Status Engine::DeleteKinesisStream(const RequestContext& ctx, const std::string& name) {
  return impl_->kinesis->Remove(name, ctx.account_id);
}

Result<KinesisStreamInfo> Engine::DescribeKinesisStream(const RequestContext& ctx,
                                                        const std::string& name) {
  auto stream = impl_->kinesis->Find(name);
  if (!stream) return KinesisStreamNotFound(name, ctx.account_id);
  return InfoOf(ctx, *stream);
}

std::vector<KinesisStreamInfo> Engine::ListKinesisStreams(const RequestContext& ctx) {
  std::vector<KinesisStreamInfo> out;
  for (const auto& s : impl_->kinesis->All()) out.push_back(InfoOf(ctx, *s));
  return out;
}

Result<std::string> Engine::GetKinesisShardIterator(const RequestContext& ctx,
                                                    const KinesisShardIteratorRequest& req) {
  auto stream = impl_->kinesis->Find(req.stream_name);
  if (!stream) return KinesisStreamNotFound(req.stream_name, ctx.account_id);
  uint32_t shard = 0;
  if (!ParseKinesisShardId(req.shard_id, &shard)) {
    return Error::NotFound("Could not find shard " + req.shard_id + " in stream " +
                           req.stream_name + " under account " + ctx.account_id + ".");
  }
  if (shard >= stream->shard_count) {
    return Error::NotFound("Shard " + req.shard_id + " in stream " + req.stream_name +
                           " under account " + ctx.account_id + " does not exist");
  }
  const bool by_sequence = req.type == KinesisIteratorType::kAtSequenceNumber ||
                           req.type == KinesisIteratorType::kAfterSequenceNumber;
  const std::string type_name =
      req.type == KinesisIteratorType::kAtSequenceNumber      ? "AT_SEQUENCE_NUMBER"
      : req.type == KinesisIteratorType::kAfterSequenceNumber ? "AFTER_SEQUENCE_NUMBER"
      : req.type == KinesisIteratorType::kTrimHorizon         ? "TRIM_HORIZON"
      : req.type == KinesisIteratorType::kLatest              ? "LATEST"
                                                              : "AT_TIMESTAMP";
  constexpr std::string_view kEither =
      "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER and "
      "StartingSequenceNumber or (2) TRIM_HORIZON or LATEST and no StartingSequenceNumber. "
      "Request specified ";
  if (by_sequence && !req.starting_sequence_number) {
    return InvalidArgument(std::string(kEither) + type_name + " and no StartingSequenceNumber.");
  }
  if (!by_sequence && req.starting_sequence_number) {
    return InvalidArgument(std::string(kEither) + type_name +
                           " and also a StartingSequenceNumber.");
  }
  if (req.type == KinesisIteratorType::kAtTimestamp && !req.timestamp_ms) {
    return InvalidArgument(
        "The timestampInMillis parameter cannot be null for ShardIteratorType: " + type_name);
  }
  KinesisIterator it;
  it.stream_id = stream->id;
  it.shard = shard;
  it.issued_ms = impl_->NowMs();
  switch (req.type) {
    case KinesisIteratorType::kTrimHorizon:
      it.position = stream->start_sequence;
      break;
    case KinesisIteratorType::kLatest:
      it.position = impl_->sequencer->SafePoint() + 1;
      break;
    case KinesisIteratorType::kAtTimestamp:
      it.position = stream->start_sequence;
      it.min_arrival_ms = *req.timestamp_ms;
      break;
    case KinesisIteratorType::kAtSequenceNumber:
    case KinesisIteratorType::kAfterSequenceNumber: {
      uint32_t id = 0, of_shard = 0;
      uint64_t sequence = 0;
      const std::string& text = *req.starting_sequence_number;
      if (!ParseKinesisSequence(text, &id, &of_shard, &sequence)) {
        return InvalidArgument("StartingSequenceNumber " + text +
                               " used in GetShardIterator on shard " + req.shard_id +
                               " in stream " + req.stream_name + " under account " +
                               ctx.account_id + " is invalid.");
      }
      if (id != stream->id) {
        return InvalidArgument(
            "StartingSequenceNumber " + text + " used in GetShardIterator on shard " +
            req.shard_id + " in stream " + req.stream_name + " under account " + ctx.account_id +
            " is invalid because it did not come from this "
            "stream.");
      }
      if (of_shard != shard) {
        return InvalidArgument("Invalid StartingSequenceNumber. It encodes " +
                               KinesisShardId(of_shard) +
                               ", while it was used in a call to a shard with " + req.shard_id);
      }
      it.position = req.type == KinesisIteratorType::kAtSequenceNumber ? sequence : sequence + 1;
      if (sequence == UINT64_MAX) it.position = sequence;
      break;
    }
  }
  return EncodeKinesisIterator(it);
}

Result<KinesisGetRecordsResult> Engine::GetKinesisRecords(const RequestContext& ctx,
                                                          const std::string& iterator, int limit) {
  KinesisIterator it;
  if (!DecodeKinesisIterator(iterator, &it)) return InvalidArgument("Invalid ShardIterator.");
  const uint64_t now = impl_->NowMs();
  if (now > it.issued_ms + kKinesisIteratorLifetimeMs) {
    return Error(ErrorCode::kExpiredIterator,
                 "Iterator expired. The iterator was created at time " +
                     util::FormatJavaDateUtc(it.issued_ms) + " while right now it is " +
                     util::FormatJavaDateUtc(now) +
                     " which is further in the future than the tolerated delay of " +
                     std::to_string(kKinesisIteratorLifetimeMs) + " milliseconds.");
  }
  auto stream = impl_->kinesis->FindById(it.stream_id);
  if (!stream || it.shard >= stream->shard_count) {
    return Error::NotFound("Shard " + KinesisShardId(it.shard) + " in stream under account " +
                           ctx.account_id + " does not exist");
  }
  limit = std::clamp(limit, 1, kMaxKinesisGetRecordsLimit);
  const uint64_t safe = impl_->sequencer->SafePoint();
  KinesisGetRecordsResult result;
  uint64_t next = it.position;
  if (it.position <= safe) {
    size_t bytes = 0;
    size_t visited = 0;  // records skipped (AT_TIMESTAMP) count too: bounded work per call
    bool stopped = false;
    uint64_t last_arrival = 0;
    Status bad = Status::Ok();
    DDB_RETURN_IF_ERROR(impl_->storage->ForEach(
        Cf::kKinesis, KinesisRecordKey(it.stream_id, it.shard, it.position),
        KinesisRecordKey(it.stream_id, it.shard, safe + 1),
        [&](std::string_view key, std::string_view value) {
          uint32_t id = 0, shard = 0;
          uint64_t sequence = 0;
          DecodedKinesisRecord decoded;
          if (!ParseKinesisRecordKey(key, &id, &shard, &sequence) ||
              !DecodeKinesisRecord(value, &decoded)) {
            bad = Error::Internal("unreadable Kinesis record");
            return false;
          }
          const size_t size =
              decoded.data.size() + decoded.partition_key.size() +
              (decoded.change ? decoded.change->keys.size() + decoded.change->old_image.size() +
                                    decoded.change->new_image.size()
                              : 0);
          if (!result.records.empty() && bytes + size > kMaxKinesisGetRecordsBytes) {
            stopped = true;
            return false;
          }
          next = sequence + 1;
          ++visited;
          if (decoded.arrival_ms >= it.min_arrival_ms) {
            KinesisRecord r;
            r.sequence_number = FormatKinesisSequence(id, shard, sequence);
            r.arrival_ms = decoded.arrival_ms;
            r.partition_key = std::move(decoded.partition_key);
            r.data = std::move(decoded.data);
            if (decoded.change) {
              r.change.emplace();
              if (!ToTableChange(*decoded.change, id, shard, sequence, &*r.change)) {
                bad = Error::Internal("unreadable Kinesis record");
                return false;
              }
            }
            last_arrival = r.arrival_ms;
            bytes += size;
            result.records.push_back(std::move(r));
          }
          if (static_cast<int>(result.records.size()) >= limit ||
              visited >= static_cast<size_t>(kMaxKinesisGetRecordsLimit)) {
            stopped = true;
            return false;
          }
          return true;
        }));
    DDB_RETURN_IF_ERROR(bad);
    if (!stopped) next = safe + 1;  // read to the safe point: nothing below it can appear
    if (stopped && last_arrival > 0 && now > last_arrival) {
      result.millis_behind_latest = now - last_arrival;
    }
  }
  it.position = std::max(next, it.position);
  it.issued_ms = now;
  // Once past every record an AT_TIMESTAMP iterator skipped, it needs no filter.
  if (!result.records.empty()) it.min_arrival_ms = 0;
  result.next_shard_iterator = EncodeKinesisIterator(it);
  return result;
}

Result<std::vector<KinesisPutResult>> Engine::PutKinesisRecords(
    const RequestContext& ctx, const std::string& name,
    const std::vector<KinesisPutEntry>& entries) {
  auto stream = impl_->kinesis->Find(name);
  if (!stream) return KinesisStreamNotFound(name, ctx.account_id);
  std::vector<uint32_t> shards;
  shards.reserve(entries.size());
  for (const KinesisPutEntry& e : entries) {
    if (e.explicit_hash_key) {
      unsigned char hash[16];
      if (!ParseKinesisHashKey(*e.explicit_hash_key, hash)) {
        return InvalidArgument(
            "Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. "
            "Specified value was " +
            *e.explicit_hash_key);
      }
      shards.push_back(KinesisShardOfHash(hash, stream->shard_count));
    } else {
      shards.push_back(KinesisShardOfPartitionKey(e.partition_key, stream->shard_count));
    }
  }
  const uint64_t now = impl_->NowMs();
  Storage::Batch batch(*impl_->storage);
  std::vector<uint64_t> sequences;
  std::vector<KinesisPutResult> results;
  sequences.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t sequence = impl_->sequencer->Begin();
    sequences.push_back(sequence);
    batch.Put(Cf::kKinesis, KinesisRecordKey(stream->id, shards[i], sequence),
              EncodeKinesisData(now, entries[i].partition_key, entries[i].data));
    results.push_back(
        {KinesisShardId(shards[i]), FormatKinesisSequence(stream->id, shards[i], sequence)});
  }
  DDB_RETURN_IF_ERROR(impl_->Commit(batch, sequences, WriteSync::kAsOpened));
  return results;
}

Status EngineImpl::TrimKinesisRecords() {
  return kinesis->Trim(NowMs(), static_cast<uint64_t>(options.stream_retention_ms));
}

}  // namespace ddb
