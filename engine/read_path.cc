// Query and Scan: one RocksDB iterator over one key range per page.
//
// Paging follows the service: `Limit` bounds the items *read* (before the filter), a page
// also stops once 1 MB of item data has been read, and LastEvaluatedKey is returned
// whenever a page stopped early (even if, by chance, nothing follows).
#include <algorithm>

#include "engine/engine_impl.h"
#include "engine/expression.h"
#include "engine/item_validation.h"

namespace ddb {
namespace {

constexpr size_t kMaxPageBytes = 1024 * 1024;

// The smallest key greater than every key that starts with "prefix".
std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  return prefix;
}

// The smallest key greater than "key" itself.
std::string KeySuccessor(std::string key) {
  key.push_back('\0');
  return key;
}

AttributeType ToAttributeType(ScalarType t) {
  return t == ScalarType::kS   ? AttributeType::kS
         : t == ScalarType::kN ? AttributeType::kN
                               : AttributeType::kB;
}

Item KeyOf(const TableDescription& d, const Item& item) {
  Item key;
  for (const auto& k : d.key_schema) key.emplace(k.attribute_name, item.at(k.attribute_name));
  return key;
}

// The parts of a Query/Scan request that do not depend on the key range: filter,
// projection, select, and the placeholders they use.
struct ReadPlan {
  ConditionPtr filter;
  std::optional<Projection> projection;
  bool count_only = false;
};

Result<ReadPlan> PlanRead(const ReadRequestBase& req, Placeholders* placeholders) {
  ReadPlan plan;
  if (req.projection_expression && !req.attributes_to_get.empty()) {
    return CompileReadProjection(req.projection_expression, req.attributes_to_get, nullptr).error();
  }
  bool has_projection = req.projection_expression || !req.attributes_to_get.empty();
  std::string_view projection_member =
      req.projection_expression ? "ProjectionExpression" : "AttributesToGet";
  if (req.select) {
    switch (*req.select) {
      case Select::kAllAttributes:
        if (has_projection) {
          return Error::Validation("Cannot specify the " + std::string(projection_member) +
                                   " when choosing to get ALL_ATTRIBUTES");
        }
        break;
      case Select::kAllProjectedAttributes:
        if (!req.index_name) {
          return Error::Validation(
              "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
        }
        if (has_projection) {
          return Error::Validation("Cannot specify the " + std::string(projection_member) +
                                   " when choosing to get ALL_PROJECTED_ATTRIBUTES");
        }
        break;
      case Select::kSpecificAttributes:
        if (!has_projection) {
          return Error::Validation(
              "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
              "SPECIFIC_ATTRIBUTES");
        }
        break;
      case Select::kCount:
        if (has_projection) {
          return Error::Validation("Cannot specify the " + std::string(projection_member) +
                                   " when choosing to get only the Count");
        }
        plan.count_only = true;
        break;
    }
  }
  if (req.filter_expression) {
    DDB_ASSIGN_OR_RETURN(
        plan.filter, CompileCondition(*req.filter_expression, "FilterExpression", placeholders));
  }
  if (req.projection_expression) {
    DDB_ASSIGN_OR_RETURN(Projection p, CompileProjection(*req.projection_expression, placeholders));
    plan.projection = std::move(p);
  } else {
    DDB_ASSIGN_OR_RETURN(plan.projection,
                         CompileReadProjection(std::nullopt, req.attributes_to_get, nullptr));
  }
  return plan;
}

Status CheckStartKey(const TableDescription& d, const Item& key) {
  Status s = ValidateKey(d, key);
  if (!s.ok()) {
    return Error::Validation("The provided starting key is invalid: " + s.error().message());
  }
  return Status::Ok();
}

Status RefuseIndex(const TableDescription& d, const std::optional<std::string>& index_name) {
  if (!index_name) return Status::Ok();
  auto named = [&](const SecondaryIndexDefinition& i) { return i.index_name == *index_name; };
  if (std::none_of(d.local_secondary_indexes.begin(), d.local_secondary_indexes.end(), named) &&
      std::none_of(d.global_secondary_indexes.begin(), d.global_secondary_indexes.end(), named)) {
    return Error::Validation("The table does not have the specified index: " + *index_name);
  }
  // Index maintenance (LSI entries, the GSI applier) is a later step; until then reading
  // an index would silently return nothing, so it is refused.
  return Error::Validation("Reading secondary index " + *index_name +
                           " is not supported by this server yet");
}

// Reads [lower, upper) (reversed when !forward) into one page.
Result<ReadResult> ReadRange(Storage& storage, const TableDescription& d, const ReadPlan& plan,
                             std::optional<int64_t> limit, const std::string& lower,
                             const std::string& upper, bool forward) {
  ReadResult result;
  size_t bytes = 0;
  bool stopped_early = false;
  std::optional<Item> last_read;
  Status decode_status;
  DDB_RETURN_IF_ERROR(storage.ForEach(
      Cf::kItems, lower, upper,
      [&](std::string_view, std::string_view value) {
        if ((limit && result.scanned_count >= *limit) || bytes >= kMaxPageBytes) {
          stopped_early = true;
          return false;
        }
        Item item;
        if (!DecodeItem(value, &item)) {
          decode_status = Error::Internal("unreadable item");
          return false;
        }
        ++result.scanned_count;
        bytes += ItemSize(item);
        bool keep = !plan.filter || EvaluateCondition(*plan.filter, &item);
        if (keep) {
          ++result.count;
          if (!plan.count_only) {
            result.items.push_back(plan.projection ? ApplyProjection(*plan.projection, item)
                                                   : item);
          }
        }
        last_read = std::move(item);
        return true;
      },
      !forward));
  DDB_RETURN_IF_ERROR(decode_status);
  // A page that filled its Limit or 1 MB exactly on its last item still reports where it
  // stopped, as the service does.
  if (last_read &&
      (stopped_early || (limit && result.scanned_count >= *limit) || bytes >= kMaxPageBytes)) {
    result.last_evaluated_key = KeyOf(d, *last_read);
  }
  return result;
}

}  // namespace

Result<std::optional<Projection>> CompileReadProjection(
    const std::optional<std::string>& projection_expression,
    const std::vector<std::string>& attributes_to_get,
    const std::map<std::string, std::string>* names) {
  if (projection_expression && !attributes_to_get.empty()) {
    return Error::Validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{ProjectionExpression}");
  }
  if (names && !projection_expression) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (projection_expression) {
    Placeholders placeholders;
    placeholders.names = names;
    DDB_ASSIGN_OR_RETURN(Projection p, CompileProjection(*projection_expression, &placeholders));
    DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
    return std::optional<Projection>(std::move(p));
  }
  if (attributes_to_get.empty()) return std::optional<Projection>();
  Projection p;
  for (const auto& n : attributes_to_get) p.paths.push_back({PathElement{n, -1}});
  return std::optional<Projection>(std::move(p));
}

Result<QueryResult> Engine::Query(const QueryRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  const TableDescription& d = table->description;
  DDB_RETURN_IF_ERROR(RefuseIndex(d, req.index_name));
  Placeholders placeholders;
  placeholders.names =
      req.has_expression_attribute_names ? &req.expression_attribute_names : nullptr;
  placeholders.values =
      req.has_expression_attribute_values ? &req.expression_attribute_values : nullptr;

  const std::string* range = d.range_key();
  DDB_ASSIGN_OR_RETURN(
      KeyCondition kc,
      CompileKeyCondition(req.key_condition_expression, d.hash_key(),
                          ToAttributeType(d.AttributeTypeOf(d.hash_key())), range,
                          range ? ToAttributeType(d.AttributeTypeOf(*range)) : AttributeType::kS,
                          &placeholders));
  DDB_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(req, &placeholders));
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  if (plan.filter) {
    // The service refuses filters on key attributes in a Query.
    for (const auto& k : d.key_schema) {
      if (ConditionReferences(*plan.filter, k.attribute_name)) {
        return Error::Validation(
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: " +
            k.attribute_name);
      }
    }
  }
  if (kc.hash_value.scalar().size() > kMaxPartitionKeySize) {
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
        "size limit of2048 bytes");
  }

  // The partition's key range, narrowed by the sort-key condition.
  std::string partition = EncodeItemKey(table->id, kc.hash_value, nullptr);
  std::string lower = partition;
  std::string upper = PrefixSuccessor(partition);
  auto sk = [&](const AttributeValue& v) {
    std::string k = partition;
    AppendSortKey(&k, v);
    return k;
  };
  if (kc.sort_op) {
    switch (*kc.sort_op) {
      case KeyCondition::Op::kEq:
        lower = sk(kc.sort_value);
        upper = KeySuccessor(lower);
        break;
      case KeyCondition::Op::kLt:
        upper = sk(kc.sort_value);
        break;
      case KeyCondition::Op::kLe:
        upper = KeySuccessor(sk(kc.sort_value));
        break;
      case KeyCondition::Op::kGt:
        lower = KeySuccessor(sk(kc.sort_value));
        break;
      case KeyCondition::Op::kGe:
        lower = sk(kc.sort_value);
        break;
      case KeyCondition::Op::kBetween:
        lower = sk(kc.sort_value);
        upper = KeySuccessor(sk(kc.sort_value2));
        break;
      case KeyCondition::Op::kBeginsWith:
        lower = sk(kc.sort_value);
        upper =
            kc.sort_value.scalar().empty() ? PrefixSuccessor(partition) : PrefixSuccessor(lower);
        break;
    }
  }

  if (req.exclusive_start_key) {
    DDB_RETURN_IF_ERROR(CheckStartKey(d, *req.exclusive_start_key));
    if (kc.sort_op == KeyCondition::Op::kEq) {
      return Error::Validation("The query can return at most one row and cannot be restarted");
    }
    std::string start = impl_->ItemKeyOf(*table, *req.exclusive_start_key);
    if (start.compare(0, partition.size(), partition) != 0) {
      return Error::Validation(
          "The provided starting key is outside query boundaries based on provided conditions");
    }
    if (start < lower || start >= upper) {
      return Error::Validation("The provided starting key does not match the range key predicate");
    }
    if (req.scan_index_forward) {
      lower = KeySuccessor(start);
    } else {
      upper = start;
    }
  }
  if (lower >= upper) return QueryResult{};
  return ReadRange(*impl_->storage, d, plan, req.limit, lower, upper, req.scan_index_forward);
}

Result<ScanResult> Engine::Scan(const ScanRequest& req) {
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  const TableDescription& d = table->description;
  if (req.segment.has_value() != req.total_segments.has_value()) {
    return Error::Validation(
        req.segment ? "The TotalSegments parameter is required but was not present in the "
                      "request when Segment parameter is present"
                    : "The Segment parameter is required but was not present in the request "
                      "when parameter TotalSegments is present");
  }
  if (req.segment && *req.segment >= *req.total_segments) {
    return Error::Validation(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        "Segment: " +
        std::to_string(*req.segment) +
        " is not less than TotalSegments: " + std::to_string(*req.total_segments));
  }
  DDB_RETURN_IF_ERROR(RefuseIndex(d, req.index_name));
  DDB_RETURN_IF_ERROR(CheckPlaceholdersNeedExpressions(
      req.has_expression_attribute_names, req.has_expression_attribute_values,
      req.filter_expression || req.projection_expression, req.filter_expression.has_value(),
      "FilterExpression"));
  Placeholders placeholders;
  placeholders.names =
      req.has_expression_attribute_names ? &req.expression_attribute_names : nullptr;
  placeholders.values =
      req.has_expression_attribute_values ? &req.expression_attribute_values : nullptr;
  DDB_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(req, &placeholders));
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));

  // Segment i of n owns the tokens [i * 2^64 / n, (i + 1) * 2^64 / n): disjoint, and
  // together the whole hash space.
  std::string lower = TablePrefix(table->id);
  std::string upper = TablePrefixEnd(table->id);
  if (req.segment) {
    auto bound = [&](int64_t i) {
      unsigned __int128 t = (static_cast<unsigned __int128>(i) << 64) /
                            static_cast<unsigned __int128>(*req.total_segments);
      std::string k = TablePrefix(table->id);
      for (int shift = 56; shift >= 0; shift -= 8) {
        k.push_back(static_cast<char>(static_cast<uint64_t>(t) >> shift));
      }
      return k;
    };
    lower = bound(*req.segment);
    if (*req.segment + 1 < *req.total_segments) upper = bound(*req.segment + 1);
  }
  if (req.exclusive_start_key) {
    DDB_RETURN_IF_ERROR(CheckStartKey(d, *req.exclusive_start_key));
    std::string start = impl_->ItemKeyOf(*table, *req.exclusive_start_key);
    if (start >= upper || start < lower) {
      return Error::Validation(
          "The provided starting key is invalid: Exclusive start key is outside the segment");
    }
    lower = KeySuccessor(start);
  }
  return ReadRange(*impl_->storage, d, plan, req.limit, lower, upper, true);
}

}  // namespace ddb
