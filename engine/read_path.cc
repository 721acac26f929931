// Query and Scan: one RocksDB iterator over one key range per page.
//
// Paging follows the service: `Limit` bounds the items *read* (before the filter), a page
// also stops once 1 MB of item data has been read, and LastEvaluatedKey is returned
// whenever a page stopped early (even if, by chance, nothing follows).
#include <algorithm>

#include "engine/engine_impl.h"
#include "engine/expression/expression.h"
#include "engine/index_key.h"
#include "engine/item_validation.h"
#include "engine/storage/coding.h"

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

// Where a Query or Scan reads: the table itself, or one of its secondary indexes.
struct ReadTarget {
  const TableInfo* table = nullptr;
  const IndexSchema* index = nullptr;  // null: the table

  Cf cf() const { return index ? Cf::kIndexes : Cf::kItems; }
  uint32_t prefix_id() const { return index ? index->index_id : table->id; }
  // The key attributes of the table or index, in key-schema order.
  KeyAttributes hash_attrs() const {
    if (index) return index->hash_attrs;
    const std::string& h = table->description.hash_key();
    return {{h, ToAttributeType(table->description.AttributeTypeOf(h))}};
  }
  KeyAttributes range_attrs() const {
    if (index) return index->range_attrs;
    const std::string* r = table->description.range_key();
    if (!r) return {};
    return {{*r, ToAttributeType(table->description.AttributeTypeOf(*r))}};
  }
  // The key attributes of an item read here (LastEvaluatedKey): the table's key, plus the
  // index's key for an index.
  std::vector<std::string> key_names() const {
    std::vector<std::string> names;
    for (const auto& k : table->description.key_schema) names.push_back(k.attribute_name);
    if (index) {
      for (const auto* attrs : {&index->hash_attrs, &index->range_attrs}) {
        for (const auto& a : *attrs) {
          if (std::find(names.begin(), names.end(), a.first) == names.end()) {
            names.push_back(a.first);
          }
        }
      }
    }
    return names;
  }
  std::string PartitionPrefix(const KeyCondition& kc) const {
    if (!index) return EncodeItemKey(table->id, table->key_format, kc.hash_value, nullptr);
    std::vector<const AttributeValue*> values;
    for (const auto& v : kc.hash_values) values.push_back(&v);
    std::string prefix = IndexPartitionPrefix(*index, values);
    for (const auto& v : kc.sort_prefix) AppendIndexKeyComponent(&prefix, v);
    return prefix;
  }
  // partition + the encoding of a sort-key value.
  std::string SortKey(const std::string& partition, const AttributeValue& v) const {
    std::string k = partition;
    if (index) {
      AppendIndexKeyComponent(&k, v);
    } else {
      AppendSortKey(&k, v);
    }
    return k;
  }
  // The first key after every key whose sort key equals the one "sort_key" ends with.
  std::string AfterEqual(std::string sort_key) const {
    return index ? PrefixSuccessor(std::move(sort_key)) : KeySuccessor(std::move(sort_key));
  }
  std::string BeginsWithPrefix(const std::string& partition, const AttributeValue& v) const {
    std::string k = partition;
    if (index) {
      AppendIndexKeyPrefix(&k, v);
    } else {
      k.append(v.scalar());
    }
    return k;
  }
  // The key of the entry an ExclusiveStartKey names. Errors: kValidation.
  Result<std::string> StartKey(const Item& esk) const {
    // The service's 2026 answer names no reason (nubo-db/dynamodb-conformance records it).
    const Error invalid = Error::Validation("The provided starting key is invalid");
    Status table_key = ValidateKey(table->description, KeyOnly(esk, table->description));
    if (!table_key.ok()) return invalid;
    if (!index) {
      if (esk.size() != table->description.key_schema.size()) return invalid;
      const TableDescription& d = table->description;
      const std::string* r = d.range_key();
      return EncodeItemKey(table->id, table->key_format, esk.at(d.hash_key()),
                           r ? &esk.at(*r) : nullptr);
    }
    if (esk.size() != key_names().size()) return invalid;
    std::optional<IndexEntryData> entry = IndexEntry(*index, esk);
    if (!entry) return invalid;
    return entry->key;
  }
  static Item KeyOnly(const Item& item, const TableDescription& d) {
    Item key;
    for (const auto& k : d.key_schema) {
      auto it = item.find(k.attribute_name);
      if (it != item.end()) key.insert(*it);
    }
    return key;
  }
};

// The parts of a Query/Scan request that do not depend on the key range: filter,
// projection, select, and the placeholders they use.
struct ReadPlan {
  ConditionPtr filter;
  std::optional<Projection> projection;
  bool count_only = false;
};

// Select against the projection and the index.
Status CheckSelect(const ReadRequestBase& req) {
  auto refuse = [](std::string message) { return Error::Validation(std::move(message)); };
  bool has_projection = req.projection_expression || !req.attributes_to_get.empty();
  std::string_view projection_member =
      req.projection_expression ? "ProjectionExpression" : "AttributesToGet";
  if (req.select) {
    switch (*req.select) {
      case Select::kAllAttributes:
        if (has_projection) {
          return refuse("Cannot specify the " + std::string(projection_member) +
                        " when choosing to get ALL_ATTRIBUTES");
        }
        break;
      case Select::kAllProjectedAttributes:
        if (!req.index_name) {
          return refuse(
              "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
        }
        if (has_projection) {
          return refuse("Cannot specify the " + std::string(projection_member) +
                        " when choosing to get ALL_PROJECTED_ATTRIBUTES");
        }
        break;
      case Select::kSpecificAttributes:
        if (!has_projection) {
          return refuse(
              "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
              "SPECIFIC_ATTRIBUTES");
        }
        break;
      case Select::kCount:
        if (has_projection) {
          return refuse("Cannot specify the " + std::string(projection_member) +
                        " when choosing to get only the Count");
        }
        break;
    }
  }
  return Status::Ok();
}

Result<ReadPlan> PlanRead(const ReadRequestBase& req, Placeholders* placeholders) {
  ReadPlan plan;
  if (req.projection_expression && !req.attributes_to_get.empty()) {
    return CompileReadProjection(req.projection_expression, req.attributes_to_get, nullptr).error();
  }
  DDB_RETURN_IF_ERROR(CheckSelect(req));
  plan.count_only = req.select == Select::kCount;
  if (req.filter_expression) {
    DDB_ASSIGN_OR_RETURN(plan.filter, CompileCondition(*req.filter_expression, "FilterExpression",
                                                       placeholders, req.legacy_filter));
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

// The table or index a request names, and the index rules of the service.
Result<ReadTarget> ResolveTarget(const TableInfo& table, const ReadRequestBase& req,
                                 const ReadPlan& plan) {
  ReadTarget target;
  target.table = &table;
  if (!req.index_name) return target;
  target.index = table.FindIndex(*req.index_name);
  if (!target.index) {
    if (req.exclusive_start_key) return Error::Validation("The provided starting key is invalid");
    return Error::Validation("The table does not have the specified index: " + *req.index_name);
  }
  if (target.index->backfilling) {
    return Error::Validation("Cannot read from backfilling global secondary index: " +
                             target.index->name);
  }
  if (target.index->global && req.consistent_read) {
    return Error::Validation("Consistent reads are not supported on global secondary indexes");
  }
  if (target.index->global && req.select == Select::kAllAttributes &&
      target.index->projection != ProjectionType::kAll) {
    return Error::Validation(
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
        "for global secondary index " +
        target.index->name + " because its projection type is not ALL");
  }
  // An LSI reads the table's item for what it does not project, but a filter may only use
  // what it projects (the service filters before fetching).
  const IndexSchema& index = *target.index;
  if (!index.global && plan.filter && !req.filter_index_entries) {
    std::string missing;
    for (const std::string& name : ConditionAttributeNames(*plan.filter)) {
      if (!IndexProjects(index, name)) missing += (missing.empty() ? "" : ", ") + name;
    }
    if (!missing.empty()) {
      // The service's words (its PartiQL answer, recorded in 2026).
      return Error::Validation("One or more parameter values were invalid: Secondary index " +
                               index.name + " does not project one or more filter attributes: [" +
                               missing + "]");
    }
  }
  return target;
}

// The token in a table or index key (both start table/index id | token).
uint64_t TokenOf(std::string_view key) {
  uint64_t token = 0;
  key.remove_prefix(std::min<size_t>(4, key.size()));
  GetFixedBE(&key, 8, &token);
  return token;
}

// One page of a Query or Scan as it is read: takes the stored values of the range in order
// until the page is full (Limit items read, or 1 MB), filters and projects them, and knows
// where the page stopped.
class PageReader {
 public:
  PageReader(EngineImpl& impl, const ReadTarget& target, const ReadRequestBase& req,
             const ReadPlan& plan)
      : impl_(impl), target_(target), req_(req), plan_(plan) {
    // An LSI answers for attributes it does not project by fetching the table's item, as
    // the service does; a GSI returns what it has. (Filters use projected attributes only,
    // and are evaluated on the entry.)
    fetch_base_ = target.index && !target.index->global &&
                  target.index->projection != ProjectionType::kAll &&
                  (req.select == Select::kAllAttributes ||
                   (plan.projection && NamesUnprojected(*target.index, *plan.projection)));
    // Items returned whole stay in stored form when the caller accepts that.
    keep_encoded_ = req.accept_encoded_items && !fetch_base_ && !plan.filter && !plan.projection &&
                    !plan.count_only;
  }

  // One stored value; false stops the read (the page is full, or status() failed).
  bool Add(std::string_view value) {
    if (Full()) {
      stopped_early_ = true;
      return false;
    }
    return keep_encoded_ ? AddEncoded(value) : AddDecoded(value);
  }

  const Status& status() const { return status_; }
  size_t bytes() const { return bytes_; }
  // The read units of the table items an LSI read fetched (each a read of its own).
  double fetched_units() const { return fetched_units_; }

  // The page, with LastEvaluatedKey when it was cut by its Limit or size. A page that
  // filled either exactly on its last item still reports where it stopped, as the service
  // does.
  Result<ReadResult> Finish() {
    DDB_RETURN_IF_ERROR(status_);
    if (!stopped_early_ && !Full()) return std::move(result_);
    if (!result_.encoded_ends.empty()) {
      const size_t n = result_.encoded_ends.size();
      const size_t begin = n > 1 ? result_.encoded_ends[n - 2] : 0;
      Item item;
      if (!DecodeItem(std::string_view(result_.encoded_items).substr(begin), &item)) {
        return Error::Internal("unreadable item");
      }
      last_read_ = std::move(item);
    }
    const Item* last = last_in_items_ ? &result_.items.back() : last_read_ ? &*last_read_ : nullptr;
    if (last) {
      Item key;
      for (const auto& name : target_.key_names()) {
        auto it = last->find(name);
        if (it != last->end()) key.insert(*it);
      }
      result_.last_evaluated_key = std::move(key);
    }
    return std::move(result_);
  }

 private:
  bool Full() const {
    return (req_.limit && result_.scanned_count >= *req_.limit) || bytes_ >= kMaxPageBytes;
  }

  bool Fail(Status s) {
    status_ = std::move(s);
    return false;
  }

  bool AddEncoded(std::string_view value) {
    std::optional<size_t> size = EncodedItemSize(value);
    if (!size) return Fail(Error::Internal("unreadable item"));
    ++result_.scanned_count;
    ++result_.count;
    bytes_ += *size;
    result_.encoded_items.append(value);
    result_.encoded_ends.push_back(result_.encoded_items.size());
    return true;
  }

  bool AddDecoded(std::string_view value) {
    Item item;
    if (!DecodeItem(value, &item)) return Fail(Error::Internal("unreadable item"));
    ++result_.scanned_count;
    bytes_ += ItemSize(item);
    const bool keep = !plan_.filter || EvaluateCondition(*plan_.filter, &item);
    if (fetch_base_) {  // every entry read is fetched, kept or not (the service charges so)
      Result<std::optional<Item>> base = impl_.ReadItem(impl_.ItemKeyOf(*target_.table, item));
      if (!base.ok()) return Fail(base.error());
      if (base.value()) {
        item = std::move(*base.value());
        fetched_units_ += ReadUnits(ItemSize(item), req_.consistent_read);
      }
    }
    if (keep) ++result_.count;
    // The item itself moves into the page when it is returned whole; otherwise it is kept
    // aside only because it may be the last one read (LastEvaluatedKey).
    if (keep && !plan_.count_only && !plan_.projection) {
      result_.items.push_back(std::move(item));
      last_in_items_ = true;
      return true;
    }
    if (keep && !plan_.count_only)
      result_.items.push_back(ApplyProjection(*plan_.projection, item));
    last_read_ = std::move(item);
    last_in_items_ = false;
    return true;
  }

  EngineImpl& impl_;
  const ReadTarget& target_;
  const ReadRequestBase& req_;
  const ReadPlan& plan_;
  static bool NamesUnprojected(const IndexSchema& index, const Projection& projection) {
    return std::any_of(projection.paths.begin(), projection.paths.end(),
                       [&](const DocumentPath& p) { return !IndexProjects(index, p[0].name); });
  }

  bool fetch_base_ = false;
  double fetched_units_ = 0;
  bool keep_encoded_ = false;
  ReadResult result_;
  size_t bytes_ = 0;
  bool stopped_early_ = false;
  std::optional<Item> last_read_;  // the last item read, unless it is result_.items.back()
  bool last_in_items_ = false;
  Status status_;
};

// A page costs the 4 KB units of everything it read, filtered or not, and an LSI page the
// table items it fetched on the table's arm.
void ChargePage(EngineImpl& impl, const ReadTarget& target, const ReadRequestBase& req,
                uint64_t token, const std::string& partition_key, size_t bytes,
                double fetched_units, ReadResult* page) {
  double units = ReadUnits(bytes, req.consistent_read);
  impl.ChargeRead(*target.table, target.index, token, partition_key, units + fetched_units);
  if (req.return_consumed_capacity == ReturnConsumedCapacity::kNone) return;
  page->consumed_capacity = ConsumedCapacity{req.table_name};
  if (target.index) {
    page->consumed_capacity->AddIndex(target.index->name, target.index->global, units, false);
    if (fetched_units > 0) page->consumed_capacity->AddTable(fetched_units, false);
  } else {
    page->consumed_capacity->AddTable(units, false);
  }
}

// Reads [lower, upper) of the target (reversed when !forward) into one page.
Result<ReadResult> ReadRange(EngineImpl& impl, const ReadTarget& target, const ReadRequestBase& req,
                             const ReadPlan& plan, const std::string& lower,
                             const std::string& upper, bool forward,
                             const std::string& partition_key) {
  const uint64_t token = TokenOf(lower);
  DDB_RETURN_IF_ERROR(impl.AdmitRead(*target.table, target.index, token));
  PageReader reader(impl, target, req, plan);
  DDB_RETURN_IF_ERROR(impl.storage->ForEach(
      target.cf(), lower, upper,
      [&](std::string_view, std::string_view value) { return reader.Add(value); }, !forward));
  DDB_ASSIGN_OR_RETURN(ReadResult page, reader.Finish());
  ChargePage(impl, target, req, token, partition_key, reader.bytes(), reader.fetched_units(),
             &page);
  return page;
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

namespace {

// Query's steps, after the expressions are compiled.

// The service refuses filters on the key attributes being queried.
Status CheckFilterSparesKeys(const ReadPlan& plan, const KeyAttributes& hash_attrs,
                             const KeyAttributes& range_attrs) {
  if (!plan.filter) return Status::Ok();
  for (const KeyAttributes* attrs : {&hash_attrs, &range_attrs}) {
    for (const auto& [name, type] : *attrs) {
      if (ConditionReferences(*plan.filter, name)) {
        return Error::Validation(
            "Filter Expression can only contain non-primary key attributes: Primary key "
            "attribute: " +
            name);
      }
    }
  }
  return Status::Ok();
}

// The partition key's values: an empty string or binary can never be a partition key, and
// the service says so rather than returning nothing (the index form of the message names
// the index and attribute); and the key's size limit.
Status CheckPartitionKeyValues(const ReadTarget& target, const KeyCondition& kc,
                               const KeyAttributes& hash_attrs) {
  for (size_t i = 0; i < kc.hash_values.size() && i < hash_attrs.size(); ++i) {
    const AttributeValue& v = kc.hash_values[i];
    if (v.type() == AttributeType::kN || !v.scalar().empty()) continue;
    const std::string kind = v.type() == AttributeType::kS ? "string" : "binary";
    if (target.index) {
      return Error::Validation(
          "One or more parameter values are not valid. A value specified for a secondary index "
          "key is not supported. The AttributeValue for a key attribute cannot contain an empty " +
          kind + " value. IndexName: " + target.index->name + ", IndexKey: " + hash_attrs[i].first);
    }
    return Error::Validation(
        "One or more parameter values are not valid. The AttributeValue for a key attribute "
        "cannot contain an empty " +
        kind + " value. Key: " + hash_attrs[i].first);
  }
  if (kc.hash_value.scalar().size() > kMaxPartitionKeySize) {
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
        "size limit of2048 bytes");
  }
  return Status::Ok();
}

// A range of stored keys: [lower, upper).
struct KeyRange {
  std::string lower;
  std::string upper;
};

// The partition's key range, narrowed by the sort-key condition.
KeyRange SortKeyRange(const ReadTarget& target, const KeyCondition& kc,
                      const std::string& partition) {
  KeyRange r{partition, PrefixSuccessor(partition)};
  if (!kc.sort_op) return r;
  std::string at = target.SortKey(partition, kc.sort_value);
  switch (*kc.sort_op) {
    case KeyCondition::Op::kEq:
      r.lower = at;
      r.upper = target.AfterEqual(at);
      break;
    case KeyCondition::Op::kLt:
      r.upper = at;
      break;
    case KeyCondition::Op::kLe:
      r.upper = target.AfterEqual(at);
      break;
    case KeyCondition::Op::kGt:
      r.lower = target.AfterEqual(at);
      break;
    case KeyCondition::Op::kGe:
      r.lower = at;
      break;
    case KeyCondition::Op::kBetween:
      r.lower = at;
      r.upper = target.AfterEqual(target.SortKey(partition, kc.sort_value2));
      break;
    case KeyCondition::Op::kBeginsWith:
      r.lower = target.BeginsWithPrefix(partition, kc.sort_value);
      r.upper = PrefixSuccessor(r.lower);
      break;
  }
  return r;
}

// ExclusiveStartKey: the range continues after it (before it, reading backwards); it must
// lie in the partition and in the sort-key condition's range. Errors: kValidation.
Status ResumeAfterStartKey(const ReadTarget& target, const QueryRequest& req,
                           const KeyCondition& kc, const std::string& partition, KeyRange* r) {
  if (!req.exclusive_start_key) return Status::Ok();
  DDB_ASSIGN_OR_RETURN(std::string start, target.StartKey(*req.exclusive_start_key));
  if (kc.sort_op == KeyCondition::Op::kEq && !target.index) {
    return Error::Validation("The query can return at most one row and cannot be restarted");
  }
  if (start.compare(0, partition.size(), partition) != 0) {
    return Error::Validation(
        "The provided starting key is outside query boundaries based on provided conditions");
  }
  if (start < r->lower || start >= r->upper) {
    return Error::Validation("The provided starting key does not match the range key predicate");
  }
  if (req.scan_index_forward) {
    r->lower = KeySuccessor(start);
  } else {
    r->upper = start;
  }
  return Status::Ok();
}

}  // namespace

Result<QueryResult> Engine::Query(const QueryRequest& req) {
  Placeholders placeholders;
  placeholders.names = req.expression_attribute_names ? &*req.expression_attribute_names : nullptr;
  placeholders.values =
      req.expression_attribute_values ? &*req.expression_attribute_values : nullptr;
  // The request's own checks come before the table is looked up, as in the service (dynalite's
  // suite, recorded against it, asks them of a table that does not exist).
  DDB_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(req, &placeholders));
  auto found = impl_->FindTable(req.table_name);
  if (!found.ok()) {
    // The key condition's own checks, made here only on this path: a Query of a table that
    // exists parses its key condition once, below.
    DDB_RETURN_IF_ERROR(CheckKeyConditionForm(req.key_condition_expression, &placeholders));
    DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
    return found.error();
  }
  const auto& table = *found;
  DDB_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, req, plan));

  KeyAttributes hash_attrs = target.hash_attrs();
  KeyAttributes range_attrs = target.range_attrs();
  DDB_ASSIGN_OR_RETURN(
      KeyCondition kc,
      CompileKeyCondition(req.key_condition_expression, hash_attrs, range_attrs, &placeholders));
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  DDB_RETURN_IF_ERROR(CheckFilterSparesKeys(plan, hash_attrs, range_attrs));
  DDB_RETURN_IF_ERROR(CheckPartitionKeyValues(target, kc, hash_attrs));
  const std::string partition = target.PartitionPrefix(kc);
  KeyRange range = SortKeyRange(target, kc, partition);
  DDB_RETURN_IF_ERROR(ResumeAfterStartKey(target, req, kc, partition, &range));
  if (range.lower >= range.upper)
    range.lower = range.upper;  // nothing to read; still a (costed) page
  return ReadRange(*impl_, target, req, plan, range.lower, range.upper, req.scan_index_forward,
                   kc.hash_value.scalar());
}

Result<ScanResult> Engine::Scan(const ScanRequest& req) {
  // The request's own checks come first, then the table (as Query).
  if (req.segment.has_value() != req.total_segments.has_value()) {
    return Error::Validation(
        req.segment ? "The TotalSegments parameter is required but was not present in the "
                      "request when Segment parameter is present"
                    : "The Segment parameter is required but was not present in the request "
                      "when parameter TotalSegments is present");
  }
  if (req.segment && *req.segment >= *req.total_segments) {
    // As the service answers in 2026 (it used to append "Segment: S is not less than ...").
    return Error::Validation(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments");
  }
  DDB_RETURN_IF_ERROR(CheckPlaceholdersNeedExpressions(
      req.expression_attribute_names.has_value(), req.expression_attribute_values.has_value(),
      req.filter_expression || req.projection_expression, req.filter_expression.has_value(),
      "FilterExpression"));
  Placeholders placeholders;
  placeholders.names = req.expression_attribute_names ? &*req.expression_attribute_names : nullptr;
  placeholders.values =
      req.expression_attribute_values ? &*req.expression_attribute_values : nullptr;
  DDB_ASSIGN_OR_RETURN(ReadPlan plan, PlanRead(req, &placeholders));
  DDB_RETURN_IF_ERROR(CheckAllPlaceholdersUsed(placeholders));
  DDB_ASSIGN_OR_RETURN(auto table, impl_->FindTable(req.table_name));
  DDB_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, req, plan));

  // Segment i of n owns the tokens from its bound to the next one: disjoint, and together
  // the whole hash space. In key format 2, for n up to 4096, the service's bounds (the record
  // docs/exactness.md cites): ceil(4096 i / n) in the token's top 12 bits; otherwise
  // i * 2^64 / n.
  std::string lower = TablePrefix(target.prefix_id());
  std::string upper = TablePrefixEnd(target.prefix_id());
  if (req.segment) {
    const int64_t n = *req.total_segments;
    const bool service = target.table->key_format >= kKeyFormatServiceOrder && n <= 4096;
    auto bound = [&](int64_t i) {
      unsigned __int128 t =
          service ? static_cast<unsigned __int128>((4096 * i + n - 1) / n) << 52
                  : (static_cast<unsigned __int128>(i) << 64) / static_cast<unsigned __int128>(n);
      std::string k = TablePrefix(target.prefix_id());
      for (int shift = 56; shift >= 0; shift -= 8) {
        k.push_back(static_cast<char>(static_cast<uint64_t>(t) >> shift));
      }
      return k;
    };
    lower = bound(*req.segment);
    if (*req.segment + 1 < *req.total_segments) upper = bound(*req.segment + 1);
  }
  if (req.exclusive_start_key) {
    DDB_ASSIGN_OR_RETURN(std::string start, target.StartKey(*req.exclusive_start_key));
    if (start >= upper || start < lower) {
      return Error::Validation(
          "The provided starting key is invalid: Exclusive start key is outside the segment");
    }
    lower = KeySuccessor(start);
  }
  return ReadRange(*impl_, target, req, plan, lower, upper, true, "");
}

}  // namespace ddb
