// Kinesis Data Streams inside the engine, and DynamoDB's Kinesis streaming destinations
// (docs/kinesis.md): the types of the Engine's Kinesis* calls (ddb/engine.h).
//
// A Kinesis stream lives in the engine of its account and Region, beside the tables: its
// records are kept for 24 hours, in shards chosen by the MD5 of the partition key as the
// service chooses them. A table with an ACTIVE destination writes each change of an item
// into the stream in the item's own write, so the stream holds exactly the acknowledged
// changes, each once, in commit order per item.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"

namespace ddb {

// Limits of this implementation and of the service's default quotas.
inline constexpr int kMaxKinesisShardsPerAccount = 500;        // the service's shard quota
inline constexpr int kKinesisOnDemandShards = 4;               // an ON_DEMAND stream's shards
inline constexpr size_t kMaxKinesisRecordBytes = 1024 * 1024;  // data + partition key
inline constexpr size_t kMaxKinesisPutRecordsBytes = 5 * 1024 * 1024;
inline constexpr size_t kMaxKinesisPutRecordsEntries = 500;
inline constexpr int kMaxKinesisGetRecordsLimit = 10000;
inline constexpr size_t kMaxKinesisGetRecordsBytes = 10 * 1024 * 1024;
inline constexpr uint64_t kKinesisIteratorLifetimeMs = 5 * 60 * 1000;
// Kept DISABLED and ENABLE_FAILED destinations per table (the newest); live ones are kept.
inline constexpr size_t kMaxKeptKinesisDestinations = 10;

enum class KinesisStreamMode : uint8_t { kProvisioned, kOnDemand };

struct KinesisShard {
  std::string shard_id;  // shardId-000000000000
  std::string starting_hash_key;
  std::string ending_hash_key;
  std::string starting_sequence_number;
};

struct KinesisStreamInfo {
  std::string name;
  std::string arn;  // arn:aws:kinesis:<region>:<account>:stream/<name>
  KinesisStreamMode mode = KinesisStreamMode::kProvisioned;
  uint64_t created_ms = 0;
  int retention_hours = 24;
  std::vector<KinesisShard> shards;
};

struct CreateKinesisStreamRequest {
  std::string name;
  std::optional<int> shard_count;  // PROVISIONED: required
  KinesisStreamMode mode = KinesisStreamMode::kProvisioned;
};

enum class KinesisIteratorType : uint8_t {
  kAtSequenceNumber,
  kAfterSequenceNumber,
  kTrimHorizon,
  kLatest,
  kAtTimestamp,
};

struct KinesisShardIteratorRequest {
  std::string stream_name;
  std::string shard_id;
  KinesisIteratorType type = KinesisIteratorType::kTrimHorizon;
  std::optional<std::string> starting_sequence_number;
  std::optional<uint64_t> timestamp_ms;  // AT_TIMESTAMP
};

enum class KinesisTimePrecision : uint8_t { kMillisecond, kMicrosecond };

// An item change a table's destination wrote into the stream (the service's record format,
// rendered by protocol/): the change and when it was made.
struct KinesisTableChange {
  std::string table_name;
  std::string event_id;    // a UUID, the same on every read of the record
  std::string event_name;  // INSERT, MODIFY, REMOVE
  uint64_t creation_us = 0;
  KinesisTimePrecision precision = KinesisTimePrecision::kMillisecond;
  bool precision_set = false;  // the destination was given a precision
  Item keys;
  std::optional<Item> new_image;
  std::optional<Item> old_image;
  int64_t size_bytes = 0;
  bool by_time_to_live = false;
};

struct KinesisRecord {
  std::string sequence_number;
  uint64_t arrival_ms = 0;
  std::string partition_key;
  std::string data;  // the bytes put (empty for a table change: rendered from `change`)
  std::optional<KinesisTableChange> change;
};

struct KinesisGetRecordsResult {
  std::vector<KinesisRecord> records;
  std::string next_shard_iterator;
  uint64_t millis_behind_latest = 0;
};

struct KinesisPutEntry {
  std::string data;
  std::string partition_key;
  std::optional<std::string> explicit_hash_key;  // decimal, 0..2^128-1
};

struct KinesisPutResult {
  std::string shard_id;
  std::string sequence_number;
};

// DynamoDB's Kinesis streaming destinations.
enum class KinesisDestinationStatus : uint8_t {
  kEnabling,
  kActive,
  kDisabling,
  kDisabled,
  kEnableFailed,
  kUpdating,
};

struct KinesisDestination {
  std::string stream_arn;
  KinesisDestinationStatus status = KinesisDestinationStatus::kActive;
  std::optional<KinesisTimePrecision> precision;  // absent: never set (milliseconds)
  std::string status_description;                 // why ENABLE_FAILED
  std::string stream_name;                        // the stream an ACTIVE one writes to
};

}  // namespace ddb
