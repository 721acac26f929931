// Time to Live settings, the TTL sweeper, and table tags.
#include <chrono>

#include "engine/engine_impl.h"
#include "engine/number.h"

namespace ddb {
namespace {

constexpr size_t kMaxTags = 50;

Error TableNotFoundNamed(const std::string& name) {
  return Error::NotFound("Requested resource not found: Table: " + name + " not found");
}

}  // namespace

Result<TimeToLiveSpecification> Engine::UpdateTimeToLive(const std::string& table,
                                                         const TimeToLiveSpecification& spec) {
  DDB_ASSIGN_OR_RETURN(auto info, impl_->catalog->Update(table, [&](TableDescription* d) -> Status {
    if (d->ttl_attribute && *d->ttl_attribute != spec.attribute_name) {
      // Enabling on another attribute, or disabling with a name that is not the TTL one.
      return Error::Validation(
          "TimeToLive is active on a different AttributeName: current AttributeName is " +
          *d->ttl_attribute);
    }
    if (spec.enabled && d->ttl_attribute) {
      return Error::Validation("TimeToLive is already enabled");
    }
    if (!spec.enabled && !d->ttl_attribute) {
      return Error::Validation("TimeToLive is already disabled");
    }
    if (spec.enabled) {
      d->ttl_attribute = spec.attribute_name;
    } else {
      d->ttl_attribute.reset();
    }
    return Status::Ok();
  }));
  (void)info;
  return spec;
}

Result<std::optional<std::string>> Engine::DescribeTimeToLive(const std::string& table) {
  auto info = impl_->catalog->Find(table);
  if (!info) return TableNotFoundNamed(table);
  return info->description.ttl_attribute;
}

namespace {

double EpochSeconds() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

ContinuousBackupsDescription DescribeBackups(const TableDescription& d) {
  ContinuousBackupsDescription c;
  if (!d.pitr_enabled_since) return c;
  c.pitr_enabled = true;
  c.recovery_period_days = d.pitr_recovery_period_days;
  // The service restores up to ~5 minutes ago, back to the enabling or the period's start.
  const double now = EpochSeconds();
  c.latest_restorable = std::max(*d.pitr_enabled_since, now - 300);
  c.earliest_restorable = std::max(*d.pitr_enabled_since, now - 86400.0 * c.recovery_period_days);
  return c;
}

Error BackupsTableNotFound(const std::string& table) {
  return Error(ErrorCode::kTableNotFound, "Table not found: " + table);
}

}  // namespace

Result<ContinuousBackupsDescription> Engine::UpdateContinuousBackups(
    const std::string& table, bool enabled, std::optional<int> recovery_period_days) {
  if (!impl_->catalog->Find(table)) return BackupsTableNotFound(table);
  DDB_ASSIGN_OR_RETURN(auto info, impl_->catalog->Update(table, [&](TableDescription* d) -> Status {
    if (!enabled) {
      d->pitr_enabled_since.reset();
      d->pitr_recovery_period_days = 35;
      return Status::Ok();
    }
    if (!d->pitr_enabled_since) d->pitr_enabled_since = EpochSeconds();
    d->pitr_recovery_period_days = recovery_period_days.value_or(35);
    return Status::Ok();
  }));
  return DescribeBackups(info->description);
}

Result<ContinuousBackupsDescription> Engine::DescribeContinuousBackups(const std::string& table) {
  auto info = impl_->catalog->Find(table);
  if (!info) return BackupsTableNotFound(table);
  return DescribeBackups(info->description);
}

Status Engine::TagResource(const std::string& table, const std::vector<Tag>& tags) {
  return impl_->catalog
      ->Update(table,
               [&](TableDescription* d) -> Status {
                 for (const Tag& t : tags) {
                   auto it = std::find_if(d->tags.begin(), d->tags.end(),
                                          [&](const Tag& e) { return e.key == t.key; });
                   if (it != d->tags.end()) {
                     it->value = t.value;
                   } else {
                     d->tags.push_back(t);
                   }
                 }
                 if (d->tags.size() > kMaxTags) {
                   return Error::Validation(
                       "Number of Tags exceed the current limit for the provided ResourceArn");
                 }
                 return Status::Ok();
               })
      .status();
}

Status Engine::UntagResource(const std::string& table, const std::vector<std::string>& keys) {
  return impl_->catalog
      ->Update(table,
               [&](TableDescription* d) -> Status {
                 std::erase_if(d->tags, [&](const Tag& t) {
                   return std::find(keys.begin(), keys.end(), t.key) != keys.end();
                 });
                 return Status::Ok();
               })
      .status();
}

Result<std::vector<Tag>> Engine::ListTagsOfResource(const std::string& table) {
  auto info = impl_->catalog->Find(table);
  if (!info) return TableNotFoundNamed(table);
  return info->description.tags;
}

void Engine::Impl::SweepExpiredItems() {
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  std::string now_text = std::to_string(now);
  for (const std::string& name : catalog->Names()) {
    if (stopping) return;
    auto table = catalog->Find(name);
    if (!table || !table->description.ttl_attribute) continue;
    const std::string& attr = *table->description.ttl_attribute;
    std::vector<std::string> expired;
    Status s = storage->ForEach(Cf::kItems, TablePrefix(table->id), TablePrefixEnd(table->id),
                                [&](std::string_view key, std::string_view value) {
                                  Item item;
                                  if (!DecodeItem(value, &item)) return true;
                                  auto it = item.find(attr);
                                  if (it != item.end() && it->second.type() == AttributeType::kN &&
                                      CompareNumbers(it->second.scalar(), now_text) < 0) {
                                    expired.emplace_back(key);
                                  }
                                  return !stopping;
                                });
    if (!s.ok()) continue;
    for (const std::string& key : expired) {
      // Re-checked under the item's lock: the item may have been rewritten meanwhile.
      Result<std::optional<Item>> deleted = Mutate(
          *table, key,
          [&](const std::optional<Item>& old) -> Result<std::optional<Item>> {
            if (!old) return std::optional<Item>();
            auto it = old->find(attr);
            bool still_expired = it != old->end() && it->second.type() == AttributeType::kN &&
                                 CompareNumbers(it->second.scalar(), now_text) < 0;
            if (still_expired) return std::optional<Item>();
            return old;
          },
          nullptr, WriteOrigin::kTimeToLive);
      (void)deleted;
    }
  }
}

}  // namespace ddb
