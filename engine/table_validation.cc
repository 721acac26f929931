#include "engine/table_validation.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/capacity/throughput_quotas.h"
#include "engine/vector/vector_index.h"

namespace ddb {
namespace {

constexpr size_t kMaxProjectedAttributes = 100;
constexpr size_t kMaxTags = 50;
const std::string& kInvalid = kInvalidParameters;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out + "]";
}

// A table's or a classic index's key schema: distinct names, HASH first, optional RANGE
// second, checked in that order (dynalite's, recorded against the service; a table with
// more key attributes than definitions is refused before, by ValidateCreateTable).
Status CheckKeySchema(const std::vector<KeySchemaElement>& ks) {
  if (ks.empty() || ks.size() > 2) {
    return Error::Validation(kInvalid + "Invalid KeySchema: Too many key elements");
  }
  if (ks.size() == 2 && ks[0].attribute_name == ks[1].attribute_name) {
    return Error::Validation(
        "Both the Hash Key and the Range Key element in the KeySchema have the same name");
  }
  if (ks[0].key_type != KeyType::kHash) {
    return Error::Validation(
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (ks.size() == 2 && ks[1].key_type != KeyType::kRange) {
    return Error::Validation(
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
  }
  return Status::Ok();
}

// A GSI key: 1 to 4 HASH attributes, then 0 to 4 RANGE attributes, names distinct.
Status CheckGlobalKeySchema(const std::vector<KeySchemaElement>& ks) {
  size_t hashes = 0, ranges = 0;
  std::set<std::string> names;
  for (const auto& k : ks) {
    if (!names.insert(k.attribute_name).second) {
      return Error::Validation("The KeySchema contains multiple key attributes with the same name");
    }
    if (k.key_type == KeyType::kHash) {
      if (ranges > 0) {
        return Error::Validation(kInvalid +
                                 "All HASH key attributes must precede RANGE key attributes in "
                                 "the KeySchema");
      }
      ++hashes;
    } else {
      ++ranges;
    }
  }
  if (hashes == 0) {
    return Error::Validation(
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (hashes > 4) {
    return Error::Validation(kInvalid +
                             "The KeySchema exceeds the maximum allowed number of HASH key "
                             "attributes");
  }
  if (ranges > 4) {
    return Error::Validation(kInvalid +
                             "The KeySchema exceeds the maximum allowed number of RANGE key "
                             "attributes");
  }
  return Status::Ok();
}

// `local`: an LSI, whose ALL projection may list NonKeyAttributes (the service accepts it:
// Alternator's stream tests, run against it, create such an index); a GSI's may not.
Status CheckProjection(const SecondaryIndexDefinition& idx, size_t* projected, bool local = false) {
  const IndexProjection& p = idx.projection;
  if (p.type_missing) return Error::Validation(kInvalid + "Unknown ProjectionType: null");
  if (p.projection_type == ProjectionType::kInclude) {
    if (p.non_key_attributes.empty()) {
      return Error::Validation(kInvalid +
                               "ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
    }
    std::set<std::string> seen;
    for (const auto& n : p.non_key_attributes) {
      if (!seen.insert(n).second) {
        return Error::Validation(kInvalid + "Duplicate element in NonKeyAttributes: " + n);
      }
    }
    *projected += p.non_key_attributes.size();
  } else if (!p.non_key_attributes.empty() &&
             !(local && p.projection_type == ProjectionType::kAll)) {
    return Error::Validation(kInvalid + "ProjectionType is " +
                             std::string(ProjectionTypeName(p.projection_type)) +
                             ", but NonKeyAttributes is specified");
  }
  return Status::Ok();
}

// "Some index key attributes are not defined ..." unless every attribute of `ks` is among
// `definition_names`.
Status CheckKeysDefined(const std::vector<KeySchemaElement>& ks,
                        const std::vector<std::string>& definition_names) {
  std::vector<std::string> keys;
  bool missing = false;
  for (const auto& k : ks) {
    keys.push_back(k.attribute_name);
    missing = missing || std::find(definition_names.begin(), definition_names.end(),
                                   k.attribute_name) == definition_names.end();
  }
  if (!missing) return Status::Ok();
  return Error::Validation(kInvalid +
                           "Some index key attributes are not defined in AttributeDefinitions. "
                           "Keys: " +
                           JoinNames(keys) +
                           ", AttributeDefinitions: " + JoinNames(definition_names));
}

}  // namespace

Status CheckIndexThroughput(BillingMode mode, const SecondaryIndexDefinition& idx) {
  if (mode == BillingMode::kProvisioned && !idx.provisioned_throughput) {
    return Error::Validation(
        kInvalid + "ProvisionedThroughput must be specified for index: " + idx.index_name);
  }
  if (mode == BillingMode::kPayPerRequest && idx.provisioned_throughput) {
    return Error::Validation(
        kInvalid + "ProvisionedThroughput should not be specified for index: " + idx.index_name +
        " when BillingMode is PAY_PER_REQUEST");
  }
  return Status::Ok();
}

Status CheckNewIndexKeysDefined(const UpdateTableRequest& req) {
  std::vector<std::string> definition_names;
  for (const auto& a : req.attribute_definitions) definition_names.push_back(a.attribute_name);
  for (const auto& u : req.global_secondary_index_updates) {
    if (u.kind != GlobalSecondaryIndexUpdate::Kind::kCreate) continue;
    DDB_RETURN_IF_ERROR(CheckKeysDefined(u.index.key_schema, definition_names));
    if (u.index.projection.type_missing) {
      return Error::Validation(kInvalid + "Unknown ProjectionType: null");
    }
  }
  return Status::Ok();
}

// Vector indexes (the service's API reference and developer guide, "Requirements and
// limitations", "Troubleshooting vector indexes"). Verified: on-demand tables only; the
// troubleshooting page's "One element in SearchSchema is not defined in attribute
// definitions"; indexes on one attribute share its dimensions. The other sentences and the
// numeric limits (vector_index.h) are guessed in the service's usual wording.
static Status CheckVectorIndexes(const CreateTableRequest& req, BillingMode mode,
                                 const std::vector<std::string>& defined,
                                 std::set<std::string>* index_names) {
  if (req.vector_indexes.empty()) return Status::Ok();
  if (mode != BillingMode::kPayPerRequest) {
    return Error::Validation(kInvalid +
                             "Vector indexes are supported only on tables that use on-demand "
                             "capacity mode (PAY_PER_REQUEST)");
  }
  size_t live = 0;
  for (const auto& idx : req.vector_indexes) live += idx.index_status != IndexStatus::kDeleting;
  if (live > kMaxVectorIndexesPerTable) {
    return Error::Validation(kInvalid + "VectorIndex count exceeds the per-table limit of " +
                             std::to_string(kMaxVectorIndexesPerTable));
  }
  std::map<std::string, int64_t> dimensions_of;  // vector attribute -> dimensions
  for (const auto& idx : req.vector_indexes) {
    if (!index_names->insert(idx.index_name).second) {
      return Error::Validation(kInvalid + "Duplicate index name: " + idx.index_name);
    }
    if (idx.dimensions > kMaxVectorDimensions) {
      return Error::Validation(kInvalid + "Dimensions for vector index " + idx.index_name +
                               " must be between 1 and " + std::to_string(kMaxVectorDimensions));
    }
    for (const auto& k : req.key_schema) {
      if (k.attribute_name == idx.vector_attribute) {
        return Error::Validation(
            kInvalid + "VectorAttribute " + idx.vector_attribute +
            " cannot be a key attribute of the table. IndexName: " + idx.index_name);
      }
    }
    auto [it, fresh] = dimensions_of.emplace(idx.vector_attribute, idx.dimensions);
    if (!fresh && it->second != idx.dimensions) {
      return Error::Validation(kInvalid + "Vector indexes on attribute " + idx.vector_attribute +
                               " must all have the same Dimensions");
    }
    size_t hashes = 0, filters = 0;
    std::set<std::string> schema_names;
    for (const auto& e : idx.search_schema) {
      if (std::find(defined.begin(), defined.end(), e.attribute_name) == defined.end()) {
        return Error::Validation(
            "One element in SearchSchema is not defined in attribute "
            "definitions");
      }
      if (!schema_names.insert(e.attribute_name).second) {
        return Error::Validation(kInvalid + "Duplicate attribute in SearchSchema: " +
                                 e.attribute_name + ". IndexName: " + idx.index_name);
      }
      if (e.attribute_name == idx.vector_attribute) {
        return Error::Validation(kInvalid + "VectorAttribute " + idx.vector_attribute +
                                 " cannot be in the SearchSchema. IndexName: " + idx.index_name);
      }
      (e.type == SearchSchemaElementType::kHash ? hashes : filters)++;
    }
    if (hashes > 1) {
      return Error::Validation(kInvalid +
                               "SearchSchema may have at most one element of type HASH. "
                               "IndexName: " +
                               idx.index_name);
    }
    if (filters > kMaxInlineFilters) {
      return Error::Validation(
          kInvalid + "Number of INLINE_FILTER attributes exceeds the limit of " +
          std::to_string(kMaxInlineFilters) + ". IndexName: " + idx.index_name);
    }
    if (idx.projection.projection_type == ProjectionType::kInclude &&
        idx.projection.non_key_attributes.empty()) {
      return Error::Validation(kInvalid +
                               "ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
    }
    if (idx.projection.projection_type != ProjectionType::kInclude &&
        !idx.projection.non_key_attributes.empty()) {
      return Error::Validation(kInvalid + "ProjectionType is " +
                               std::string(EnumName(idx.projection.projection_type)) +
                               ", but NonKeyAttributes is specified");
    }
  }
  return Status::Ok();
}

namespace {

// ValidateCreateTable's steps, in the service's order of checks.

// The table's and the indexes' names (global indexes before local ones, as the service
// lists them), then the number of tags.
Status CheckCreateNames(const CreateTableRequest& req) {
  std::vector<std::string> violations;
  TableNameViolations(req.table_name, "tableName", &violations);
  for (size_t i = 0; i < req.global_secondary_indexes.size(); ++i) {
    TableNameViolations(req.global_secondary_indexes[i].index_name,
                        "globalSecondaryIndexes." + std::to_string(i + 1) + ".member.indexName",
                        &violations);
  }
  for (size_t i = 0; i < req.local_secondary_indexes.size(); ++i) {
    TableNameViolations(req.local_secondary_indexes[i].index_name,
                        "localSecondaryIndexes." + std::to_string(i + 1) + ".member.indexName",
                        &violations);
  }
  if (!violations.empty()) return ValidationErrors(violations);
  if (req.tags.size() > kMaxTags) {
    return Error::Validation(
        "Number of Tags exceed the current limit for the provided ResourceArn");
  }
  return Status::Ok();
}

// The billing mode against the throughput given.
Status CheckBillingMode(const CreateTableRequest& req, BillingMode mode) {
  if (mode == BillingMode::kPayPerRequest && req.provisioned_throughput) {
    return Error::Validation(kInvalid +
                             "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
  }
  if (mode == BillingMode::kProvisioned && !req.provisioned_throughput) {
    return Error::Validation(kInvalid +
                             "ReadCapacityUnits and WriteCapacityUnits must both be specified "
                             "when BillingMode is PROVISIONED");
  }
  if (mode == BillingMode::kProvisioned && req.on_demand_throughput) {
    const bool read = req.on_demand_throughput->max_read_request_units != kOnDemandNotGiven;
    return Error::Validation(std::string(read ? "MaxReadRequestUnits" : "MaxWriteRequestUnits") +
                             " for OnDemandThroughput cannot be specified when table BillingMode "
                             "is PROVISIONED.");
  }
  return Status::Ok();
}

// The attributes the table's and indexes' schemas use, each once, in order of first use.
struct UsedAttributes {
  std::vector<std::string> names;
  void Add(const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  void Add(const std::vector<KeySchemaElement>& ks) {
    for (const auto& k : ks) Add(k.attribute_name);
  }
};

// What every secondary index checks against the indexes before it.
struct IndexChecks {
  explicit IndexChecks(const std::vector<std::string>& names) : definition_names(names) {}
  const std::vector<std::string>& definition_names;  // AttributeDefinitions, in order
  std::set<std::string> index_names;                 // of the indexes checked so far
  size_t projected = 0;                              // their NonKeyAttributes
  UsedAttributes used;
};

// LocalSecondaryIndexes: a table with a range key, at most 5, each with the table's hash key
// and a range key of its own, no throughput.
Status CheckLocalIndexes(const CreateTableRequest& req, IndexChecks* checks) {
  const std::string& hash = req.key_schema[0].attribute_name;
  if (!req.local_secondary_indexes.empty()) {
    if (req.key_schema.size() < 2) {
      return Error::Validation(kInvalid +
                               "Table KeySchema does not have a range key, which is required "
                               "when specifying a LocalSecondaryIndex");
    }
    if (req.local_secondary_indexes.size() > kMaxLocalIndexes) {
      return Error::Validation(kInvalid +
                               "Number of LocalSecondaryIndexes exceeds per-table limit of 5");
    }
  }
  for (const auto& idx : req.local_secondary_indexes) {
    if (!checks->index_names.insert(idx.index_name).second) {
      return Error::Validation(kInvalid + "Duplicate index name: " + idx.index_name);
    }
    DDB_RETURN_IF_ERROR(CheckKeySchema(idx.key_schema));
    DDB_RETURN_IF_ERROR(CheckKeysDefined(idx.key_schema, checks->definition_names));
    if (idx.key_schema.size() != 2) {
      return Error::Validation(
          kInvalid + "Index KeySchema does not have a range key for index: " + idx.index_name);
    }
    if (idx.key_schema[0].attribute_name != hash) {
      return Error::Validation(kInvalid +
                               "Index KeySchema does not have the same leading hash key as "
                               "table KeySchema for index: " +
                               idx.index_name + ". index hash key: " +
                               idx.key_schema[0].attribute_name + ", table hash key: " + hash);
    }
    DDB_RETURN_IF_ERROR(CheckProjection(idx, &checks->projected, /*local=*/true));
    if (idx.provisioned_throughput) {
      return Error::Validation(kInvalid +
                               "ProvisionedThroughput should not be specified for a "
                               "LocalSecondaryIndex: " +
                               idx.index_name);
    }
    checks->used.Add(idx.key_schema);
  }
  return Status::Ok();
}

// GlobalSecondaryIndexes: at most 20, each with a key schema (the classic one- or
// two-attribute shape keeps its classic messages), a projection and throughput that fit the
// billing mode.
Status CheckGlobalIndexes(const CreateTableRequest& req, BillingMode mode, IndexChecks* checks) {
  if (req.global_secondary_indexes.size() > kMaxGlobalIndexes) {
    return Error::Validation(kInvalid +
                             "GlobalSecondaryIndex count exceeds the per-table limit of 20");
  }
  for (const auto& idx : req.global_secondary_indexes) {
    if (!checks->index_names.insert(idx.index_name).second) {
      return Error::Validation(kInvalid + "Duplicate index name: " + idx.index_name);
    }
    bool classic = !idx.key_schema.empty() &&
                   (idx.key_schema[0].key_type == KeyType::kRange || idx.key_schema.size() == 1 ||
                    (idx.key_schema.size() == 2 && idx.key_schema[1].key_type == KeyType::kRange));
    DDB_RETURN_IF_ERROR(classic ? CheckKeySchema(idx.key_schema)
                                : CheckGlobalKeySchema(idx.key_schema));
    DDB_RETURN_IF_ERROR(CheckKeysDefined(idx.key_schema, checks->definition_names));
    DDB_RETURN_IF_ERROR(CheckProjection(idx, &checks->projected));
    DDB_RETURN_IF_ERROR(CheckIndexThroughput(mode, idx));
    checks->used.Add(idx.key_schema);
  }
  if (checks->projected > kMaxProjectedAttributes) {
    return Error::Validation(kInvalid +
                             "The sum of the number of NonKeyAttributes across all secondary "
                             "indexes exceeds the limit of 100");
  }
  return Status::Ok();
}

// Every attribute definition is used by a key or search schema.
Status CheckDefinitionsUsed(const CreateTableRequest& req, size_t defined,
                            const IndexChecks& checks) {
  if (checks.used.names.size() == defined) return Status::Ok();
  if (req.local_secondary_indexes.empty() && req.global_secondary_indexes.empty() &&
      req.vector_indexes.empty()) {
    return Error::Validation(kInvalid +
                             "Number of attributes in KeySchema does not exactly match number "
                             "of attributes defined in AttributeDefinitions");
  }
  return Error::Validation(kInvalid + "Some AttributeDefinitions are not used. " +
                           "AttributeDefinitions: " + JoinNames(checks.definition_names) +
                           ", keys used: " + JoinNames(checks.used.names));
}

}  // namespace

Status ValidateCreateTable(const CreateTableRequest& req) {
  DDB_RETURN_IF_ERROR(CheckCreateNames(req));
  const BillingMode mode = req.billing_mode.value_or(BillingMode::kProvisioned);
  DDB_RETURN_IF_ERROR(CheckBillingMode(req, mode));
  // The table's units out of bounds answer before the key schema (dynalite's order, recorded
  // against the service); the quotas are checked later.
  if (req.provisioned_throughput) {
    DDB_RETURN_IF_ERROR(CheckThroughputBounds(*req.provisioned_throughput));
  }
  // Attribute definitions: unique names.
  std::set<std::string> defined;
  std::vector<std::string> definition_names;
  for (const auto& a : req.attribute_definitions) {
    if (!defined.insert(a.attribute_name).second) {
      return Error::Validation("Attribute Name is duplicated: " + a.attribute_name);
    }
  }
  for (const auto& a : req.attribute_definitions) definition_names.push_back(a.attribute_name);
  // More key attributes than definitions: the service's first check of the two lists, before
  // it names the missing ones (dynalite's order, recorded against the service).
  if (req.key_schema.size() > req.attribute_definitions.size()) {
    return Error::Validation("Invalid KeySchema: Some index key attribute have no definition");
  }
  DDB_RETURN_IF_ERROR(CheckKeySchema(req.key_schema));
  // Every key attribute (table and indexes) must be defined; every definition used.
  IndexChecks checks(definition_names);
  checks.used.Add(req.key_schema);
  DDB_RETURN_IF_ERROR(CheckKeysDefined(req.key_schema, definition_names));
  DDB_RETURN_IF_ERROR(CheckLocalIndexes(req, &checks));
  DDB_RETURN_IF_ERROR(CheckGlobalIndexes(req, mode, &checks));
  DDB_RETURN_IF_ERROR(CheckVectorIndexes(req, mode, definition_names, &checks.index_names));
  for (const auto& idx : req.vector_indexes) {
    for (const auto& e : idx.search_schema) checks.used.Add(e.attribute_name);
  }
  return CheckDefinitionsUsed(req, defined.size(), checks);
}

}  // namespace ddb
