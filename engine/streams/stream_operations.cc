// DynamoDB Streams operations (ListStreams, DescribeStream, GetShardIterator, GetRecords)
// and the stream side of table lifecycle events. Layout and codecs: streams.h.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <chrono>
#include <cstdio>

#include "engine/engine_impl.h"
#include "util/iso8601.h"

namespace ddb {
namespace {

// GetRecords returns at most this much record data per call, as the service does.
constexpr int64_t kMaxRecordBytes = 1024 * 1024;

Error InvalidArn() { return Error::Validation("Invalid StreamArn"); }

Error StreamNotFound(const std::string& arn) {
  return Error::NotFound("Requested resource not found: Stream: " + arn + " not found");
}

Result<std::shared_ptr<const StreamInfo>> FindStream(const StreamRegistry& registry,
                                                     const std::string& arn) {
  std::string table, label;
  if (!ParseStreamArn(arn, &table, &label)) return InvalidArn();
  auto stream = registry.Find(table, label);
  if (!stream) return StreamNotFound(arn);
  return stream;
}

std::string EventId(const StreamInfo& stream, uint64_t sequence) {
  std::string key = StreamRecordKey(stream.table_id, stream.label, sequence);
  XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

StreamRecord ToStreamRecord(const StreamInfo& stream, const ChangeRecord& change,
                            WriteOrigin origin, const std::string& region) {
  StreamRecord r;
  r.event_id = EventId(stream, change.sequence);
  r.event_name = !change.old_image ? "INSERT" : !change.new_image ? "REMOVE" : "MODIFY";
  r.aws_region = region;
  r.approximate_creation_date_time = static_cast<double>(change.commit_time_ms / 1000);
  const Item& any = change.new_image ? *change.new_image : *change.old_image;
  for (const KeySchemaElement& k : stream.key_schema) {
    if (auto it = any.find(k.attribute_name); it != any.end()) r.keys.insert(*it);
  }
  r.size_bytes = static_cast<int64_t>(ItemSize(r.keys));
  const StreamViewType view = stream.view_type;
  const bool both = view == StreamViewType::kNewAndOldImages;
  if ((both || view == StreamViewType::kNewImage) && change.new_image) {
    r.new_image = change.new_image;
    r.size_bytes += static_cast<int64_t>(ItemSize(*r.new_image));
  }
  if ((both || view == StreamViewType::kOldImage) && change.old_image) {
    r.old_image = change.old_image;
    r.size_bytes += static_cast<int64_t>(ItemSize(*r.old_image));
  }
  r.sequence_number = FormatSequenceNumber(change.sequence);
  r.stream_view_type = view;
  r.by_time_to_live = origin == WriteOrigin::kTimeToLive;
  return r;
}

}  // namespace

Status EngineImpl::OpenStream(const TableInfo& table, uint64_t start_sequence) {
  const TableDescription& d = table.description;
  StreamInfo info;
  info.table_id = table.id;
  info.table_name = d.table_name;
  info.label = *d.latest_stream_label;
  info.view_type = d.stream_specification->stream_view_type.value_or(StreamViewType::kKeysOnly);
  info.key_schema = d.key_schema;
  info.created_ms = ParseStreamLabel(info.label).value_or(NowMs());
  info.start_sequence = start_sequence;
  return streams->Add(std::move(info));
}

Status EngineImpl::CloseStream(const std::string& table, const std::string& label) {
  // REQUIRES: the catalog no longer shows the stream enabled. A writer that takes its
  // sequence after this Peek() sees that when it looks again (AddWrite), so no record of
  // the stream lies past the end.
  return streams->Close(table, label, sequencer->Peek() - 1, NowMs());
}

Result<ListStreamsResult> Engine::ListStreams(const RequestContext& ctx,
                                              const ListStreamsRequest& req) {
  std::optional<std::pair<std::string, std::string>> after;
  if (req.exclusive_start_stream_arn) {
    std::string table, label;
    if (!ParseStreamArn(*req.exclusive_start_stream_arn, &table, &label)) return InvalidArn();
    after = std::make_pair(table, label);
  }
  ListStreamsResult result;
  for (const auto& stream : impl_->streams->All()) {
    if (req.table_name && stream->table_name != *req.table_name) continue;
    if (after && std::make_pair(stream->table_name, stream->label) <= *after) continue;
    if (result.streams.size() == static_cast<size_t>(req.limit)) {
      result.last_evaluated_stream_arn = result.streams.back().stream_arn;
      break;
    }
    result.streams.push_back(
        {StreamArn(ctx, stream->table_name, stream->label), stream->table_name, stream->label});
  }
  return result;
}

Result<StreamDescription> Engine::DescribeStream(const RequestContext& ctx,
                                                 const DescribeStreamRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto stream, FindStream(*impl_->streams, req.stream_arn));
  StreamDescription d;
  d.stream_arn = StreamArn(ctx, stream->table_name, stream->label);
  d.stream_label = stream->label;
  d.stream_status = stream->enabled() ? StreamStatus::kEnabled : StreamStatus::kDisabled;
  d.stream_view_type = stream->view_type;
  d.creation_request_date_time = static_cast<double>(stream->created_ms) / 1000.0;
  d.table_name = stream->table_name;
  d.key_schema = stream->key_schema;
  std::string shard_id = stream->ShardId();
  // Shards are listed in shard-id order; one past the start id is the next page.
  if (!req.exclusive_start_shard_id || *req.exclusive_start_shard_id < shard_id) {
    StreamShard shard;
    shard.shard_id = shard_id;
    shard.starting_sequence_number = FormatSequenceNumber(stream->start_sequence);
    if (stream->end_sequence) {
      shard.ending_sequence_number = FormatSequenceNumber(*stream->end_sequence);
    }
    d.shards.push_back(std::move(shard));
  }
  return d;
}

Result<std::string> Engine::GetShardIterator(const RequestContext& ctx,
                                             const GetShardIteratorRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto stream, FindStream(*impl_->streams, req.stream_arn));
  if (req.shard_id != stream->ShardId()) {
    return Error::NotFound("Requested resource not found: Shard: " + req.shard_id +
                           " in Stream: " + req.stream_arn + " not found");
  }
  bool by_sequence = req.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ||
                     req.shard_iterator_type == ShardIteratorType::kAfterSequenceNumber;
  if (by_sequence && !req.sequence_number) {
    return Error::Validation(
        "Invalid Request: SequenceNumber must be provided for ShardIteratorType "
        "AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER");
  }
  if (!by_sequence && req.sequence_number) {
    return Error::Validation(
        "Invalid Request: SequenceNumber may only be provided for ShardIteratorType "
        "AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER");
  }
  ShardIteratorToken token;
  token.table_name = stream->table_name;
  token.label = stream->label;
  token.table_id = stream->table_id;
  token.issued_ms = impl_->NowMs();
  switch (req.shard_iterator_type) {
    case ShardIteratorType::kTrimHorizon:
      token.position = stream->FirstReadable();
      break;
    case ShardIteratorType::kLatest:
      // Just past every committed record: only later writes are read.
      token.position = std::max(impl_->sequencer->SafePoint() + 1, stream->FirstReadable());
      if (stream->end_sequence)
        token.position = std::max(token.position, *stream->end_sequence + 1);
      break;
    case ShardIteratorType::kAtSequenceNumber:
    case ShardIteratorType::kAfterSequenceNumber: {
      uint64_t sequence = 0;
      if (!ParseSequenceNumber(*req.sequence_number, &sequence)) {
        return Error::Validation("Invalid SequenceNumber: " + *req.sequence_number);
      }
      if (sequence < stream->start_sequence ||
          (stream->end_sequence && sequence > *stream->end_sequence)) {
        return Error::Validation("Invalid SequenceNumber: " + *req.sequence_number +
                                 " is not in the range of shard " + req.shard_id);
      }
      if (sequence < stream->trimmed_before) {
        return Error(ErrorCode::kTrimmedDataAccess,
                     "Attempted to access data that is beyond the trim horizon of shard " +
                         req.shard_id + " (sequence number " + *req.sequence_number + ")");
      }
      token.position =
          req.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ? sequence : sequence + 1;
      break;
    }
  }
  return EncodeShardIterator(ctx, token);
}

Result<GetRecordsResult> Engine::GetRecords(const RequestContext& ctx,
                                            const GetRecordsRequest& req) {
  ShardIteratorToken token;
  if (!DecodeShardIterator(req.shard_iterator, &token)) {
    return Error::Validation("Invalid ShardIterator");
  }
  uint64_t now = impl_->NowMs();
  if (now > token.issued_ms + kShardIteratorLifetimeMs) {
    return Error(ErrorCode::kExpiredIterator,
                 "Iterator expired. The iterator was created at time " +
                     util::FormatJavaDateUtc(token.issued_ms) + " while right now it is " +
                     util::FormatJavaDateUtc(now) +
                     " which is further in the future than the tolerated delay of " +
                     std::to_string(kShardIteratorLifetimeMs) + " milliseconds.");
  }
  auto stream = impl_->streams->Find(token.table_name, token.label);
  if (!stream) return StreamNotFound(StreamArn(ctx, token.table_name, token.label));
  if (stream->table_id != token.table_id) return Error::Validation("Invalid ShardIterator");
  if (token.position < stream->trimmed_before) {
    return Error(
        ErrorCode::kTrimmedDataAccess,
        "Attempted to access data that is beyond the trim horizon of shard " + stream->ShardId());
  }
  // Only records below the safe point: no record can later appear before them.
  uint64_t upper = impl_->sequencer->SafePoint();
  if (stream->end_sequence) upper = std::min(upper, *stream->end_sequence);
  GetRecordsResult result;
  uint64_t next = token.position;
  if (upper >= token.position) {
    next = upper + 1;
    int64_t bytes = 0;
    bool bad = false;
    DDB_RETURN_IF_ERROR(impl_->storage->ForEach(
        Cf::kStreams, StreamRecordKey(stream->table_id, stream->label, token.position),
        StreamRecordKey(stream->table_id, stream->label, upper + 1),
        [&](std::string_view key, std::string_view value) {
          ChangeRecord change;
          WriteOrigin origin;
          if (!DecodeStreamRecord(key, value, &change, &origin)) {
            bad = true;
            return false;
          }
          result.records.push_back(ToStreamRecord(*stream, change, origin, ctx.region));
          bytes += result.records.back().size_bytes;
          if (result.records.size() >= static_cast<size_t>(req.limit) || bytes >= kMaxRecordBytes) {
            next = change.sequence + 1;
            return false;
          }
          return true;
        }));
    if (bad) return Error::Internal("unreadable stream record");
  }
  // A closed shard read to its end has no next iterator.
  if (!stream->end_sequence || next <= *stream->end_sequence) {
    token.position = next;
    token.issued_ms = now;
    result.next_shard_iterator = EncodeShardIterator(ctx, token);
  }
  return result;
}

}  // namespace ddb
