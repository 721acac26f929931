#include "ddb/types.h"

#include <algorithm>

namespace ddb {

const std::string& TableDescription::hash_key() const {
  for (const auto& k : key_schema) {
    if (k.key_type == KeyType::kHash) return k.attribute_name;
  }
  return key_schema.front().attribute_name;
}

const std::string* TableDescription::range_key() const {
  for (const auto& k : key_schema) {
    if (k.key_type == KeyType::kRange) return &k.attribute_name;
  }
  return nullptr;
}

std::optional<OnDemandThroughput> MergeOnDemand(const std::optional<OnDemandThroughput>& current,
                                                const OnDemandThroughput& given) {
  OnDemandThroughput merged = current.value_or(OnDemandThroughput{});
  if (given.max_read_request_units != kOnDemandNotGiven) {
    merged.max_read_request_units = given.max_read_request_units;
  }
  if (given.max_write_request_units != kOnDemandNotGiven) {
    merged.max_write_request_units = given.max_write_request_units;
  }
  if (merged.max_read_request_units == -1 && merged.max_write_request_units == -1) {
    return std::nullopt;
  }
  return merged;
}

std::string SseKmsKey(const SseSpecification& spec, const std::string& managed_key_id) {
  const std::string& id = spec.kms_key_id;
  if (id.empty()) return "key/" + managed_key_id;
  if (id.rfind("arn:", 0) == 0 || id.rfind("alias/", 0) == 0) return id;
  return "key/" + id;
}

WarmThroughput TableDescription::EffectiveWarmThroughput() const {
  WarmThroughput base;
  if (billing_mode == BillingMode::kPayPerRequest) {
    base = {kBaselineWarmReads, kBaselineWarmWrites};
  } else {
    base = {provisioned_throughput.read_capacity_units,
            provisioned_throughput.write_capacity_units};
  }
  if (!warm_throughput) return base;
  return {std::max(base.read_units_per_second, warm_throughput->read_units_per_second),
          std::max(base.write_units_per_second, warm_throughput->write_units_per_second)};
}

ScalarType TableDescription::AttributeTypeOf(const std::string& name) const {
  for (const auto& a : attribute_definitions) {
    if (a.attribute_name == name) return a.attribute_type;
  }
  return ScalarType::kS;
}

}  // namespace ddb
