#include "engine/streams/streams.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>

#include "ddb/stored_item.h"
#include "engine/storage/coding.h"
#include "util/arn.h"
#include "util/base64.h"
#include "util/iso8601.h"

namespace ddb {
namespace {

constexpr std::string_view kMetaPrefix = "stream/";
constexpr std::string_view kIteratorMark = "|1|";
constexpr uint8_t kIteratorVersion = 1;
constexpr uint64_t kIteratorSeed = 0x53545245414d5331ULL;  // "STREAMS1"

bool ValidTableName(std::string_view name) {
  if (name.size() < 3 || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string MetaKey(uint32_t table_id, std::string_view label) {
  std::string k(kMetaPrefix);
  PutFixed32BE(&k, table_id);
  k.append(label);
  return k;
}

AttributeValue Num(uint64_t n) { return AttributeValue::N(std::to_string(n)); }

Item ToRecord(const StreamInfo& s) {
  Item r;
  r["TableId"] = Num(s.table_id);
  r["TableName"] = AttributeValue::S(s.table_name);
  r["Label"] = AttributeValue::S(s.label);
  r["ViewType"] = AttributeValue::S(std::string(EnumName(s.view_type)));
  std::vector<AttributeValue> ks;
  for (const auto& k : s.key_schema) {
    ks.push_back(AttributeValue::M(
        {{"AttributeName", AttributeValue::S(k.attribute_name)},
         {"KeyType", AttributeValue::S(k.key_type == KeyType::kHash ? "H" : "R")}}));
  }
  r["KeySchema"] = AttributeValue::L(std::move(ks));
  r["Created"] = Num(s.created_ms);
  r["Start"] = Num(s.start_sequence);
  if (s.end_sequence) r["End"] = Num(*s.end_sequence);
  r["Disabled"] = Num(s.disabled_ms);
  r["Trimmed"] = Num(s.trimmed_before);
  return r;
}

StreamInfo FromRecord(const Item& r) {
  auto num = [&](const char* name) { return std::stoull(r.at(name).scalar()); };
  StreamInfo s;
  s.table_id = static_cast<uint32_t>(num("TableId"));
  s.table_name = r.at("TableName").scalar();
  s.label = r.at("Label").scalar();
  s.view_type =
      EnumFromName<StreamViewType>(r.at("ViewType").scalar()).value_or(StreamViewType::kKeysOnly);
  for (const auto& e : r.at("KeySchema").list()) {
    s.key_schema.push_back(
        {e.map().at("AttributeName").scalar(),
         e.map().at("KeyType").scalar() == "H" ? KeyType::kHash : KeyType::kRange});
  }
  s.created_ms = num("Created");
  s.start_sequence = num("Start");
  if (r.count("End")) s.end_sequence = num("End");
  s.disabled_ms = num("Disabled");
  s.trimmed_before = num("Trimmed");
  return s;
}

uint64_t SequenceOfKey(std::string_view key) {
  uint64_t seq = 0;
  if (key.size() < 8) return 0;
  key.remove_prefix(key.size() - 8);
  GetFixedBE(&key, 8, &seq);
  return seq;
}

}  // namespace

std::string StreamLabelAt(uint64_t ms) {
  return util::FormatIso8601Millis(static_cast<int64_t>(ms), /*zone=*/false);
}

std::optional<uint64_t> ParseStreamLabel(std::string_view label) {
  std::optional<int64_t> ms = util::ParseIso8601Millis(label, /*zone=*/false);
  if (!ms) return std::nullopt;
  return static_cast<uint64_t>(*ms);
}

std::string StreamArn(const RequestContext& ctx, std::string_view table, std::string_view label) {
  return util::StreamArn(util::TableArn(ctx.region, ctx.account_id, table), label);
}

bool ParseStreamArn(std::string_view arn, std::string* table, std::string* label) {
  const std::optional<util::DynamoDbArnParts> parts = util::ParseDynamoDbArn(arn);
  if (!parts || parts->region.empty() || parts->account.empty() ||
      parts->resource_type != "table") {
    return false;
  }
  const std::optional<std::string_view> stream = parts->Child("stream");
  if (!stream || !ValidTableName(parts->table) || !ParseStreamLabel(*stream)) return false;
  *table = std::string(parts->table);
  *label = std::string(*stream);
  return true;
}

std::string FormatSequenceNumber(uint64_t sequence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%021llu", static_cast<unsigned long long>(sequence));
  return buf;
}

bool ParseSequenceNumber(std::string_view text, uint64_t* sequence) {
  if (text.empty() || text.size() > 40) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *sequence = v;
  return true;
}

std::string StreamInfo::ShardId() const {
  std::string key;
  PutFixed32BE(&key, table_id);
  key.append(label);
  char buf[64];
  std::snprintf(buf, sizeof buf, "shardId-%020llu-%08x",
                static_cast<unsigned long long>(created_ms),
                static_cast<unsigned>(XXH3_64bits(key.data(), key.size()) & 0xffffffffu));
  return buf;
}

std::string EncodeShardIterator(const RequestContext& ctx, const ShardIteratorToken& token) {
  std::string payload;
  payload.push_back(static_cast<char>(kIteratorVersion));
  PutFixed32BE(&payload, token.table_id);
  PutFixed64BE(&payload, token.position);
  PutFixed64BE(&payload, token.issued_ms);
  std::string arn = StreamArn(ctx, token.table_name, token.label);
  std::string signed_part = payload + arn;
  PutFixed64BE(&payload,
               XXH3_64bits_withSeed(signed_part.data(), signed_part.size(), kIteratorSeed));
  return arn + std::string(kIteratorMark) + util::Base64(payload);
}

bool DecodeShardIterator(std::string_view text, ShardIteratorToken* token) {
  size_t mark = text.find(kIteratorMark);
  if (mark == std::string_view::npos) return false;
  ShardIteratorToken t;
  if (!ParseStreamArn(text.substr(0, mark), &t.table_name, &t.label)) return false;
  std::string payload;
  if (!util::DecodeBase64(text.substr(mark + kIteratorMark.size()), &payload,
                          util::Base64Check::kCanonical)) {
    return false;
  }
  if (payload.size() != 1 + 4 + 8 + 8 + 8 || uint8_t(payload[0]) != kIteratorVersion) return false;
  std::string_view in(payload);
  in.remove_prefix(1);
  uint64_t table_id = 0, checksum = 0;
  GetFixedBE(&in, 4, &table_id);
  GetFixedBE(&in, 8, &t.position);
  GetFixedBE(&in, 8, &t.issued_ms);
  GetFixedBE(&in, 8, &checksum);
  std::string signed_part =
      payload.substr(0, payload.size() - 8) + std::string(text.substr(0, mark));
  if (XXH3_64bits_withSeed(signed_part.data(), signed_part.size(), kIteratorSeed) != checksum) {
    return false;
  }
  t.table_id = static_cast<uint32_t>(table_id);
  *token = std::move(t);
  return true;
}

std::string StreamPrefix(uint32_t table_id, std::string_view label) {
  std::string k;
  PutFixed32BE(&k, table_id);
  k.append(label);
  return k;
}

std::string StreamRecordKey(uint32_t table_id, std::string_view label, uint64_t sequence) {
  std::string k = StreamPrefix(table_id, label);
  PutFixed64BE(&k, sequence);
  return k;
}

constexpr uint8_t kStampedOrigin = 0x80;

std::string EncodeStreamRecord(WriteOrigin origin, std::string_view change, uint64_t stamp) {
  std::string v;
  v.reserve(change.size() + 9);
  if (stamp == 0) {
    v.push_back(static_cast<char>(origin));
  } else {
    v.push_back(static_cast<char>(static_cast<uint8_t>(origin) | kStampedOrigin));
    PutFixed64BE(&v, stamp);
  }
  v.append(change);
  return v;
}

bool DecodeStreamRecord(std::string_view key, std::string_view value, ChangeRecord* record,
                        WriteOrigin* origin, uint64_t* stamp, bool old_image) {
  if (value.empty() || key.size() < 8) return false;
  const auto first = static_cast<uint8_t>(value.front());
  value.remove_prefix(1);
  uint64_t s = 0;
  if (first & kStampedOrigin) {
    if (!GetFixedBE(&value, 8, &s)) return false;
  }
  const uint8_t o = first & static_cast<uint8_t>(~kStampedOrigin);
  if (o > static_cast<uint8_t>(WriteOrigin::kReplicated)) return false;
  *origin = static_cast<WriteOrigin>(o);
  if (stamp) *stamp = s;
  return DecodeChange(key.substr(key.size() - 8), value, record, old_image);
}

// --- StreamRegistry ---

Result<std::unique_ptr<StreamRegistry>> StreamRegistry::Load(Storage* storage) {
  std::unique_ptr<StreamRegistry> registry(new StreamRegistry(storage));
  std::string end(kMetaPrefix);
  end.back() = static_cast<char>(end.back() + 1);
  bool bad = false;
  DDB_RETURN_IF_ERROR(
      storage->ForEach(Cf::kMeta, kMetaPrefix, end, [&](std::string_view, std::string_view v) {
        Item record;
        if (!DecodeItem(v, &record)) {
          bad = true;
          return false;
        }
        auto info = std::make_shared<StreamInfo>(FromRecord(record));
        registry->streams_[{info->table_name, info->label}] = std::move(info);
        return true;
      }));
  if (bad) return Error::Internal("unreadable stream record");
  return registry;
}

std::vector<std::shared_ptr<const StreamInfo>> StreamRegistry::All() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<const StreamInfo>> out;
  out.reserve(streams_.size());
  for (const auto& [key, info] : streams_) out.push_back(info);
  return out;
}

std::shared_ptr<const StreamInfo> StreamRegistry::Find(const std::string& table,
                                                       const std::string& label) const {
  std::lock_guard lock(mu_);
  auto it = streams_.find({table, label});
  return it == streams_.end() ? nullptr : it->second;
}

std::string StreamRegistry::NewLabel(const std::string& table, uint64_t now_ms) const {
  std::lock_guard lock(mu_);
  auto it = streams_.lower_bound({table + '\0', ""});
  if (it != streams_.begin()) {
    --it;
    if (it->first.first == table) {
      now_ms = std::max(now_ms, it->second->created_ms + 1);
    }
  }
  return StreamLabelAt(now_ms);
}

Status StreamRegistry::Persist(const StreamInfo& info) {
  std::string value;
  EncodeItem(ToRecord(info), &value);
  Storage::Batch batch(*storage_);
  batch.Put(Cf::kMeta, MetaKey(info.table_id, info.label), value);
  return storage_->Write(batch);
}

Status StreamRegistry::Add(StreamInfo info) {
  std::lock_guard lock(mu_);
  DDB_RETURN_IF_ERROR(Persist(info));
  auto key = std::make_pair(info.table_name, info.label);
  streams_[key] = std::make_shared<StreamInfo>(std::move(info));
  return Status::Ok();
}

Status StreamRegistry::Close(const std::string& table, const std::string& label,
                             uint64_t end_sequence, uint64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = streams_.find({table, label});
  if (it == streams_.end() || !it->second->enabled()) return Status::Ok();
  auto closed = std::make_shared<StreamInfo>(*it->second);
  closed->end_sequence = std::max(end_sequence, closed->start_sequence);
  closed->disabled_ms = now_ms;
  DDB_RETURN_IF_ERROR(Persist(*closed));
  it->second = std::move(closed);
  return Status::Ok();
}

namespace {
constexpr size_t kTrimChunk = 10000;
}  // namespace

Status StreamRegistry::Trim(uint64_t now_ms, uint64_t retention_ms) {
  if (now_ms < retention_ms) return Status::Ok();
  uint64_t cutoff = now_ms - retention_ms;
  // The first error; the other streams are trimmed too, and all again next round.
  Status first = Status::Ok();
  auto failed = [&first](Status s) {
    if (s.ok()) return false;
    if (first.ok()) first = std::move(s);
    return true;
  };
  for (const auto& stream : All()) {
    std::string prefix = StreamPrefix(stream->table_id, stream->label);
    std::string prefix_end = StreamRecordKey(stream->table_id, stream->label, UINT64_MAX);
    if (!stream->enabled() && stream->disabled_ms < cutoff) {
      // The whole stream has aged out: its records and then its metadata.
      if (failed(storage_->DeleteRange(Cf::kStreams, prefix, prefix_end))) continue;
      Storage::Batch batch(*storage_);
      batch.Delete(Cf::kMeta, MetaKey(stream->table_id, stream->label));
      if (failed(storage_->Write(batch))) continue;
      std::lock_guard lock(mu_);
      streams_.erase({stream->table_name, stream->label});
      next_trim_ms_.erase({stream->table_name, stream->label});
      continue;
    }
    // Records are in sequence order, which is commit order give or take a few ms. They are
    // removed with point deletes, at most kTrimChunk per stream and round: the cost is the
    // records that aged out, and readers, which start at FirstReadable(), never meet the
    // tombstones (a range deletion would be fragmented again by every later iterator).
    const std::pair<std::string, std::string> id{stream->table_name, stream->label};
    {
      std::lock_guard lock(mu_);
      auto next = next_trim_ms_.find(id);
      if (next != next_trim_ms_.end() && now_ms < next->second) continue;
    }
    std::optional<uint64_t> keep_from;
    uint64_t keep_time_ms = 0;
    uint64_t last_old = 0;
    Storage::Batch batch(*storage_);
    size_t old_records = 0;
    Status s = storage_->ForEach(
        Cf::kStreams, StreamRecordKey(stream->table_id, stream->label, stream->FirstReadable()),
        prefix_end, [&](std::string_view key, std::string_view value) {
          ChangeRecord r;
          WriteOrigin origin;
          // An unreadable record is trimmed like an old one: it can never be served.
          bool readable = DecodeStreamRecord(key, value, &r, &origin);
          if (readable && r.commit_time_ms >= cutoff) {
            keep_from = r.sequence;
            keep_time_ms = r.commit_time_ms;
            return false;
          }
          last_old = SequenceOfKey(key);
          batch.Delete(Cf::kStreams, key);
          return ++old_records < kTrimChunk;
        });
    if (failed(std::move(s))) continue;
    {
      // Nothing here can age out before the oldest kept record does (a record written
      // from now on, not before now + retention): until then the stream is not looked at.
      std::lock_guard lock(mu_);
      next_trim_ms_[id] = keep_from                   ? keep_time_ms + retention_ms
                          : old_records >= kTrimChunk ? 0
                                                      : now_ms + retention_ms;
    }
    if (last_old == 0) continue;
    uint64_t trimmed_before = keep_from.value_or(last_old + 1);
    // Not synced: a trim lost in a power cut is made again.
    if (failed(storage_->Write(batch, WriteSync::kDeferred))) {
      std::lock_guard lock(mu_);
      next_trim_ms_.erase(id);
      continue;
    }
    std::lock_guard lock(mu_);
    auto it = streams_.find({stream->table_name, stream->label});
    if (it == streams_.end()) continue;
    auto trimmed = std::make_shared<StreamInfo>(*it->second);
    trimmed->trimmed_before = std::max(trimmed->trimmed_before, trimmed_before);
    if (!failed(Persist(*trimmed))) it->second = std::move(trimmed);
  }
  return first;
}

uint64_t StreamRegistry::LastSequence() const {
  uint64_t last = 0;
  for (const auto& stream : All()) {
    last = std::max(last, stream->start_sequence > 0 ? stream->start_sequence - 1 : 0);
    if (stream->end_sequence) last = std::max(last, *stream->end_sequence);
    last = std::max(last, stream->trimmed_before > 0 ? stream->trimmed_before - 1 : 0);
    std::string prefix = StreamPrefix(stream->table_id, stream->label);
    Status read = storage_->ForEach(
        Cf::kStreams, prefix, StreamRecordKey(stream->table_id, stream->label, UINT64_MAX),
        [&](std::string_view key, std::string_view) {
          last = std::max(last, SequenceOfKey(key));
          return false;
        },
        /*reverse=*/true);
    if (!read.ok()) {
      storage_->Log(LogSeverity::kError, "cannot read the last record of stream " +
                                             stream->table_name + "/" + stream->label + ": " +
                                             read.error().message());
    }
  }
  return last;
}

}  // namespace ddb
