// ClientRequestTokens of TransactWriteItems: a retry within 10 minutes returns the first
// call's outcome instead of applying it again, across restarts too. A token is claimed in
// memory while its call runs; its record goes into the WriteBatch of the commit it answers,
// so the token is durable exactly when the transaction is, and Load brings back the records
// of the last 10 minutes when the store opens.
//
//   record key   := "txtoken/" | token
//   record value := format (1 byte, 1) | fingerprint (fixed64 BE) | commit time (fixed64 BE,
//                   ms since the epoch by the engine's clock) | count (varint) |
//                   count x (table name (length-prefixed) | read units (fixed64 BE, the bits
//                   of a double))
//
// The value's entries are what a repeat reports as consumed: a transactional read of each
// item as the call left it. In the meta family, whose other keys begin with other ASCII
// words (ttl_index.h). DO NOT change these formats: they are on disk.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ddb/capacity.h"
#include "ddb/error.h"
#include "engine/storage/storage.h"

namespace ddb {

class RequestTokens {
 public:
  // How long a token answers for its first call, as in the service.
  static constexpr uint64_t kLifetimeMs = 10 * 60 * 1000;

  // Reads the records of the last kLifetimeMs (by `now_ms`) and deletes the older ones.
  // Errors: kInternal (storage).
  Status Load(Storage* storage, uint64_t now_ms);

  enum class Claim : uint8_t {
    kNew,         // claimed: run the call, then Committed or Released
    kReplay,      // the first call committed: *replay says what it consumed
    kMismatch,    // the token names a call with other parameters
    kInProgress,  // the first call is still running
  };
  Claim TryClaim(const std::string& token, uint64_t fingerprint, uint64_t now_ms,
                 std::vector<ConsumedCapacity>* replay);
  // Adds the token's record to the batch of the commit it answers. REQUIRES: claimed.
  static void Record(const std::string& token, uint64_t fingerprint, uint64_t now_ms,
                     const std::vector<ConsumedCapacity>& replay, Storage::Batch* batch);
  // After the batch with the record was written: later calls replay this one.
  void Committed(const std::string& token, uint64_t fingerprint, uint64_t now_ms,
                 std::vector<ConsumedCapacity> replay);
  // After a failed call: the token may be used again.
  void Released(const std::string& token);

  // Forgets the tokens older than kLifetimeMs and deletes their records; costs what expired.
  // Errors: kInternal (storage).
  Status ForgetExpired(Storage* storage, uint64_t now_ms);

  size_t size() const;

 private:
  struct Use {
    uint64_t fingerprint = 0;
    uint64_t when_ms = 0;
    bool done = false;  // false while the first call is still running
    std::vector<ConsumedCapacity> replay;
  };
  // REQUIRES: mu_ held. Removes expired tokens from memory; returns the committed ones.
  std::vector<std::string> TakeExpired(uint64_t now_ms);

  mutable std::mutex mu_;
  std::map<std::string, Use> uses_;  // guarded by mu_
  // Tokens in the order they were claimed or committed, so that forgetting the expired
  // ones costs what expired; a token may appear more than once (its newest entry counts).
  std::deque<std::pair<uint64_t, std::string>> order_;  // guarded by mu_
};

// The record's key and value codecs (exposed for tests).
std::string RequestTokenKey(const std::string& token);
std::string EncodeRequestToken(uint64_t fingerprint, uint64_t when_ms,
                               const std::vector<ConsumedCapacity>& replay);
bool DecodeRequestToken(std::string_view value, uint64_t* fingerprint, uint64_t* when_ms,
                        std::vector<ConsumedCapacity>* replay);

}  // namespace ddb
