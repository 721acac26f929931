#include "engine/write_path.h"

#include "engine/item_validation.h"
#include "engine/key_codec.h"

namespace ddb {
namespace {

Placeholders PlaceholdersOf(const ConditionalWrite& w) {
  Placeholders p;
  p.names = w.has_expression_attribute_names ? &w.expression_attribute_names : nullptr;
  p.values = w.has_expression_attribute_values ? &w.expression_attribute_values : nullptr;
  return p;
}

std::string ItemKeyOf(const TableInfo& table, const Item& item_or_key) {
  const TableDescription& d = table.description;
  const std::string* range = d.range_key();
  return EncodeItemKey(table.id, item_or_key.at(d.hash_key()),
                       range ? &item_or_key.at(*range) : nullptr);
}

}  // namespace

Result<PreparedWrite> PrepareWrite(PreparedWrite::Kind kind, std::shared_ptr<const TableInfo> table,
                                   const Item& item_or_key,
                                   const std::optional<std::string>& update_expression,
                                   const ConditionalWrite& w) {
  const TableDescription& d = table->description;
  PreparedWrite p;
  p.kind = kind;
  if (kind == PreparedWrite::Kind::kPut) {
    DDB_RETURN_IF_ERROR(ValidateItem(d, item_or_key));
    DDB_RETURN_IF_ERROR(ValidateIndexKeys(table->indexes, item_or_key));
  } else {
    DDB_RETURN_IF_ERROR(ValidateKey(d, item_or_key));
  }
  bool has_update = kind == PreparedWrite::Kind::kUpdate && update_expression.has_value();
  bool any_expression = w.condition_expression.has_value() || has_update;
  DDB_RETURN_IF_ERROR(CheckPlaceholdersNeedExpressions(
      w.has_expression_attribute_names, w.has_expression_attribute_values, any_expression,
      any_expression,
      kind == PreparedWrite::Kind::kUpdate ? "UpdateExpression and ConditionExpression"
                                           : "ConditionExpression"));
  Placeholders placeholders = PlaceholdersOf(w);
  if (has_update) {
    DDB_ASSIGN_OR_RETURN(p.update, CompileUpdate(*update_expression, &placeholders));
    p.updated_paths = UpdatedPaths(*p.update);
  }
  if (w.condition_expression) {
    DDB_ASSIGN_OR_RETURN(p.condition, CompileCondition(*w.condition_expression,
                                                       "ConditionExpression", &placeholders));
  }
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  for (const auto& path : p.updated_paths) {
    for (const auto& k : d.key_schema) {
      if (path.front().name == k.attribute_name) {
        return Error::Validation(
            "One or more parameter values were invalid: Cannot update attribute " +
            k.attribute_name + ". This attribute is part of the key");
      }
    }
  }
  p.key = ItemKeyOf(*table, item_or_key);
  p.item_or_key = item_or_key;
  p.table = std::move(table);
  p.return_old_on_condition_failure = w.return_old_on_condition_failure;
  return p;
}

Result<std::optional<Item>> PreparedWrite::Apply(const std::optional<Item>& old) const {
  if (condition && !EvaluateCondition(*condition, old ? &*old : nullptr)) {
    Error e(ErrorCode::kConditionalCheckFailed, "The conditional request failed");
    if (return_old_on_condition_failure && old) {
      auto detail = std::make_shared<ErrorDetail>();
      detail->item = old;
      e.WithDetail(std::move(detail));
    }
    return e;
  }
  switch (kind) {
    case Kind::kPut:
      return std::optional<Item>(item_or_key);
    case Kind::kDelete:
      return std::optional<Item>();
    case Kind::kConditionCheck:
      return old;  // unchanged; callers do not write it
    case Kind::kUpdate:
      break;
  }
  // An update that only takes things away creates nothing, as in the service.
  if (!old && update && UpdateOnlyRemoves(*update)) return std::optional<Item>();
  Item item = old ? *old : item_or_key;
  if (update) DDB_RETURN_IF_ERROR(ApplyUpdate(*update, &item));
  DDB_RETURN_IF_ERROR(ValidateIndexKeys(table->indexes, item, /*by_update=*/true));
  if (ItemSize(item) > kMaxItemSize) {
    return Error::Validation("Item size to update has exceeded the maximum allowed size");
  }
  return std::optional<Item>(std::move(item));
}

std::optional<Item> UpdateReturnValues(ReturnValues rv, const PreparedWrite& write,
                                       std::optional<Item> old, std::optional<Item> updated) {
  switch (rv) {
    case ReturnValues::kNone:
      return std::nullopt;
    case ReturnValues::kAllOld:
      return old;
    case ReturnValues::kAllNew:
      return updated;
    case ReturnValues::kUpdatedOld:
    case ReturnValues::kUpdatedNew: {
      const std::optional<Item>& source = rv == ReturnValues::kUpdatedOld ? old : updated;
      if (!source || write.updated_paths.empty()) return std::nullopt;
      Item projected = ApplyProjection(Projection{write.updated_paths}, *source);
      if (projected.empty()) return std::nullopt;
      return projected;
    }
  }
  return std::nullopt;
}

}  // namespace ddb
