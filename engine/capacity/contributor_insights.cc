// UpdateContributorInsights, DescribeContributorInsights, ListContributorInsights, and the
// key tracker behind them (contributor_insights.h).
#include "engine/capacity/contributor_insights.h"

#include <algorithm>

#include "engine/engine_impl.h"
#include "engine/storage/coding.h"
#include "util/base64.h"
#include "util/hex.h"

namespace ddb {

void ContributorTracker::SetEnabled(uint32_t id, bool enabled, bool throttled_only) {
  std::lock_guard lock(mu_);
  if (enabled) {
    Resource& r = resources_[id];
    r = Resource{};
    r.throttled_only = throttled_only;
  } else {
    resources_.erase(id);
  }
  count_ = static_cast<int>(resources_.size());
}

void ContributorTracker::Add(std::unordered_map<std::string, double>* m, std::string key,
                             double v) {
  auto it = m->find(key);
  if (it != m->end()) {
    it->second += v;
    return;
  }
  if (m->size() >= kMaxTracked) {
    // Keep the larger half: a key that matters keeps accumulating, a one-off goes.
    std::vector<double> values;
    values.reserve(m->size());
    for (const auto& [k, x] : *m) values.push_back(x);
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end(),
                     std::greater<>());
    const double cut = values[values.size() / 2];
    std::erase_if(*m, [&](const auto& e) { return e.second <= cut; });
  }
  m->emplace(std::move(key), v);
}

void ContributorTracker::Record(uint32_t id, std::string_view pk, const std::string* sk,
                                double units, bool throttled) {
  if (count_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  auto it = resources_.find(id);
  if (it == resources_.end()) return;
  Resource& r = it->second;
  if (!throttled && r.throttled_only) return;
  const double v = throttled ? 1 : units;
  const int base = throttled ? kPartitionThrottled : kPartitionAccessed;
  Add(&r.counts[base], std::string(pk), v);
  if (sk) {
    std::string both;
    PutFixed16BE(&both, static_cast<uint16_t>(pk.size()));
    both.append(pk);
    both.append(*sk);
    Add(&r.counts[base + 1], std::move(both), v);
  }
}

std::vector<ContributorTracker::Entry> ContributorTracker::Top(uint32_t id, Ranking ranking,
                                                               size_t n) const {
  std::vector<Entry> out;
  std::lock_guard lock(mu_);
  auto it = resources_.find(id);
  if (it == resources_.end()) return out;
  const bool with_sort = ranking == kSortAccessed || ranking == kSortThrottled;
  for (const auto& [key, v] : it->second.counts[ranking]) {
    Entry e;
    e.value = v;
    if (with_sort) {
      std::string_view in = key;
      uint64_t len = 0;
      GetFixedBE(&in, 2, &len);
      e.pk = std::string(in.substr(0, len));
      e.sk = std::string(in.substr(len));
    } else {
      e.pk = key;
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return a.value != b.value ? a.value > b.value : a.pk < b.pk;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

namespace {

// A key attribute's stored bytes as CloudWatch shows them: S and N as text, B as base64.
std::string KeyText(const std::string& bytes, ScalarType type) {
  if (type != ScalarType::kB) return bytes;
  return util::Base64(bytes);
}

Error TableNotFoundNamed(const std::string& name) {
  return Error::NotFound("Requested resource not found: Table: " + name + " not found");
}

// The key schema of the table or of GSI `index`.
std::pair<std::string, const std::string*> KeyNames(const TableInfo& table,
                                                    const IndexSchema* index,
                                                    std::string* range_buf) {
  if (!index) return {table.description.hash_key(), table.description.range_key()};
  const SecondaryIndexDefinition* def = nullptr;
  for (const auto& d : table.description.global_secondary_indexes) {
    if (d.index_name == index->name) def = &d;
  }
  std::string hash;
  const std::string* range = nullptr;
  if (def) {
    for (const auto& k : def->key_schema) {
      if (k.key_type == KeyType::kHash && hash.empty()) hash = k.attribute_name;
      if (k.key_type == KeyType::kRange && !range) {
        *range_buf = k.attribute_name;
        range = range_buf;
      }
    }
  }
  return {hash, range};
}

// CloudWatch rule names as the service creates them ("DynamoDBContributorInsights-PKC-<table>-
// <epoch ms>"; the SKC/PKT/SKT variants for sort keys and throttles). The pattern is the
// service's as documented for the console; the exact suffix is a guess.
std::vector<std::string> RuleNames(const std::string& resource, bool has_sort, bool throttled_only,
                                   double since) {
  std::vector<std::string> rules;
  const std::string suffix =
      "-" + resource + "-" + std::to_string(static_cast<int64_t>(since * 1000));
  if (!throttled_only) rules.push_back("DynamoDBContributorInsights-PKC" + suffix);
  rules.push_back("DynamoDBContributorInsights-PKT" + suffix);
  if (has_sort) {
    if (!throttled_only) rules.push_back("DynamoDBContributorInsights-SKC" + suffix);
    rules.push_back("DynamoDBContributorInsights-SKT" + suffix);
  }
  return rules;
}

}  // namespace

namespace {

ContributorInsightsDescription DescribeOne(EngineImpl& impl, const TableInfo& table,
                                           const IndexSchema* index) {
  ContributorInsightsDescription out;
  out.table_name = table.description.table_name;
  if (index) out.index_name = index->name;
  auto it = table.description.contributor_insights.find(index ? index->name : "");
  if (it == table.description.contributor_insights.end()) return out;
  const auto& setting = it->second;
  out.status =
      setting.enabled ? ContributorInsightsStatus::kEnabled : ContributorInsightsStatus::kDisabled;
  out.last_update = setting.last_update;
  out.mode = static_cast<ContributorInsightsMode>(setting.mode);
  if (!setting.enabled) return out;
  std::string range_buf;
  auto [hash, range] = KeyNames(table, index, &range_buf);
  const bool throttled_only = out.mode == ContributorInsightsMode::kThrottledKeys;
  out.rule_list = RuleNames(out.table_name + (index ? "-" + index->name : ""), range != nullptr,
                            throttled_only, setting.last_update);
  const uint32_t id = index ? index->index_id : table.id;
  const ScalarType pk_type = table.description.AttributeTypeOf(hash);
  const ScalarType sk_type = range ? table.description.AttributeTypeOf(*range) : ScalarType::kS;
  auto convert = [&](ContributorTracker::Ranking r) {
    std::vector<ContributorKey> keys;
    for (auto& e : impl.contributors.Top(id, r)) {
      ContributorKey k;
      k.partition_key = KeyText(e.pk, pk_type);
      if (e.sk) k.sort_key = KeyText(*e.sk, sk_type);
      k.value = e.value;
      keys.push_back(std::move(k));
    }
    return keys;
  };
  out.most_accessed_keys = convert(ContributorTracker::kPartitionAccessed);
  out.most_throttled_keys = convert(ContributorTracker::kPartitionThrottled);
  return out;
}

Result<const IndexSchema*> FindGsi(const TableInfo& table,
                                   const std::optional<std::string>& index) {
  if (!index) return static_cast<const IndexSchema*>(nullptr);
  const IndexSchema* schema = table.FindIndex(*index);
  if (!schema || !schema->global) {
    // Guess at the text, in the form of the service's other "not found" messages.
    return Error::NotFound("Requested resource not found: Index: " + *index + " not found");
  }
  return schema;
}

}  // namespace

void EngineImpl::StartContributorTracking() {
  for (const std::string& name : catalog->Names()) {
    auto table = catalog->Find(name);
    if (!table) continue;
    for (const auto& [index, setting] : table->description.contributor_insights) {
      if (!setting.enabled) continue;
      const IndexSchema* schema = index.empty() ? nullptr : table->FindIndex(index);
      if (!index.empty() && !schema) continue;
      contributors.SetEnabled(
          schema ? schema->index_id : table->id, true,
          setting.mode == static_cast<uint8_t>(ContributorInsightsMode::kThrottledKeys));
    }
  }
}

std::vector<ContributorRanking> EngineImpl::ContributorRankings() {
  std::vector<ContributorRanking> out;
  for (const std::string& name : catalog->Names()) {
    auto table = catalog->Find(name);
    if (!table) continue;
    for (const auto& [index_name, setting] : table->description.contributor_insights) {
      if (!setting.enabled) continue;
      const IndexSchema* index = index_name.empty() ? nullptr : table->FindIndex(index_name);
      if (!index_name.empty() && !index) continue;
      std::string range_buf;
      auto [hash, range] = KeyNames(*table, index, &range_buf);
      const ScalarType pk_type = table->description.AttributeTypeOf(hash);
      const ScalarType sk_type =
          range ? table->description.AttributeTypeOf(*range) : ScalarType::kS;
      static const char* const kRules[] = {"partition_key_consumed", "partition_sort_key_consumed",
                                           "partition_key_throttled",
                                           "partition_sort_key_throttled"};
      for (int r = 0; r < 4; ++r) {
        ContributorRanking ranking;
        ranking.table = name;
        ranking.index = index_name;
        ranking.rule = kRules[r];
        for (auto& e : contributors.Top(index ? index->index_id : table->id,
                                        static_cast<ContributorTracker::Ranking>(r))) {
          ranking.keys.push_back(
              {KeyText(e.pk, pk_type), e.sk ? KeyText(*e.sk, sk_type) : "", e.value});
        }
        if (!ranking.keys.empty()) out.push_back(std::move(ranking));
      }
    }
  }
  return out;
}

Result<ContributorInsightsDescription> Engine::UpdateContributorInsights(
    const RequestContext& ctx, const UpdateContributorInsightsRequest& req) {
  const std::string name(TableNameOf(req.table_name));
  std::shared_ptr<const TableInfo> table =
      impl_->FindTable(name).ok() ? impl_->catalog->Find(name) : nullptr;
  if (!table) return TableNotFoundNamed(name);
  DDB_ASSIGN_OR_RETURN(const IndexSchema* index, FindGsi(*table, req.index_name));
  const std::string key = index ? index->name : "";
  const ContributorInsightsMode mode =
      req.mode.value_or(ContributorInsightsMode::kAccessedAndThrottledKeys);
  DDB_ASSIGN_OR_RETURN(auto updated,
                       impl_->catalog->Update(name, [&](TableDescription* d) -> Status {
                         auto& setting = d->contributor_insights[key];
                         setting.enabled = req.enable;
                         setting.mode = static_cast<uint8_t>(mode);
                         setting.last_update = static_cast<double>(WallClockMillis()) / 1000.0;
                         return Status::Ok();
                       }));
  const uint32_t id = index ? index->index_id : updated->id;
  impl_->contributors.SetEnabled(id, req.enable, mode == ContributorInsightsMode::kThrottledKeys);
  ContributorInsightsDescription out;
  out.table_name = name;
  out.index_name = req.index_name;
  // The service answers the transition; ddb is already there when asked again.
  out.status =
      req.enable ? ContributorInsightsStatus::kEnabling : ContributorInsightsStatus::kDisabling;
  out.mode = mode;
  return out;
}

Result<ContributorInsightsDescription> Engine::DescribeContributorInsights(
    const RequestContext& ctx, const std::string& table_name,
    const std::optional<std::string>& index) {
  const std::string name(TableNameOf(table_name));
  if (!impl_->FindTable(name).ok()) return TableNotFoundNamed(name);
  std::shared_ptr<const TableInfo> table = impl_->catalog->Find(name);
  if (!table) return TableNotFoundNamed(name);
  DDB_ASSIGN_OR_RETURN(const IndexSchema* schema, FindGsi(*table, index));
  return DescribeOne(*impl_, *table, schema);
}

Result<ListContributorInsightsResult> Engine::ListContributorInsights(
    const RequestContext& ctx, const ListContributorInsightsRequest& req) {
  std::vector<std::string> names;
  if (req.table_name) {
    const std::string name(TableNameOf(*req.table_name));
    if (!impl_->FindTable(name).ok()) return TableNotFoundNamed(name);
    names.push_back(name);
  } else {
    names = impl_->catalog->Names();
  }
  // NextToken: "<table>/<index>" of the first entry not returned, hex-encoded.
  std::string start;
  if (req.next_token) {
    const std::string& t = *req.next_token;
    if (!util::DecodeHex(t, &start)) {
      return Error::Validation("Invalid NextToken");  // guess at the text
    }
  }
  const size_t limit = req.max_results > 0 ? static_cast<size_t>(req.max_results) : 100;
  ListContributorInsightsResult out;
  bool started = start.empty();
  for (const std::string& name : names) {
    std::shared_ptr<const TableInfo> table = impl_->catalog->Find(name);
    if (!table || impl_->table_holds->StatusOf(name) == TableStatus::kCreating) continue;
    std::vector<const IndexSchema*> entries{nullptr};
    for (const IndexSchema& index : table->indexes) {
      if (index.global) entries.push_back(&index);
    }
    for (const IndexSchema* index : entries) {
      const std::string position = name + "/" + (index ? index->name : "");
      if (!started) {
        if (position != start) continue;
        started = true;
      }
      if (out.summaries.size() == limit) {
        out.next_token = util::Hex(position);
        return out;
      }
      out.summaries.push_back(DescribeOne(*impl_, *table, index));
    }
  }
  return out;
}

}  // namespace ddb
