#include "engine/request_tokens.h"

#include <algorithm>
#include <bit>

#include "engine/storage/coding.h"

namespace ddb {
namespace {

constexpr std::string_view kPrefix = "txtoken/";
constexpr std::string_view kPrefixEnd = "txtoken0";  // '0' follows '/'
constexpr char kFormat = 1;

}  // namespace

std::string RequestTokenKey(const std::string& token) {
  std::string key(kPrefix);
  key += token;
  return key;
}

std::string EncodeRequestToken(uint64_t fingerprint, uint64_t when_ms,
                               const std::vector<ConsumedCapacity>& replay) {
  std::string v(1, kFormat);
  PutFixed64BE(&v, fingerprint);
  PutFixed64BE(&v, when_ms);
  PutVarint64(&v, replay.size());
  for (const ConsumedCapacity& c : replay) {
    PutLengthPrefixed(&v, c.table_name);
    PutFixed64BE(&v, std::bit_cast<uint64_t>(c.table_units));
  }
  return v;
}

bool DecodeRequestToken(std::string_view value, uint64_t* fingerprint, uint64_t* when_ms,
                        std::vector<ConsumedCapacity>* replay) {
  if (value.empty() || value[0] != kFormat) return false;
  value.remove_prefix(1);
  uint64_t count = 0;
  if (!GetFixedBE(&value, 8, fingerprint) || !GetFixedBE(&value, 8, when_ms) ||
      !GetVarint64(&value, &count) || count > value.size()) {
    return false;
  }
  replay->clear();
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view name;
    uint64_t bits = 0;
    if (!GetLengthPrefixed(&value, &name) || !GetFixedBE(&value, 8, &bits)) return false;
    ConsumedCapacity c{std::string(name)};
    c.AddTable(std::bit_cast<double>(bits), /*write=*/false);
    replay->push_back(std::move(c));
  }
  return value.empty();
}

Status RequestTokens::Load(Storage* storage, uint64_t now_ms) {
  std::vector<std::string> stale;
  std::map<std::string, Use> loaded;
  DDB_RETURN_IF_ERROR(storage->ForEach(
      Cf::kMeta, kPrefix, kPrefixEnd, [&](std::string_view key, std::string_view value) {
        std::string token(key.substr(kPrefix.size()));
        Use use;
        use.done = true;
        if (!DecodeRequestToken(value, &use.fingerprint, &use.when_ms, &use.replay) ||
            use.when_ms + kLifetimeMs < now_ms) {
          stale.push_back(std::string(key));
        } else {
          loaded.emplace(std::move(token), std::move(use));
        }
        return true;
      }));
  {
    std::lock_guard lock(mu_);
    for (auto& [token, use] : loaded) order_.emplace_back(use.when_ms, token);
    std::sort(order_.begin(), order_.end());
    uses_ = std::move(loaded);
  }
  if (stale.empty()) return Status::Ok();
  Storage::Batch batch(*storage);
  for (const std::string& key : stale) batch.Delete(Cf::kMeta, key);
  return storage->Write(batch);
}

RequestTokens::Claim RequestTokens::TryClaim(const std::string& token, uint64_t fingerprint,
                                             uint64_t now_ms,
                                             std::vector<ConsumedCapacity>* replay) {
  std::lock_guard lock(mu_);
  auto it = uses_.find(token);
  if (it != uses_.end() && it->second.when_ms + kLifetimeMs >= now_ms) {
    if (it->second.fingerprint != fingerprint) return Claim::kMismatch;
    if (!it->second.done) return Claim::kInProgress;
    *replay = it->second.replay;
    return Claim::kReplay;
  }
  // Claimed before anything runs, so that a concurrent retry cannot apply it again.
  uses_[token] = Use{fingerprint, now_ms, false, {}};
  order_.emplace_back(now_ms, token);
  return Claim::kNew;
}

void RequestTokens::Record(const std::string& token, uint64_t fingerprint, uint64_t now_ms,
                           const std::vector<ConsumedCapacity>& replay, Storage::Batch* batch) {
  batch->Put(Cf::kMeta, RequestTokenKey(token), EncodeRequestToken(fingerprint, now_ms, replay));
}

void RequestTokens::Committed(const std::string& token, uint64_t fingerprint, uint64_t now_ms,
                              std::vector<ConsumedCapacity> replay) {
  std::lock_guard lock(mu_);
  uses_[token] = Use{fingerprint, now_ms, true, std::move(replay)};
  order_.emplace_back(now_ms, token);
}

void RequestTokens::Released(const std::string& token) {
  std::lock_guard lock(mu_);
  uses_.erase(token);
}

std::vector<std::string> RequestTokens::TakeExpired(uint64_t now_ms) {
  std::vector<std::string> committed;
  while (!order_.empty() && order_.front().first + kLifetimeMs < now_ms) {
    auto it = uses_.find(order_.front().second);
    // A token claimed or committed again later has a newer entry in the queue.
    if (it != uses_.end() && it->second.when_ms + kLifetimeMs < now_ms) {
      if (it->second.done) committed.push_back(it->first);
      uses_.erase(it);
    }
    order_.pop_front();
  }
  return committed;
}

Status RequestTokens::ForgetExpired(Storage* storage, uint64_t now_ms) {
  // The lock is held through the write, so that a call claiming one of these tokens anew
  // writes its record after the deletion. Deferred: a deletion lost in a crash is redone by
  // Load.
  std::lock_guard lock(mu_);
  std::vector<std::string> expired = TakeExpired(now_ms);
  if (expired.empty()) return Status::Ok();
  Storage::Batch batch(*storage);
  for (const std::string& token : expired) batch.Delete(Cf::kMeta, RequestTokenKey(token));
  return storage->Write(batch, WriteSync::kDeferred);
}

size_t RequestTokens::size() const {
  std::lock_guard lock(mu_);
  return uses_.size();
}

}  // namespace ddb
