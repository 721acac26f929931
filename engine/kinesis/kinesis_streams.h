// Kinesis Data Streams inside the engine (ddb/kinesis.h, docs/kinesis.md): the streams'
// registry and the codecs of their records, sequence numbers, shard ids and iterators.
// Internal: the embedding API is Engine::*Kinesis*.
//
// Records, kinesis column family (a PutRecord(s) batch, or the item's own WriteBatch for a
// table's change):
//   key   := stream id (fixed32 BE) | shard (fixed32 BE) | sequence (fixed64 BE)
//   value := kind (1 byte: 0 data put, 1 a table's change) | arrival ms (fixed64 BE)
//            | partition key (length-prefixed) | then, for data: the bytes;
//            for a change: origin (1 byte, WriteOrigin) | precision (1 byte: 0 unset,
//            1 ms, 2 us) | creation us (fixed64 BE) | table name (length-prefixed)
//            | keys item (length-prefixed) | old image (length-prefixed, "" for none)
//            | new image (likewise)
// Sequences come from the engine's ChangeSequencer (readers stop at its SafePoint), so
// they increase across the whole store; a stream id is never reused, so an iterator or a
// sequence number of a deleted stream never reads a later stream of the same name.
//
// Stream metadata, meta column family:
//   key   := "kinesis/" | name       value := item codec: Id, Mode, Shards, Created, Start
//   "kinesis_next_id": the id counter.
//
// Thread safety: KinesisRegistry's methods may be called concurrently; the codecs are pure.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "ddb/kinesis.h"
#include "engine/storage/storage.h"

namespace ddb {

struct KinesisStreamState {
  uint32_t id = 0;
  std::string name;
  KinesisStreamMode mode = KinesisStreamMode::kProvisioned;
  uint32_t shard_count = 1;
  uint64_t created_ms = 0;
  uint64_t start_sequence = 0;  // no record of the stream is below it
};

// The shard (0..shards-1) whose hash key range holds `hash` (a 128-bit value, big-endian
// bytes), as the service splits the range: equal parts, the last one taking the rest.
uint32_t KinesisShardOfHash(const unsigned char hash[16], uint32_t shards);
// The shard of a partition key: the MD5 of its UTF-8 bytes.
uint32_t KinesisShardOfPartitionKey(std::string_view partition_key, uint32_t shards);
// A decimal hash key 0..2^128-1 as 16 big-endian bytes; false when it is not one.
bool ParseKinesisHashKey(std::string_view decimal, unsigned char hash[16]);
// The decimal bounds of shard `shard` of `shards`.
std::string KinesisStartingHashKey(uint32_t shard, uint32_t shards);
std::string KinesisEndingHashKey(uint32_t shard, uint32_t shards);

// shardId-000000000000; and back (false unless exactly that form).
std::string KinesisShardId(uint32_t shard);
bool ParseKinesisShardId(std::string_view text, uint32_t* shard);

// Sequence numbers on the wire: "49" | stream id (10 digits) | shard (5) | sequence (20).
std::string FormatKinesisSequence(uint32_t stream_id, uint32_t shard, uint64_t sequence);
bool ParseKinesisSequence(std::string_view text, uint32_t* stream_id, uint32_t* shard,
                          uint64_t* sequence);

struct KinesisIterator {
  uint32_t stream_id = 0;
  uint32_t shard = 0;
  uint64_t position = 0;  // the next sequence to read
  uint64_t issued_ms = 0;
  uint64_t min_arrival_ms = 0;  // AT_TIMESTAMP: records that arrived earlier are skipped
};
// Base64 of the fields and a checksum, so that a damaged or invented iterator is refused.
std::string EncodeKinesisIterator(const KinesisIterator& it);
bool DecodeKinesisIterator(std::string_view text, KinesisIterator* it);

std::string KinesisShardPrefix(uint32_t stream_id, uint32_t shard);
std::string KinesisRecordKey(uint32_t stream_id, uint32_t shard, uint64_t sequence);
bool ParseKinesisRecordKey(std::string_view key, uint32_t* stream_id, uint32_t* shard,
                           uint64_t* sequence);

struct KinesisChangeImage {
  uint8_t origin = 0;     // WriteOrigin
  uint8_t precision = 0;  // 0 unset, 1 ms, 2 us
  uint64_t creation_us = 0;
  std::string table_name;
  std::string keys;       // item codec
  std::string old_image;  // item codec; "" for none
  std::string new_image;
};
std::string EncodeKinesisData(uint64_t arrival_ms, std::string_view partition_key,
                              std::string_view data);
std::string EncodeKinesisChange(uint64_t arrival_ms, std::string_view partition_key,
                                const KinesisChangeImage& change);
struct DecodedKinesisRecord {
  uint64_t arrival_ms = 0;
  std::string partition_key;
  std::string data;
  std::optional<KinesisChangeImage> change;
};
bool DecodeKinesisRecord(std::string_view value, DecodedKinesisRecord* out);

// The streams of one engine, cached in memory and persisted in the meta column family.
class KinesisRegistry {
 public:
  // Errors: kInternal (unreadable metadata).
  static Result<std::unique_ptr<KinesisRegistry>> Load(Storage* storage);

  std::shared_ptr<const KinesisStreamState> Find(const std::string& name) const;
  std::shared_ptr<const KinesisStreamState> FindById(uint32_t id) const;
  std::vector<std::shared_ptr<const KinesisStreamState>> All() const;  // by name

  // Adds a stream (its id assigned here). Errors: kResourceInUse (the name exists),
  // kLimitExceeded (over kMaxKinesisShardsPerAccount shards in all), kInternal.
  Result<std::shared_ptr<const KinesisStreamState>> Add(KinesisStreamState state,
                                                        const std::string& account,
                                                        const std::string& region);
  // Removes a stream and its records. Errors: kResourceNotFound, kInternal.
  Status Remove(const std::string& name, const std::string& account);
  // Drops records that arrived before `cutoff_ms`: costs the records dropped plus one seek
  // per shard whose oldest record may have aged out. Errors: the first one (kInternal).
  Status Trim(uint64_t cutoff_ms, uint64_t retention_ms);
  // The highest sequence any record holds (one reverse seek per shard), for the sequencer.
  Result<uint64_t> LastSequence() const;

 private:
  explicit KinesisRegistry(Storage* storage) : storage_(storage) {}
  Storage* storage_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const KinesisStreamState>> by_name_;  // guarded
  std::map<uint32_t, std::shared_ptr<const KinesisStreamState>> by_id_;       // guarded
  // (stream id, shard) -> time before which Trim has nothing to drop there; guarded.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> next_trim_ms_;
};

// "Stream <name> under account <account> not found." (the service's text).
Error KinesisStreamNotFound(const std::string& name, const std::string& account);

}  // namespace ddb
