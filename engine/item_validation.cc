#include "engine/item_validation.h"

namespace ddb {
namespace {

// Empty key values and over-long keys, with the service's messages (shared by items and keys).
// Every empty-key-value message starts so (and no other).
constexpr std::string_view kNotValid = "One or more parameter values are not valid. ";

Status CheckKeyValue(const std::string& name, const AttributeValue& v, bool is_hash) {
  if (v.scalar().empty() && v.type() != AttributeType::kN) {
    return Error::Validation(
        std::string(kNotValid) + "The AttributeValue for a key attribute cannot contain an empty " +
        std::string(v.type() == AttributeType::kS ? "string" : "binary") + " value. Key: " + name);
  }
  if (is_hash && v.scalar().size() > kMaxPartitionKeySize) {
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
        "size limit of2048 bytes");
  }
  if (!is_hash && v.scalar().size() > kMaxSortKeySize) {
    return Error::Validation(
        "One or more parameter values were invalid: Aggregated size of all range keys has "
        "exceeded the size limit of 1024 bytes");
  }
  return Status::Ok();
}

// Whether `v`, at nesting level `level` (an item's own attributes are level 1), or anything
// inside it lies deeper than kMaxNestingDepth. Stops at the first level past the limit, so its
// recursion is bounded whatever the value.
bool NestedTooDeep(const AttributeValue& v, int level) {
  if (level > kMaxNestingDepth) return true;
  if (v.type() == AttributeType::kM) {
    for (const auto& [name, member] : v.map()) {
      if (NestedTooDeep(member, level + 1)) return true;
    }
  } else if (v.type() == AttributeType::kL) {
    for (const auto& member : v.list()) {
      if (NestedTooDeep(member, level + 1)) return true;
    }
  }
  return false;
}

}  // namespace

Status ValidateItemKeys(const TableDescription& table, const Item& item) {
  for (const auto& k : table.key_schema) {
    auto it = item.find(k.attribute_name);
    if (it == item.end()) {
      return Error::Validation("One or more parameter values were invalid: Missing the key " +
                               k.attribute_name + " in the item");
    }
    AttributeType want = ToAttributeType(table.AttributeTypeOf(k.attribute_name));
    if (it->second.type() != want) {
      return Error::Validation("One or more parameter values were invalid: Type mismatch for key " +
                               k.attribute_name +
                               " expected: " + std::string(AttributeTypeName(want)) +
                               " actual: " + std::string(AttributeTypeName(it->second.type())));
    }
    DDB_RETURN_IF_ERROR(CheckKeyValue(k.attribute_name, it->second, k.key_type == KeyType::kHash));
  }
  return Status::Ok();
}

Status ValidateItemSize(size_t item_size) {
  if (item_size > kMaxItemSize) {
    return Error::Validation("Item size has exceeded the maximum allowed size");
  }
  return Status::Ok();
}

Status ValidateItemSize(const Item& item) { return ValidateItemSize(ItemSize(item)); }

Status ValidateItemNesting(const Item& item) {
  for (const auto& [name, value] : item) {
    if (NestedTooDeep(value, 1)) {
      // The protocol layer words the same limit so when it parses a request's values.
      return Error::Validation(
          "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
          "levels beyond supported limit");
    }
  }
  return Status::Ok();
}

Status ValidateItem(const TableDescription& table, const Item& item) {
  DDB_RETURN_IF_ERROR(ValidateItemKeys(table, item));
  return ValidateItemSize(item);
}

Status ValidateIndexKeys(const std::vector<IndexSchema>& indexes, const Item& item,
                         bool by_update) {
  for (const IndexSchema& index : indexes) {
    for (const auto* attrs : {&index.hash_attrs, &index.range_attrs}) {
      const bool hash = attrs == &index.hash_attrs;
      for (const auto& [name, type] : *attrs) {
        auto it = item.find(name);
        if (it == item.end()) continue;
        if (it->second.type() != type) {
          return Error::Validation(
              "One or more parameter values were invalid: Type mismatch for Index Key " + name +
              " Expected: " + std::string(AttributeTypeName(type)) + " Actual: " +
              std::string(AttributeTypeName(it->second.type())) + " IndexName: " + index.name);
        }
        if (type != AttributeType::kN && it->second.scalar().empty()) {
          if (by_update) {
            return Error::Validation(
                std::string(kNotValid) +
                "The update expression attempted to update a secondary index key to a value "
                "that is not supported. The AttributeValue for a key attribute cannot contain an "
                "empty " +
                std::string(type == AttributeType::kS ? "string" : "binary") + " value.");
          }
          return Error::Validation(
              std::string(kNotValid) +
              "A value specified for a secondary index key is not supported. The AttributeValue "
              "for a key attribute cannot contain an empty " +
              std::string(type == AttributeType::kS ? "string" : "binary") +
              " value. IndexName: " + index.name + ", IndexKey: " + name);
        }
        // The key limits hold for index keys too, with the base table's texts.
        if (type != AttributeType::kN) {
          DDB_RETURN_IF_ERROR(CheckKeyValue(name, it->second, hash));
        }
      }
    }
  }
  return Status::Ok();
}

Status ValidateKeyShape(const TableDescription& table, const Item& key) {
  const Error mismatch = Error::Validation("The provided key element does not match the schema");
  if (key.size() != table.key_schema.size()) return mismatch;
  for (const auto& k : table.key_schema) {
    if (!key.contains(k.attribute_name)) return mismatch;
  }
  return Status::Ok();
}

Status ValidateKeyValues(const TableDescription& table, const Item& key) {
  for (const auto& k : table.key_schema) {
    auto it = key.find(k.attribute_name);
    if (it == key.end()) continue;
    if (it->second.type() != ToAttributeType(table.AttributeTypeOf(k.attribute_name))) {
      return Error::Validation("The provided key element does not match the schema");
    }
    DDB_RETURN_IF_ERROR(CheckKeyValue(k.attribute_name, it->second, k.key_type == KeyType::kHash));
  }
  return Status::Ok();
}

bool IsEmptyKeyValueError(const Error& e) {
  return e.code() == ErrorCode::kValidation && e.message().starts_with(kNotValid);
}

Status ValidateKey(const TableDescription& table, const Item& key) {
  DDB_RETURN_IF_ERROR(ValidateKeyShape(table, key));
  return ValidateKeyValues(table, key);
}

}  // namespace ddb
