// TransactWriteItems and TransactGetItems.
//
// Isolation: a transaction locks the stripes of all its items in ascending stripe order
// (single-item writes hold one stripe and never wait while holding it), so transactions
// are serializable with each other and with single-item writes, and no deadlock is
// possible. Conditions are evaluated with every lock held; the writes, their index entries
// and change-log records go to RocksDB in one WriteBatch, so readers see all or nothing.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "engine/coding.h"
#include "engine/engine_impl.h"
#include "engine/item_validation.h"
#include "engine/table_validation.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ddb {
namespace {

constexpr size_t kMaxTransactionActions = 100;
constexpr size_t kMaxTransactionBytes = 4 * 1024 * 1024;

Status CheckActionCount(size_t n) {
  if (n == 0 || n > kMaxTransactionActions) {
    return ValidationErrors(
        {std::string("Value '[...]' at 'transactItems' failed to satisfy "
                     "constraint: Member must have length ") +
         (n == 0 ? "greater than or equal to 1" : "less than or equal to 100")});
  }
  return Status::Ok();
}

const Error& DuplicateItem() {
  static const Error e =
      Error::Validation("Transaction request cannot include multiple operations on one item");
  return e;
}

// Locks the stripes of "keys" in ascending order and unlocks them on destruction.
class StripeLocks {
 public:
  StripeLocks(Engine::Impl& impl, const std::vector<std::string>& keys) {
    std::set<std::mutex*> stripes;
    for (const auto& k : keys) stripes.insert(&impl.StripeFor(k));
    // The address order of an array's elements is their index order: a fixed global order.
    for (std::mutex* m : stripes) {
      m->lock();
      held_.push_back(m);
    }
  }
  ~StripeLocks() {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) (*it)->unlock();
  }
  StripeLocks(const StripeLocks&) = delete;
  StripeLocks& operator=(const StripeLocks&) = delete;

 private:
  std::vector<std::mutex*> held_;
};

// A digest of everything a TransactWriteItems request asks for, to tell a retry from a
// different request that reuses its ClientRequestToken.
uint64_t Fingerprint(const TransactWriteItemsRequest& req) {
  std::string s;
  for (const auto& a : req.actions) {
    s.push_back(static_cast<char>(a.kind));
    PutLengthPrefixed(&s, a.table_name);
    EncodeItem(a.item_or_key, &s);
    PutLengthPrefixed(&s, a.update_expression.value_or("\x01"));
    PutLengthPrefixed(&s, a.condition_expression.value_or("\x01"));
    for (const auto& [k, v] : a.expression_attribute_names) {
      PutLengthPrefixed(&s, k);
      PutLengthPrefixed(&s, v);
    }
    EncodeItem(a.expression_attribute_values, &s);
    s.push_back(a.return_old_on_condition_failure ? 1 : 0);
  }
  return XXH3_64bits(s.data(), s.size());
}

}  // namespace

Result<TransactWriteItemsResult> Engine::TransactWriteItems(const TransactWriteItemsRequest& req) {
  DDB_RETURN_IF_ERROR(CheckActionCount(req.actions.size()));
  uint64_t fingerprint = 0;
  if (req.client_request_token) {
    fingerprint = Fingerprint(req);
    std::lock_guard lock(impl_->tokens_mu);
    auto now = std::chrono::steady_clock::now();
    impl_->ForgetExpiredTokens(now);
    auto it = impl_->tokens.find(*req.client_request_token);
    if (it != impl_->tokens.end()) {
      if (it->second.fingerprint != fingerprint) {
        return Error(ErrorCode::kIdempotentParameterMismatch,
                     "Request token is already in use with different parameters");
      }
      if (!it->second.done) {
        return Error(ErrorCode::kTransactionInProgress,
                     "The transaction with the given request token is already in progress");
      }
      // The first call succeeded: apply nothing again.
      TransactWriteItemsResult replay;
      if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
        replay.consumed_capacity = it->second.replay;
      }
      replay.replayed = true;
      return replay;
    }
    // Claimed before anything runs, so that a concurrent retry cannot apply it again.
    impl_->tokens[*req.client_request_token] = {fingerprint, now, false, {}};
    impl_->token_order.emplace_back(now, *req.client_request_token);
  }
  std::vector<ConsumedCapacity> replay;
  Result<TransactWriteItemsResult> result = RunTransactWrite(req, &replay);
  if (req.client_request_token) {
    std::lock_guard lock(impl_->tokens_mu);
    if (result.ok()) {
      auto done = std::chrono::steady_clock::now();
      impl_->tokens[*req.client_request_token] = {fingerprint, done, true, std::move(replay)};
      impl_->token_order.emplace_back(done, *req.client_request_token);
    } else {
      impl_->tokens.erase(*req.client_request_token);  // a failed call may be retried
    }
  }
  return result;
}

Result<TransactWriteItemsResult> Engine::RunTransactWrite(const TransactWriteItemsRequest& req,
                                                          std::vector<ConsumedCapacity>* replay) {
  // Validate and compile every action before locking anything.
  std::vector<PreparedWrite> writes;
  std::set<std::string> seen;
  size_t bytes = 0;
  for (const auto& a : req.actions) {
    DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(a.table_name));
    PreparedWrite::Kind kind =
        a.kind == TransactWriteAction::Kind::kPut      ? PreparedWrite::Kind::kPut
        : a.kind == TransactWriteAction::Kind::kDelete ? PreparedWrite::Kind::kDelete
        : a.kind == TransactWriteAction::Kind::kUpdate ? PreparedWrite::Kind::kUpdate
                                                       : PreparedWrite::Kind::kConditionCheck;
    if (kind == PreparedWrite::Kind::kConditionCheck && !a.condition_expression) {
      return Error::Validation(
          "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck."
          "conditionExpression' failed to satisfy constraint: Member must not be null");
    }
    DDB_ASSIGN_OR_RETURN(PreparedWrite w,
                         PrepareWrite(kind, table, a.item_or_key, a.update_expression, a));
    if (!seen.insert(w.key).second) return DuplicateItem();
    bytes += ItemSize(a.item_or_key);
    writes.push_back(std::move(w));
  }
  if (bytes > kMaxTransactionBytes) {
    return Error::Validation("Transaction request cannot be larger than 4 MB");
  }

  std::vector<std::string> keys;
  for (const auto& w : writes) keys.push_back(w.key);
  std::vector<ConsumedCapacity> consumed;
  {
    StripeLocks locks(*impl_, keys);
    std::vector<std::optional<Item>> olds, news;
    std::vector<CancellationReason> reasons(writes.size(), CancellationReason{"None", "", {}});
    bool cancelled = false;
    for (size_t i = 0; i < writes.size(); ++i) {
      DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl_->ReadItem(writes[i].key));
      Result<std::optional<Item>> updated = writes[i].Apply(old);
      if (!updated.ok()) {
        cancelled = true;
        const Error& e = updated.error();
        if (e.code() == ErrorCode::kConditionalCheckFailed) {
          reasons[i] = {"ConditionalCheckFailed", e.message(), {}};
          if (e.detail()) reasons[i].item = e.detail()->item;
        } else if (e.code() == ErrorCode::kValidation) {
          reasons[i] = {"ValidationError", e.message(), {}};
        } else {
          return e;
        }
        olds.emplace_back();
        news.emplace_back();
        continue;
      }
      olds.push_back(std::move(old));
      news.push_back(std::move(updated).value());
    }
    if (cancelled) {
      std::string message =
          "Transaction cancelled, please refer cancellation reasons for specific reasons [";
      for (size_t i = 0; i < reasons.size(); ++i) {
        if (i) message += ", ";
        message += reasons[i].code;
      }
      message += "]";
      auto detail = std::make_shared<ErrorDetail>();
      detail->cancellation_reasons = std::move(reasons);
      Error e(ErrorCode::kTransactionCanceled, std::move(message));
      e.WithDetail(std::move(detail));
      return e;
    }
    Storage::Batch batch(*impl_->storage);
    std::vector<uint64_t> sequences;
    Status added = Status::Ok();
    for (size_t i = 0; i < writes.size() && added.ok(); ++i) {
      if (writes[i].kind == PreparedWrite::Kind::kConditionCheck) continue;
      if (!olds[i] && !news[i]) continue;
      added =
          impl_->AddWrite(writes[i].table->id, writes[i].key, olds[i], news[i], &batch, &sequences);
    }
    if (!added.ok()) {
      for (uint64_t s : sequences) impl_->sequencer->End(s);
      return added.error();
    }
    DDB_RETURN_IF_ERROR(impl_->Commit(batch, sequences));
    if (req.client_request_token) {
      // A replay reads: per item written or checked, its size as this call left it.
      std::map<std::string, ConsumedCapacity> reads;
      for (size_t i = 0; i < writes.size(); ++i) {
        const std::string& name = writes[i].table->description.table_name;
        const std::optional<Item>& item =
            writes[i].kind == PreparedWrite::Kind::kConditionCheck ? olds[i] : news[i];
        reads.try_emplace(name, ConsumedCapacity{name})
            .first->second.AddTable(ReadUnits(item ? ItemSize(*item) : 0, true, true), false);
      }
      for (auto& [name, c] : reads) replay->push_back(std::move(c));
    }
    if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
      std::map<std::string, ConsumedCapacity> capacity;
      for (size_t i = 0; i < writes.size(); ++i) {
        const std::string& name = writes[i].table->description.table_name;
        auto [it, fresh] = capacity.try_emplace(name, ConsumedCapacity{name});
        if (writes[i].kind == PreparedWrite::Kind::kConditionCheck) {
          it->second.AddTable(ReadUnits(olds[i] ? ItemSize(*olds[i]) : 0, true, true), false);
        } else {
          AddWriteCapacity(*writes[i].table, olds[i], news[i], /*transactional=*/true, &it->second);
        }
      }
      for (auto& [name, c] : capacity) consumed.push_back(std::move(c));
    }
  }
  TransactWriteItemsResult result;
  result.consumed_capacity = std::move(consumed);
  for (size_t i = 0; i < writes.size(); ++i) {
    if (writes[i].kind == PreparedWrite::Kind::kConditionCheck) continue;
    std::optional<ItemCollectionMetrics> metrics = impl_->CollectionMetrics(
        *writes[i].table, req.actions[i].item_or_key, req.return_item_collection_metrics);
    if (!metrics) continue;
    const std::string& name = writes[i].table->description.table_name;
    auto entry =
        std::find_if(result.item_collection_metrics.begin(), result.item_collection_metrics.end(),
                     [&](const auto& e) { return e.first == name; });
    if (entry == result.item_collection_metrics.end()) {
      result.item_collection_metrics.emplace_back(name, std::vector<ItemCollectionMetrics>());
      entry = std::prev(result.item_collection_metrics.end());
    }
    entry->second.push_back(std::move(*metrics));
  }
  return result;
}

Result<TransactGetItemsResult> Engine::TransactGetItems(const TransactGetItemsRequest& req) {
  DDB_RETURN_IF_ERROR(CheckActionCount(req.actions.size()));
  struct PlannedGet {
    std::string table_name;
    std::string key;
    std::optional<Projection> projection;
  };
  std::vector<PlannedGet> gets;
  std::set<std::string> seen;
  for (const auto& a : req.actions) {
    DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(a.table_name));
    DDB_RETURN_IF_ERROR(ValidateKey(table->description, a.key));
    PlannedGet g;
    DDB_ASSIGN_OR_RETURN(g.projection, CompileReadProjection(a.projection_expression, {},
                                                             a.has_expression_attribute_names
                                                                 ? &a.expression_attribute_names
                                                                 : nullptr));
    g.key = impl_->ItemKeyOf(*table, a.key);
    g.table_name = a.table_name;
    if (!seen.insert(g.key).second) return DuplicateItem();
    gets.push_back(std::move(g));
  }
  std::vector<std::string> keys;
  for (const auto& g : gets) keys.push_back(g.key);
  TransactGetItemsResult result;
  StripeLocks locks(*impl_, keys);
  std::map<std::string, ConsumedCapacity> capacity;
  for (const auto& g : gets) {
    DDB_ASSIGN_OR_RETURN(std::optional<Item> item, impl_->ReadItem(g.key));
    if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
      auto [it, fresh] = capacity.try_emplace(g.table_name, ConsumedCapacity{g.table_name});
      it->second.AddTable(ReadUnits(item ? ItemSize(*item) : 0, true, true), false);
    }
    if (item && g.projection) item = ApplyProjection(*g.projection, *item);
    result.items.push_back(std::move(item));
  }
  for (auto& [name, c] : capacity) result.consumed_capacity.push_back(std::move(c));
  return result;
}

}  // namespace ddb
