// TransactWriteItems and TransactGetItems.
//
// Isolation: a transaction locks the stripes of all its items in ascending stripe order
// (single-item writes hold one stripe and never wait while holding it), so transactions
// are serializable with each other and with single-item writes, and no deadlock is
// possible. Conditions are evaluated with every lock held; the writes, their index entries
// and change-log records go to RocksDB in one WriteBatch, so readers see all or nothing.
#include "engine/transactions.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "engine/capacity/write_capacity.h"
#include "engine/engine_impl.h"
#include "engine/item_validation.h"
#include "engine/storage/coding.h"
#include "engine/table_validation.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ddb {
namespace {

constexpr size_t kMaxTransactionActions = 100;
constexpr size_t kMaxTransactionBytes = 4 * 1024 * 1024;

// TransactWriteItems' items, or TransactGetItems' items read, past kMaxTransactionBytes. Exact
// text unknown; Alternator's test (run against the service) matches "size cannot exceed" for
// writes; the service names no error for reads, so the same is assumed.
Error TransactionTooLarge() {
  return Error::Validation("Transaction request size cannot exceed 4 MB");
}

Status CheckActionCount(size_t n) {
  if (n == 0 || n > kMaxTransactionActions) {
    return ValidationErrors(
        {std::string("Value at 'TransactItems' failed to satisfy constraint: Member must have "
                     "length ") +
         (n == 0 ? "greater than or equal to 1" : "less than or equal to 100")});
  }
  return Status::Ok();
}

const Error& DuplicateItem() {
  static const Error e =
      Error::Validation("Transaction request cannot include multiple operations on one item");
  return e;
}

PreparedWrite::Kind PreparedKind(TransactWriteAction::Kind kind) {
  switch (kind) {
    case TransactWriteAction::Kind::kPut:
      return PreparedWrite::Kind::kPut;
    case TransactWriteAction::Kind::kDelete:
      return PreparedWrite::Kind::kDelete;
    case TransactWriteAction::Kind::kUpdate:
      return PreparedWrite::Kind::kUpdate;
    case TransactWriteAction::Kind::kConditionCheck:
      break;
  }
  return PreparedWrite::Kind::kConditionCheck;
}

// A digest of everything a TransactWriteItems request asks for, to tell a retry from a
// different request that reuses its ClientRequestToken.
uint64_t Fingerprint(const TransactWriteItemsRequest& req) {
  using NameMap = std::map<std::string, std::string>;
  std::string s;
  for (const auto& a : req.actions) {
    s.push_back(static_cast<char>(a.kind));
    PutLengthPrefixed(&s, a.table_name);
    EncodeItem(a.item_or_key, &s);
    PutLengthPrefixed(&s, a.update_expression.value_or("\x01"));
    PutLengthPrefixed(&s, a.condition_expression.value_or("\x01"));
    s.push_back(a.expression_attribute_names ? 1 : 0);
    for (const auto& [k, v] : a.expression_attribute_names.value_or(NameMap{})) {
      PutLengthPrefixed(&s, k);
      PutLengthPrefixed(&s, v);
    }
    s.push_back(a.expression_attribute_values ? 1 : 0);
    EncodeItem(a.expression_attribute_values.value_or(Item{}), &s);
    s.push_back(a.return_old_on_condition_failure ? 1 : 0);
  }
  return XXH3_64bits(s.data(), s.size());
}

}  // namespace

Error TransactionCanceled(std::vector<CancellationReason> reasons) {
  std::string message =
      "Transaction cancelled, please refer cancellation reasons for specific reasons [";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i) message += ", ";
    message += CancellationCodeName(reasons[i].code);
  }
  message += "]";
  auto detail = std::make_shared<ErrorDetail>();
  detail->cancellation_reasons = std::move(reasons);
  Error e(ErrorCode::kTransactionCanceled, std::move(message));
  e.WithDetail(std::move(detail));
  return e;
}

Error TransactionConflict() { return Error(ErrorCode::kTransactionConflict, kTransactionOngoing); }

namespace {

// Claims the items of a transaction (transaction_claims.h) for as long as it lives, or
// answers the cancellation naming the items another transaction in flight holds.
class ClaimedItems {
 public:
  ClaimedItems(EngineImpl& impl, std::vector<std::string> keys, TransactionClaims::Mode mode)
      : impl_(impl), keys_(std::move(keys)), mode_(mode) {
    std::vector<size_t> held = impl_.transaction_claims.TryClaim(keys_, mode_);
    if (held.empty()) return;
    std::vector<CancellationReason> reasons(keys_.size());
    for (size_t i : held)
      reasons[i] = {CancellationCode::kTransactionConflict, kTransactionOngoing, {}};
    refused_ = TransactionCanceled(std::move(reasons));
    keys_.clear();
  }
  ~ClaimedItems() { impl_.transaction_claims.Release(keys_, mode_); }
  ClaimedItems(const ClaimedItems&) = delete;
  ClaimedItems& operator=(const ClaimedItems&) = delete;

  // Ok, or the TransactionCanceledException of a collision.
  Status status() const { return refused_ ? Status(*refused_) : Status::Ok(); }
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  EngineImpl& impl_;
  std::vector<std::string> keys_;  // claimed; empty when refused
  TransactionClaims::Mode mode_;
  std::optional<Error> refused_;
};

// Step 1, before locking anything: every action validated and compiled.
Result<std::vector<PreparedWrite>> PrepareActions(EngineImpl& impl,
                                                  const TransactWriteItemsRequest& req) {
  std::vector<PreparedWrite> writes;
  std::set<std::string> seen;
  size_t bytes = 0;
  // Every action's expressions first, then the tables, keys and items (the service's order).
  for (size_t i = 0; i < req.actions.size(); ++i) {
    const TransactWriteAction& a = req.actions[i];
    PreparedWrite::Kind kind = PreparedKind(a.kind);
    if (kind == PreparedWrite::Kind::kConditionCheck && !a.condition_expression) {
      return ValidationErrors({"Value null at 'transactItems." + std::to_string(i + 1) +
                               ".member.conditionCheck.conditionExpression' failed to satisfy "
                               "constraint: Member must not be null"});
    }
    DDB_ASSIGN_OR_RETURN(PreparedWrite w, CompileWriteExpressions(kind, a.update_expression, a));
    writes.push_back(std::move(w));
  }
  for (size_t i = 0; i < req.actions.size(); ++i) {
    const TransactWriteAction& a = req.actions[i];
    DDB_ASSIGN_OR_RETURN(auto table, impl.FindTable(a.table_name));
    // The service's restriction on such tables (guessed wording: not on record).
    if (table->description.multi_region_strong) {
      return Error::Validation(
          "Transactions are not supported for global tables with MultiRegionConsistency set to "
          "STRONG");
    }
    // A bad key value (of the table or an index) cancels the transaction with this action's
    // ValidationError; the service stops at the first, the other actions' reasons are None.
    // A key that names other attributes than the schema's, or an empty key value, fails the
    // request.
    Status values = Status::Ok();
    if (writes[i].kind == PreparedWrite::Kind::kPut) {
      values = ValidatePutItemKeys(*table, a.item_or_key);
    } else {
      DDB_RETURN_IF_ERROR(ValidateKeyShape(table->description, a.item_or_key));
      values = ValidateKeyValues(table->description, a.item_or_key);
    }
    if (!values.ok() && IsEmptyKeyValueError(values.error())) return values;
    if (!values.ok()) {
      std::vector<CancellationReason> reasons(req.actions.size());
      reasons[i] = {CancellationCode::kValidationError, values.error().message(), {}};
      return TransactionCanceled(std::move(reasons));
    }
    DDB_RETURN_IF_ERROR(BindWrite(table, a.item_or_key, &writes[i], /*check_keys=*/false));
    if (!seen.insert(writes[i].key).second) return DuplicateItem();
    bytes += ItemSize(a.item_or_key);
  }
  if (bytes > kMaxTransactionBytes) return TransactionTooLarge();
  return writes;
}

// Each action's item before and after (both nullopt for an action that writes nothing).
struct EvaluatedActions {
  std::vector<std::optional<Item>> olds;
  std::vector<std::optional<Item>> news;
};

// Step 2, with every item locked: the old items read and every action applied to its own,
// or the cancellation naming why each action did (not) go through.
Result<EvaluatedActions> EvaluateActions(EngineImpl& impl,
                                         const std::vector<PreparedWrite>& writes) {
  EvaluatedActions out;
  std::vector<CancellationReason> reasons(writes.size());
  bool cancelled = false;
  for (size_t i = 0; i < writes.size(); ++i) {
    DDB_ASSIGN_OR_RETURN(std::optional<Item> old, impl.ReadItem(writes[i].key));
    Result<std::optional<Item>> updated = writes[i].Apply(old);
    if (!updated.ok()) {
      const Error& e = updated.error();
      if (e.code() == ErrorCode::kConditionalCheckFailed) {
        reasons[i] = {CancellationCode::kConditionalCheckFailed, e.message(), {}};
        if (e.detail()) reasons[i].item = e.detail()->item;
      } else if (IsEmptyKeyValueError(e)) {
        return e;  // an update that empties an index key fails the request
      } else if (e.code() == ErrorCode::kValidation) {
        reasons[i] = {CancellationCode::kValidationError, e.message(), {}};
      } else {
        return e;
      }
      cancelled = true;
      out.olds.emplace_back();
      out.news.emplace_back();
      continue;
    }
    out.olds.push_back(std::move(old));
    out.news.push_back(std::move(updated).value());
  }
  if (cancelled) return TransactionCanceled(std::move(reasons));
  return out;
}

// The ClientRequestToken of a call, recorded with the commit it answers.
struct TokenRecord {
  const std::string* token = nullptr;  // null: the call has none
  uint64_t fingerprint = 0;
  uint64_t now_ms = 0;
  std::vector<ConsumedCapacity> replay;  // what a repeat reports
};

// Step 3: every write, its index entries and change records in one WriteBatch, with the
// token's record when there is one.
Status CommitActions(EngineImpl& impl, const std::vector<PreparedWrite>& writes,
                     const EvaluatedActions& ev, const TokenRecord& token) {
  Storage::Batch batch(*impl.storage);
  if (token.token) {
    RequestTokens::Record(*token.token, token.fingerprint, token.now_ms, token.replay, &batch);
  }
  std::vector<uint64_t> sequences;
  Status added = Status::Ok();
  for (size_t i = 0; i < writes.size() && added.ok(); ++i) {
    if (writes[i].kind == PreparedWrite::Kind::kConditionCheck) continue;
    if (!ev.olds[i] && !ev.news[i]) continue;
    added = impl.AddWrite(writes[i].table->id, writes[i].key, ev.olds[i], ev.news[i], &batch,
                          &sequences);
  }
  if (!added.ok()) {
    for (uint64_t s : sequences) impl.sequencer->End(s);
    return added.error();
  }
  return impl.Commit(batch, sequences);
}

// Step 4: what the transaction consumed per table, or with `replay` what a repeat of it
// reports. As the service reports them (per captures of its answers): a write is a
// transactional write of the larger of the item's two images (its indexes' shares are not
// doubled, AddWriteCapacity); a ConditionCheck a transactional write of the item it read;
// a repeat a transactional read of the larger image of each action's item.
std::vector<ConsumedCapacity> TransactionCapacity(const std::vector<PreparedWrite>& writes,
                                                  const EvaluatedActions& ev, bool replay) {
  std::map<std::string, ConsumedCapacity> by_table;
  for (size_t i = 0; i < writes.size(); ++i) {
    const std::string& name = writes[i].table->description.table_name;
    ConsumedCapacity& c = by_table.try_emplace(name, ConsumedCapacity{name}).first->second;
    const bool check = writes[i].kind == PreparedWrite::Kind::kConditionCheck;
    if (replay || check) {
      const size_t size =
          std::max(ev.olds[i] ? ItemSize(*ev.olds[i]) : 0, ev.news[i] ? ItemSize(*ev.news[i]) : 0);
      if (replay) {
        c.AddTable(ReadUnits(size, /*consistent=*/true, /*transactional=*/true), false);
      } else {
        c.AddTable(WriteUnits(size, /*transactional=*/true), /*write=*/true);
      }
    } else {
      AddWriteCapacity(*writes[i].table, ev.olds[i], ev.news[i], /*transactional=*/true, &c);
    }
  }
  std::vector<ConsumedCapacity> out;
  for (auto& [name, c] : by_table) out.push_back(std::move(c));
  return out;
}

// TransactWriteItems once its token (if any) is claimed. With a token, token->replay
// receives what a repeat of the call reports, and the token's record is committed with the
// writes.
Result<TransactWriteItemsResult> RunTransactWrite(EngineImpl& impl,
                                                  const TransactWriteItemsRequest& req,
                                                  TokenRecord* token) {
  DDB_ASSIGN_OR_RETURN(std::vector<PreparedWrite> writes, PrepareActions(impl, req));
  std::vector<std::string> keys;
  for (const auto& w : writes) keys.push_back(w.key);
  ClaimedItems claimed(impl, std::move(keys), TransactionClaims::Mode::kWrite);
  DDB_RETURN_IF_ERROR(claimed.status());
  TransactWriteItemsResult result;
  {
    StripeLocks locks(impl, claimed.keys());
    DDB_ASSIGN_OR_RETURN(EvaluatedActions ev, EvaluateActions(impl, writes));
    if (token->token) token->replay = TransactionCapacity(writes, ev, /*replay=*/true);
    DDB_RETURN_IF_ERROR(CommitActions(impl, writes, ev, *token));
    if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
      result.consumed_capacity = TransactionCapacity(writes, ev, /*replay=*/false);
    }
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    if (writes[i].kind == PreparedWrite::Kind::kConditionCheck) continue;
    std::optional<ItemCollectionMetrics> metrics = impl.CollectionMetrics(
        *writes[i].table, req.actions[i].item_or_key, req.return_item_collection_metrics);
    if (metrics) {
      EntryFor(&result.item_collection_metrics, writes[i].table->description.table_name)
          .push_back(std::move(*metrics));
    }
  }
  return result;
}

}  // namespace

Result<TransactWriteItemsResult> Engine::TransactWriteItems(const TransactWriteItemsRequest& req) {
  DDB_RETURN_IF_ERROR(CheckActionCount(req.actions.size()));
  TokenRecord token;
  if (req.client_request_token) {
    token.token = &*req.client_request_token;
    token.fingerprint = Fingerprint(req);
    token.now_ms = impl_->NowMs();
    std::vector<ConsumedCapacity> replayed;
    switch (
        impl_->request_tokens.TryClaim(*token.token, token.fingerprint, token.now_ms, &replayed)) {
      case RequestTokens::Claim::kMismatch:
        return Error(ErrorCode::kIdempotentParameterMismatch,
                     "Request token is already in use with different parameters");
      case RequestTokens::Claim::kInProgress:
        return Error(ErrorCode::kTransactionInProgress,
                     "The transaction with the given request token is already in progress");
      case RequestTokens::Claim::kReplay: {
        // The first call committed (perhaps before a restart): apply nothing again.
        TransactWriteItemsResult replay;
        if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
          replay.consumed_capacity = std::move(replayed);
        }
        replay.replayed = true;
        return replay;
      }
      case RequestTokens::Claim::kNew:
        break;
    }
  }
  Result<TransactWriteItemsResult> result = RunTransactWrite(*impl_, req, &token);
  if (token.token) {
    if (result.ok()) {
      impl_->request_tokens.Committed(*token.token, token.fingerprint, token.now_ms,
                                      std::move(token.replay));
    } else {
      impl_->request_tokens.Released(*token.token);  // a failed call may be retried
    }
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
  for (size_t i = 0; i < req.actions.size(); ++i) {
    const TransactGetAction& a = req.actions[i];
    DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(a.table_name));
    // A key that does not fit the schema cancels the transaction with this action's
    // ValidationError (the others' reasons None); an empty key value fails the request.
    if (Status key = ValidateKey(table->description, a.key); !key.ok()) {
      if (IsEmptyKeyValueError(key.error())) return key;
      std::vector<CancellationReason> reasons(req.actions.size());
      reasons[i] = {CancellationCode::kValidationError, key.error().message(), {}};
      return TransactionCanceled(std::move(reasons));
    }
    PlannedGet g;
    DDB_ASSIGN_OR_RETURN(
        g.projection, CompileReadProjection(
                          a.projection_expression, {},
                          a.expression_attribute_names ? &*a.expression_attribute_names : nullptr));
    g.key = impl_->ItemKeyOf(*table, a.key);
    g.table_name = a.table_name;
    if (!seen.insert(g.key).second) return DuplicateItem();
    gets.push_back(std::move(g));
  }
  std::vector<std::string> keys;
  for (const auto& g : gets) keys.push_back(g.key);
  ClaimedItems claimed(*impl_, std::move(keys), TransactionClaims::Mode::kRead);
  DDB_RETURN_IF_ERROR(claimed.status());
  TransactGetItemsResult result;
  StripeLocks locks(*impl_, claimed.keys());
  std::map<std::string, ConsumedCapacity> capacity;
  size_t bytes = 0;
  for (const auto& g : gets) {
    DDB_ASSIGN_OR_RETURN(std::optional<Item> item, impl_->ReadItem(g.key));
    const size_t size = item ? ItemSize(*item) : 0;
    // The API reference: the service "rejects the entire TransactGetItems request" when "the
    // aggregate size of the items in the transaction exceeded 4 MB" (the items read, as their
    // read capacity counts them); no need to read the rest once past it.
    bytes += size;
    if (bytes > kMaxTransactionBytes) return TransactionTooLarge();
    if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
      auto [it, fresh] = capacity.try_emplace(g.table_name, ConsumedCapacity{g.table_name});
      it->second.AddTable(ReadUnits(size, true, true), false);
    }
    if (item && g.projection) item = ApplyProjection(*g.projection, *item);
    result.items.push_back(std::move(item));
  }
  for (auto& [name, c] : capacity) result.consumed_capacity.push_back(std::move(c));
  return result;
}

}  // namespace ddb
