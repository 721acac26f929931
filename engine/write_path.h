// Single-item writes, prepared: the request validated and its expressions compiled before
// any item is read, then Apply() turns the old item into the new one. Apply is a pure
// function of the old item, so PutItem/UpdateItem/DeleteItem (one item under its lock) and
// TransactWriteItems (many items under their locks) share it. write_path.cc also holds the
// write core that commits them (EngineImpl::AddWrite, Commit, Mutate, PutWithoutIndexes;
// declared in engine_impl.h).
// Thread safety: a PreparedWrite is immutable after PrepareWrite.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ddb/types.h"
#include "engine/catalog.h"
#include "engine/expression/expression.h"

namespace ddb {

struct PreparedWrite {
  enum class Kind : uint8_t { kPut, kUpdate, kDelete, kConditionCheck };
  Kind kind = Kind::kPut;
  std::shared_ptr<const TableInfo> table;
  std::string key;   // the item key (key_codec.h)
  Item item_or_key;  // kPut: the item; else the key
  ConditionPtr condition;
  UpdatePtr update;
  std::vector<DocumentPath> updated_paths;
  bool return_old_on_condition_failure = false;
  // kUpdate: also apply UpdateItem's own size rule (UpdateItemSizeFits in write_path.cc),
  // which the service applies to the UpdateItem API only, not to a transaction's Update or
  // a PartiQL UPDATE.
  bool update_item_size_rule = false;

  // The new item (nullopt: delete, or nothing to write), or kConditionalCheckFailed (with
  // the old item attached when asked for) or kValidation (run-time update errors, index
  // keys, size).
  Result<std::optional<Item>> Apply(const std::optional<Item>& old) const;
};

// A write is prepared in the service's order of checks: its expressions first, before its
// table is looked up (syntax, names and values defined, every placeholder used), then the
// key or item against the table.
//
// Step 1: the expressions compiled. "update_expression" is only for kUpdate.
// Errors: kValidation.
Result<PreparedWrite> CompileWriteExpressions(PreparedWrite::Kind kind,
                                              const std::optional<std::string>& update_expression,
                                              const ConditionalWrite& w);
// The key values of a Put's item, the table's and the indexes': types, emptiness, sizes. A
// transaction reports these as its action's ValidationError, not as the request's (its item
// size is the request's).
// Errors: kValidation.
Status ValidatePutItemKeys(const TableInfo& table, const Item& item);
// Step 2: the write bound to its table: the key validated (a Put's item: its size and its
// keys), no key attribute updated. `check_keys` false: the caller validated the keys itself
// (ValidatePutItemKeys, or ValidateKeyShape and ValidateKeyValues). `keep_item` false:
// write->item_or_key stays empty, no copy of the item (a caller that applies the write after
// all sets it first). Errors: kValidation.
Status BindWrite(std::shared_ptr<const TableInfo> table, const Item& item_or_key,
                 PreparedWrite* write, bool check_keys = true, bool keep_item = true);

// UpdateItem's ReturnValues from the old and new items.
std::optional<Item> UpdateReturnValues(ReturnValues rv, const PreparedWrite& write,
                                       std::optional<Item> old, std::optional<Item> updated);

}  // namespace ddb
