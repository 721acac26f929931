// DynamoDB Streams inside the engine: the streams of each table, their records, and the
// codecs of stream ARNs, sequence numbers, shard ids and shard iterators. Internal: the
// embedding API is Engine::ListStreams/DescribeStream/GetShardIterator/GetRecords.
//
// A stream is (table id, label); the label is the stream's creation time in UTC with
// milliseconds ("2026-11-30T13:45:12.345", always 23 bytes), unique per table name. Each
// stream has exactly one shard (the service rotates shards every few hours; we do not).
//
// Stream records, streams column family (written in the item's WriteBatch):
//   key   := table_id (fixed32 BE) | label (23 bytes) | sequence (fixed64 BE)
//   value := origin (1 byte: 0 a request, 1 Time to Live, 2 another Region's change applied
//            by ApplyReplicated; | 0x80 when a stamp follows) | stamp (fixed64 BE, a global
//            table's writes: its last-writer-wins order, global_tables.cc)
//            | change record (change_log.h)
// so one stream's records are one key range in sequence order. Sequences come from the
// change log's ChangeSequencer, so they increase across all tables, and readers stop at its
// SafePoint() (no record can later appear below what a reader has passed).
//
// Stream metadata, meta column family:
//   key   := "stream/" | table_id (fixed32 BE) | label
//   value := item codec: TableName, ViewType, KeySchema, Created (ms), Start (first
//            sequence), End (last sequence, once disabled), Disabled (ms), Trimmed (records
//            below this sequence are gone)
//
// Retention: records older than EngineOptions::stream_retention_ms (24 h) are trimmed;
// disabled streams disappear that long after they were disabled.
//
// Thread safety: StreamRegistry's methods may be called concurrently; the codecs are pure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/change_log.h"
#include "engine/storage/storage.h"

namespace ddb {

// Shard iterators expire 15 minutes after they were issued, as in the service.
inline constexpr uint64_t kShardIteratorLifetimeMs = 15 * 60 * 1000;
inline constexpr size_t kStreamLabelSize = 23;

// "2026-11-30T13:45:12.345" for a time in milliseconds since the epoch (UTC).
std::string StreamLabelAt(uint64_t ms);
// The inverse; nullopt for anything that is not such a label.
std::optional<uint64_t> ParseStreamLabel(std::string_view label);

// arn:aws:dynamodb:<region>:<account>:table/<table>/stream/<label>
std::string StreamArn(const RequestContext& ctx, std::string_view table, std::string_view label);
// Table name and label of a stream ARN (any region and account); false when malformed.
bool ParseStreamArn(std::string_view arn, std::string* table, std::string* label);

// Sequence numbers on the wire: 21 decimal digits, zero-padded.
std::string FormatSequenceNumber(uint64_t sequence);
// Digits only (1..40 of them); false otherwise or when the value exceeds 64 bits.
bool ParseSequenceNumber(std::string_view text, uint64_t* sequence);

struct StreamInfo {
  uint32_t table_id = 0;
  std::string table_name;
  std::string label;
  StreamViewType view_type = StreamViewType::kKeysOnly;
  std::vector<KeySchemaElement> key_schema;
  uint64_t created_ms = 0;
  uint64_t start_sequence = 0;           // no record of the stream is below it
  std::optional<uint64_t> end_sequence;  // set when disabled: no record is above it
  uint64_t disabled_ms = 0;              // when end_sequence was set
  uint64_t trimmed_before = 0;           // records below this sequence were trimmed

  bool enabled() const { return !end_sequence.has_value(); }
  // shardId-<20-digit creation ms>-<8 hex digits>: the stream's one shard.
  std::string ShardId() const;
  // The oldest position still readable (TRIM_HORIZON).
  uint64_t FirstReadable() const { return std::max(start_sequence, trimmed_before); }
};

// What a shard iterator token holds. On the wire: "<stream arn>|1|<base64 payload>", where
// the payload (position, issue time, table id) carries a checksum so that a damaged or
// invented token is refused.
struct ShardIteratorToken {
  std::string table_name;
  std::string label;
  uint32_t table_id = 0;
  uint64_t position = 0;  // the next sequence to read
  uint64_t issued_ms = 0;
};
std::string EncodeShardIterator(const RequestContext& ctx, const ShardIteratorToken& token);
// False when the text is not a token this engine issued.
bool DecodeShardIterator(std::string_view text, ShardIteratorToken* token);

// Keys and values of the streams column family.
std::string StreamPrefix(uint32_t table_id, std::string_view label);
std::string StreamRecordKey(uint32_t table_id, std::string_view label, uint64_t sequence);
// On disk: do not renumber.
enum class WriteOrigin : uint8_t { kRequest = 0, kTimeToLive = 1, kReplicated = 2 };
// `stamp`: 0 for none (a table without replicas).
std::string EncodeStreamRecord(WriteOrigin origin, std::string_view change, uint64_t stamp = 0);
bool DecodeStreamRecord(std::string_view key, std::string_view value, ChangeRecord* record,
                        WriteOrigin* origin, uint64_t* stamp = nullptr, bool old_image = true);

// The streams that exist (enabled, or disabled less than the retention ago), cached in
// memory and persisted in the meta column family.
class StreamRegistry {
 public:
  // Errors: kInternal (unreadable metadata).
  static Result<std::unique_ptr<StreamRegistry>> Load(Storage* storage);

  // All streams ordered by (table name, label).
  std::vector<std::shared_ptr<const StreamInfo>> All() const;
  // Null when unknown.
  std::shared_ptr<const StreamInfo> Find(const std::string& table, const std::string& label) const;
  // A label for a new stream of "table" created at now_ms: later than all its earlier ones.
  std::string NewLabel(const std::string& table, uint64_t now_ms) const;

  // Persists a new stream. Errors: kInternal.
  Status Add(StreamInfo info);
  // Closes a stream (disabled, or its table deleted). Errors: kInternal.
  Status Close(const std::string& table, const std::string& label, uint64_t end_sequence,
               uint64_t now_ms);
  // Drops records older than retention_ms and streams disabled longer ago than that. Costs
  // the records dropped plus one look at each stream whose oldest record may have aged out.
  // A stream that cannot be trimmed now is tried again next time. Errors: the first one
  // (kInternal).
  Status Trim(uint64_t now_ms, uint64_t retention_ms);
  // The highest sequence any stream has used (records, ends), for the sequencer on open.
  uint64_t LastSequence() const;

 private:
  explicit StreamRegistry(Storage* storage) : storage_(storage) {}
  Status Persist(const StreamInfo& info);
  Storage* storage_;
  mutable std::mutex mu_;
  // (table name, label) -> stream; guarded by mu_
  std::map<std::pair<std::string, std::string>, std::shared_ptr<const StreamInfo>> streams_;
  // (table name, label) -> time before which Trim has nothing to drop there; guarded by mu_.
  // Keeps a round's cost to the streams that hold aged-out records.
  std::map<std::pair<std::string, std::string>, uint64_t> next_trim_ms_;
};

}  // namespace ddb
