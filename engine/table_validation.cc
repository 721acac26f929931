#include "engine/table_validation.h"

#include <algorithm>
#include <set>

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

// A table's or a classic index's key schema: HASH first, optional RANGE second, distinct
// names. The service words a repeated name differently for the table and for an index.
Status CheckKeySchema(const std::vector<KeySchemaElement>& ks, bool table = false) {
  if (ks.empty() || ks.size() > 2) {
    return Error::Validation(kInvalid + "Invalid KeySchema: Too many key elements");
  }
  if (ks[0].key_type != KeyType::kHash) {
    return Error::Validation(
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
  }
  if (ks.size() == 2) {
    if (ks[1].key_type != KeyType::kRange) {
      return Error::Validation(
          "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
    }
    if (ks[0].attribute_name == ks[1].attribute_name) {
      // The table's answer (2026), though the attribute may well be defined.
      return Error::Validation(
          table ? "Invalid KeySchema: Some index key attribute have no definition"
                : "Both the Hash Key and the Range Key element in the KeySchema have the same "
                  "name");
    }
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
  }
  return Status::Ok();
}

Status ValidateCreateTable(const CreateTableRequest& req) {
  std::vector<std::string> violations;
  TableNameViolations(req.table_name, "tableName", &violations);
  // Global indexes before local ones, as the service lists them.
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

  // Billing mode and throughput.
  BillingMode mode = req.billing_mode.value_or(BillingMode::kProvisioned);
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

  // Attribute definitions: unique names.
  std::set<std::string> defined;
  for (const auto& a : req.attribute_definitions) {
    if (!defined.insert(a.attribute_name).second) {
      return Error::Validation("Attribute Name is duplicated: " + a.attribute_name);
    }
  }
  DDB_RETURN_IF_ERROR(CheckKeySchema(req.key_schema, /*table=*/true));

  // Every key attribute (table and indexes) must be defined; every definition used.
  std::vector<std::string> used;
  auto use = [&used](const std::vector<KeySchemaElement>& ks) {
    for (const auto& k : ks) {
      if (std::find(used.begin(), used.end(), k.attribute_name) == used.end()) {
        used.push_back(k.attribute_name);
      }
    }
  };
  use(req.key_schema);
  std::vector<std::string> definition_names;
  for (const auto& a : req.attribute_definitions) definition_names.push_back(a.attribute_name);

  auto check_defined = [&](const std::vector<KeySchemaElement>& ks) {
    return CheckKeysDefined(ks, definition_names);
  };
  DDB_RETURN_IF_ERROR(check_defined(req.key_schema));

  const std::string& hash = req.key_schema[0].attribute_name;
  std::set<std::string> index_names;
  size_t projected = 0;

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
    if (!index_names.insert(idx.index_name).second) {
      return Error::Validation(kInvalid + "Duplicate index name: " + idx.index_name);
    }
    DDB_RETURN_IF_ERROR(CheckKeySchema(idx.key_schema));
    DDB_RETURN_IF_ERROR(check_defined(idx.key_schema));
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
    DDB_RETURN_IF_ERROR(CheckProjection(idx, &projected, /*local=*/true));
    if (idx.provisioned_throughput) {
      return Error::Validation(kInvalid +
                               "ProvisionedThroughput should not be specified for a "
                               "LocalSecondaryIndex: " +
                               idx.index_name);
    }
    use(idx.key_schema);
  }

  if (req.global_secondary_indexes.size() > kMaxGlobalIndexes) {
    return Error::Validation(kInvalid +
                             "GlobalSecondaryIndex count exceeds the per-table limit of 20");
  }
  for (const auto& idx : req.global_secondary_indexes) {
    if (!index_names.insert(idx.index_name).second) {
      return Error::Validation(kInvalid + "Duplicate index name: " + idx.index_name);
    }
    // The classic one- or two-attribute shape keeps its classic messages.
    bool classic = !idx.key_schema.empty() &&
                   (idx.key_schema[0].key_type == KeyType::kRange || idx.key_schema.size() == 1 ||
                    (idx.key_schema.size() == 2 && idx.key_schema[1].key_type == KeyType::kRange));
    DDB_RETURN_IF_ERROR(classic ? CheckKeySchema(idx.key_schema)
                                : CheckGlobalKeySchema(idx.key_schema));
    DDB_RETURN_IF_ERROR(check_defined(idx.key_schema));
    DDB_RETURN_IF_ERROR(CheckProjection(idx, &projected));
    DDB_RETURN_IF_ERROR(CheckIndexThroughput(mode, idx));
    use(idx.key_schema);
  }
  if (projected > kMaxProjectedAttributes) {
    return Error::Validation(kInvalid +
                             "The sum of the number of NonKeyAttributes across all secondary "
                             "indexes exceeds the limit of 100");
  }

  if (used.size() != defined.size()) {
    if (req.local_secondary_indexes.empty() && req.global_secondary_indexes.empty()) {
      return Error::Validation(kInvalid +
                               "Number of attributes in KeySchema does not exactly match number "
                               "of attributes defined in AttributeDefinitions");
    }
    return Error::Validation(kInvalid + "Some AttributeDefinitions are not used. " +
                             "AttributeDefinitions: " + JoinNames(definition_names) +
                             ", keys used: " + JoinNames(used));
  }
  return Status::Ok();
}

}  // namespace ddb
