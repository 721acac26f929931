#include "engine/kinesis/kinesis_streams.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdio>

#include "ddb/stored_item.h"
#include "engine/storage/coding.h"
#include "util/base64.h"
#include "util/digest.h"

namespace ddb {
namespace {

using U128 = unsigned __int128;
constexpr U128 kMaxHash = ~U128{0};
constexpr std::string_view kMetaPrefix = "kinesis/";
constexpr std::string_view kNextIdKey = "kinesis_next_id";
constexpr std::string_view kSequencePrefix = "49";
constexpr size_t kSequenceDigits = 2 + 10 + 5 + 20;
// The first 8 bytes of an iterator (the service's iterators start so: "AAAAAAAAAAE...").
constexpr std::string_view kIteratorMagic("\0\0\0\0\0\0\0\1", 8);
constexpr size_t kTrimChunk = 10000;

U128 HashOf(const unsigned char hash[16]) {
  U128 v = 0;
  for (int i = 0; i < 16; ++i) v = (v << 8) | hash[i];
  return v;
}

// floor(2^128 / shards): 2^128 itself does not fit, so from (2^128 - 1).
U128 ShardWidth(uint32_t shards) {
  return kMaxHash / shards + (kMaxHash % shards == shards - 1 ? 1 : 0);
}

std::string Decimal(U128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t DigitsValue(std::string_view s) {
  uint64_t v = 0;
  for (char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v;
}

std::string MetaKey(std::string_view name) { return std::string(kMetaPrefix) + std::string(name); }

AttributeValue Num(uint64_t v) { return AttributeValue::N(std::to_string(v)); }

Item ToRecord(const KinesisStreamState& s) {
  return Item{{"Id", Num(s.id)},
              {"Name", AttributeValue::S(s.name)},
              {"Mode", Num(static_cast<uint64_t>(s.mode))},
              {"Shards", Num(s.shard_count)},
              {"Created", Num(s.created_ms)},
              {"Start", Num(s.start_sequence)}};
}

bool FromRecord(const Item& r, KinesisStreamState* s) {
  auto num = [&r](const char* name, uint64_t* out) {
    auto it = r.find(name);
    if (it == r.end() || !AllDigits(it->second.scalar())) return false;
    *out = std::stoull(it->second.scalar());
    return true;
  };
  uint64_t id = 0, mode = 0, shards = 0;
  auto name = r.find("Name");
  if (name == r.end() || !num("Id", &id) || !num("Mode", &mode) || !num("Shards", &shards) ||
      !num("Created", &s->created_ms) || !num("Start", &s->start_sequence) || shards == 0) {
    return false;
  }
  s->id = static_cast<uint32_t>(id);
  s->name = name->second.scalar();
  s->mode = mode == 1 ? KinesisStreamMode::kOnDemand : KinesisStreamMode::kProvisioned;
  s->shard_count = static_cast<uint32_t>(shards);
  return true;
}

void PutPrefixed(std::string* out, std::string_view s) { PutLengthPrefixed(out, s); }

bool GetPrefixed(std::string_view* in, std::string* out) {
  std::string_view v;
  if (!GetLengthPrefixed(in, &v)) return false;
  out->assign(v);
  return true;
}

}  // namespace

uint32_t KinesisShardOfHash(const unsigned char hash[16], uint32_t shards) {
  if (shards <= 1) return 0;
  U128 index = HashOf(hash) / ShardWidth(shards);
  return index >= shards ? shards - 1 : static_cast<uint32_t>(index);
}

uint32_t KinesisShardOfPartitionKey(std::string_view partition_key, uint32_t shards) {
  std::string md5 = util::Md5(partition_key);
  return KinesisShardOfHash(reinterpret_cast<const unsigned char*>(md5.data()), shards);
}

bool ParseKinesisHashKey(std::string_view decimal, unsigned char hash[16]) {
  if (!AllDigits(decimal) || decimal.size() > 39) return false;
  if (decimal.size() > 1 && decimal[0] == '0') return false;
  U128 v = 0;
  for (char c : decimal) {
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (v > (kMaxHash - digit) / 10) return false;
    v = v * 10 + digit;
  }
  for (int i = 15; i >= 0; --i) {
    hash[i] = static_cast<unsigned char>(v & 0xff);
    v >>= 8;
  }
  return true;
}

std::string KinesisStartingHashKey(uint32_t shard, uint32_t shards) {
  return Decimal(ShardWidth(shards) * shard);
}

std::string KinesisEndingHashKey(uint32_t shard, uint32_t shards) {
  if (shard + 1 >= shards) return Decimal(kMaxHash);
  return Decimal(ShardWidth(shards) * (shard + 1) - 1);
}

std::string KinesisShardId(uint32_t shard) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "shardId-%012u", shard);
  return buf;
}

bool ParseKinesisShardId(std::string_view text, uint32_t* shard) {
  constexpr std::string_view kPrefix = "shardId-";
  if (text.size() != kPrefix.size() + 12 || !text.starts_with(kPrefix)) return false;
  std::string_view digits = text.substr(kPrefix.size());
  if (!AllDigits(digits)) return false;
  uint64_t v = DigitsValue(digits);
  if (v > UINT32_MAX) return false;
  *shard = static_cast<uint32_t>(v);
  return true;
}

std::string FormatKinesisSequence(uint32_t stream_id, uint32_t shard, uint64_t sequence) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "49%010u%05u%020llu", stream_id, shard,
                static_cast<unsigned long long>(sequence));
  return buf;
}

bool ParseKinesisSequence(std::string_view text, uint32_t* stream_id, uint32_t* shard,
                          uint64_t* sequence) {
  if (text.size() != kSequenceDigits || !text.starts_with(kSequencePrefix) || !AllDigits(text)) {
    return false;
  }
  uint64_t id = DigitsValue(text.substr(2, 10));
  uint64_t sh = DigitsValue(text.substr(12, 5));
  std::string_view seq = text.substr(17);
  // 20 digits may exceed 64 bits.
  if (id > UINT32_MAX || seq > std::string_view("18446744073709551615")) return false;
  *stream_id = static_cast<uint32_t>(id);
  *shard = static_cast<uint32_t>(sh);
  *sequence = DigitsValue(seq);
  return true;
}

std::string EncodeKinesisIterator(const KinesisIterator& it) {
  std::string raw(kIteratorMagic);
  PutFixed32BE(&raw, it.stream_id);
  PutFixed32BE(&raw, it.shard);
  PutFixed64BE(&raw, it.position);
  PutFixed64BE(&raw, it.issued_ms);
  PutFixed64BE(&raw, it.min_arrival_ms);
  PutFixed64BE(&raw, XXH3_64bits(raw.data(), raw.size()));
  return util::Base64(raw);
}

bool DecodeKinesisIterator(std::string_view text, KinesisIterator* it) {
  std::string raw;
  if (!util::DecodeBase64(text, &raw, util::Base64Check::kCanonical)) return false;
  if (raw.size() != kIteratorMagic.size() + 4 + 4 + 8 * 4) return false;
  std::string_view in(raw);
  if (!in.starts_with(kIteratorMagic)) return false;
  const uint64_t sum = XXH3_64bits(raw.data(), raw.size() - 8);
  in.remove_prefix(kIteratorMagic.size());
  uint64_t id = 0, shard = 0, check = 0;
  if (!GetFixedBE(&in, 4, &id) || !GetFixedBE(&in, 4, &shard) ||
      !GetFixedBE(&in, 8, &it->position) || !GetFixedBE(&in, 8, &it->issued_ms) ||
      !GetFixedBE(&in, 8, &it->min_arrival_ms) || !GetFixedBE(&in, 8, &check)) {
    return false;
  }
  it->stream_id = static_cast<uint32_t>(id);
  it->shard = static_cast<uint32_t>(shard);
  return check == sum;
}

std::string KinesisShardPrefix(uint32_t stream_id, uint32_t shard) {
  std::string key;
  PutFixed32BE(&key, stream_id);
  PutFixed32BE(&key, shard);
  return key;
}

std::string KinesisRecordKey(uint32_t stream_id, uint32_t shard, uint64_t sequence) {
  std::string key = KinesisShardPrefix(stream_id, shard);
  PutFixed64BE(&key, sequence);
  return key;
}

bool ParseKinesisRecordKey(std::string_view key, uint32_t* stream_id, uint32_t* shard,
                           uint64_t* sequence) {
  uint64_t id = 0, sh = 0;
  if (key.size() != 16 || !GetFixedBE(&key, 4, &id) || !GetFixedBE(&key, 4, &sh) ||
      !GetFixedBE(&key, 8, sequence)) {
    return false;
  }
  *stream_id = static_cast<uint32_t>(id);
  *shard = static_cast<uint32_t>(sh);
  return true;
}

std::string EncodeKinesisData(uint64_t arrival_ms, std::string_view partition_key,
                              std::string_view data) {
  std::string v(1, '\0');
  PutFixed64BE(&v, arrival_ms);
  PutPrefixed(&v, partition_key);
  v.append(data);
  return v;
}

std::string EncodeKinesisChange(uint64_t arrival_ms, std::string_view partition_key,
                                const KinesisChangeImage& c) {
  std::string v(1, '\1');
  PutFixed64BE(&v, arrival_ms);
  PutPrefixed(&v, partition_key);
  v.push_back(static_cast<char>(c.origin));
  v.push_back(static_cast<char>(c.precision));
  PutFixed64BE(&v, c.creation_us);
  PutPrefixed(&v, c.table_name);
  PutPrefixed(&v, c.keys);
  PutPrefixed(&v, c.old_image);
  PutPrefixed(&v, c.new_image);
  return v;
}

bool DecodeKinesisRecord(std::string_view value, DecodedKinesisRecord* out) {
  if (value.empty()) return false;
  const char kind = value[0];
  value.remove_prefix(1);
  if (!GetFixedBE(&value, 8, &out->arrival_ms) || !GetPrefixed(&value, &out->partition_key)) {
    return false;
  }
  if (kind == '\0') {
    out->data.assign(value);
    out->change.reset();
    return true;
  }
  if (kind != '\1' || value.size() < 2) return false;
  KinesisChangeImage c;
  c.origin = static_cast<uint8_t>(value[0]);
  c.precision = static_cast<uint8_t>(value[1]);
  value.remove_prefix(2);
  if (!GetFixedBE(&value, 8, &c.creation_us) || !GetPrefixed(&value, &c.table_name) ||
      !GetPrefixed(&value, &c.keys) || !GetPrefixed(&value, &c.old_image) ||
      !GetPrefixed(&value, &c.new_image) || !value.empty()) {
    return false;
  }
  out->data.clear();
  out->change = std::move(c);
  return true;
}

Error KinesisStreamNotFound(const std::string& name, const std::string& account) {
  return Error::NotFound("Stream " + name + " under account " + account + " not found.");
}

Result<std::unique_ptr<KinesisRegistry>> KinesisRegistry::Load(Storage* storage) {
  std::unique_ptr<KinesisRegistry> registry(new KinesisRegistry(storage));
  std::string end(kMetaPrefix);
  end.back() = static_cast<char>(end.back() + 1);
  bool bad = false;
  DDB_RETURN_IF_ERROR(
      storage->ForEach(Cf::kMeta, kMetaPrefix, end, [&](std::string_view, std::string_view v) {
        Item record;
        auto state = std::make_shared<KinesisStreamState>();
        if (!DecodeItem(v, &record) || !FromRecord(record, state.get())) {
          bad = true;
          return false;
        }
        registry->by_id_[state->id] = state;
        registry->by_name_[state->name] = std::move(state);
        return true;
      }));
  if (bad) return Error::Internal("unreadable Kinesis stream record");
  return registry;
}

std::shared_ptr<const KinesisStreamState> KinesisRegistry::Find(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::shared_ptr<const KinesisStreamState> KinesisRegistry::FindById(uint32_t id) const {
  std::lock_guard lock(mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const KinesisStreamState>> KinesisRegistry::All() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<const KinesisStreamState>> out;
  out.reserve(by_name_.size());
  for (const auto& [name, s] : by_name_) out.push_back(s);
  return out;
}

Result<std::shared_ptr<const KinesisStreamState>> KinesisRegistry::Add(KinesisStreamState state,
                                                                       const std::string& account,
                                                                       const std::string& region) {
  std::lock_guard lock(mu_);
  if (by_name_.count(state.name)) {
    return Error::InUse("Stream " + state.name + " under account " + account + " already exists.");
  }
  uint64_t shards = 0;
  for (const auto& [name, s] : by_name_) shards += s->shard_count;
  if (shards + state.shard_count > static_cast<uint64_t>(kMaxKinesisShardsPerAccount)) {
    return Error(ErrorCode::kLimitExceeded,
                 "This request would exceed the shard limit for the account " + account + " in " +
                     region + ". Current shard count for the account: " + std::to_string(shards) +
                     ". Limit: " + std::to_string(kMaxKinesisShardsPerAccount) +
                     ". Number of additional shards that would have resulted from this "
                     "request: " +
                     std::to_string(state.shard_count) +
                     ". Refer to the AWS Service Limits page "
                     "(http://docs.aws.amazon.com/general/latest/gr/aws_service_limits.html) "
                     "for current limits and how to request higher limits.");
  }
  DDB_ASSIGN_OR_RETURN(int64_t next, storage_->GetCounter(kNextIdKey));
  state.id = static_cast<uint32_t>(next + 1);
  std::string value;
  EncodeItem(ToRecord(state), &value);
  Storage::Batch batch(*storage_);
  batch.AddToCounter(kNextIdKey, 1);
  batch.Put(Cf::kMeta, MetaKey(state.name), value);
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  auto shared = std::make_shared<const KinesisStreamState>(std::move(state));
  by_id_[shared->id] = shared;
  by_name_[shared->name] = shared;
  return shared;
}

Status KinesisRegistry::Remove(const std::string& name, const std::string& account) {
  std::lock_guard lock(mu_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return KinesisStreamNotFound(name, account);
  const uint32_t id = it->second->id;
  Storage::Batch batch(*storage_);
  batch.Delete(Cf::kMeta, MetaKey(name));
  std::string begin, end;
  PutFixed32BE(&begin, id);
  PutFixed32BE(&end, id + 1);
  batch.DeleteRange(Cf::kKinesis, begin, end);
  DDB_RETURN_IF_ERROR(storage_->Write(batch));
  by_id_.erase(id);
  by_name_.erase(it);
  next_trim_ms_.erase(next_trim_ms_.lower_bound({id, 0}), next_trim_ms_.lower_bound({id + 1, 0}));
  return Status::Ok();
}

Status KinesisRegistry::Trim(uint64_t now_ms, uint64_t retention_ms) {
  if (now_ms < retention_ms) return Status::Ok();
  const uint64_t cutoff = now_ms - retention_ms;
  Status first = Status::Ok();
  for (const auto& stream : All()) {
    for (uint32_t shard = 0; shard < stream->shard_count; ++shard) {
      {
        std::lock_guard lock(mu_);
        auto next = next_trim_ms_.find({stream->id, shard});
        if (next != next_trim_ms_.end() && next->second > now_ms) continue;
      }
      std::vector<std::string> aged;
      uint64_t oldest_left = 0;  // arrival of the first record kept; 0: none seen
      Status read = storage_->ForEach(
          Cf::kKinesis, KinesisShardPrefix(stream->id, shard),
          KinesisShardPrefix(stream->id, shard + 1), [&](std::string_view k, std::string_view v) {
            std::string_view in = v.substr(std::min<size_t>(1, v.size()));
            uint64_t arrival = 0;
            if (GetFixedBE(&in, 8, &arrival) && arrival >= cutoff) {
              oldest_left = arrival;
              return false;
            }
            aged.emplace_back(k);
            return aged.size() < kTrimChunk;
          });
      if (!read.ok()) {
        if (first.ok()) first = read;
        continue;
      }
      if (!aged.empty()) {
        Storage::Batch batch(*storage_);
        for (const std::string& k : aged) batch.Delete(Cf::kKinesis, k);
        Status written = storage_->Write(batch, WriteSync::kDeferred);
        if (!written.ok()) {
          if (first.ok()) first = written;
          continue;
        }
      }
      // A full chunk may leave more aged records: look again next round.
      const uint64_t next = aged.size() >= kTrimChunk ? 0
                            : oldest_left             ? oldest_left + retention_ms
                                                      : now_ms + retention_ms;
      std::lock_guard lock(mu_);
      next_trim_ms_[{stream->id, shard}] = next;
    }
  }
  return first;
}

Result<uint64_t> KinesisRegistry::LastSequence() const {
  uint64_t last = 0;
  for (const auto& stream : All()) {
    if (stream->start_sequence > 0) last = std::max(last, stream->start_sequence - 1);
    for (uint32_t shard = 0; shard < stream->shard_count; ++shard) {
      DDB_RETURN_IF_ERROR(storage_->ForEach(
          Cf::kKinesis, KinesisShardPrefix(stream->id, shard),
          KinesisShardPrefix(stream->id, shard + 1),
          [&](std::string_view key, std::string_view) {
            uint32_t id = 0, sh = 0;
            uint64_t seq = 0;
            if (ParseKinesisRecordKey(key, &id, &sh, &seq)) last = std::max(last, seq);
            return false;
          },
          /*reverse=*/true));
    }
  }
  return last;
}

}  // namespace ddb
