// Replica auto scaling settings (Engine::UpdateAutoScaling): kept with the table and
// described; nothing acts on them (docs/global-tables.md).
#include <algorithm>

#include "engine/engine_impl.h"

namespace ddb {

namespace {

// Applies one update to one capacity's settings. Disabling drops them; enabling starts from
// nothing and takes what is present.
Status ApplySettingsUpdate(const AutoScalingSettingsUpdate& u,
                           std::optional<AutoScalingSettings>* settings) {
  if (u.disabled.value_or(false)) {
    settings->reset();
    return Status::Ok();
  }
  AutoScalingSettings s = settings->value_or(AutoScalingSettings{});
  if (u.minimum_units) s.minimum_units = u.minimum_units;
  if (u.maximum_units) s.maximum_units = u.maximum_units;
  if (u.role_arn) s.role_arn = u.role_arn;
  if (u.policy) s.policy = u.policy;
  // Application Auto Scaling's check of a scalable target.
  if (s.minimum_units && s.maximum_units && *s.minimum_units > *s.maximum_units) {
    return Error::Validation("Minimum capacity cannot be greater than maximum capacity");
  }
  *settings = std::move(s);
  return Status::Ok();
}

Status ApplyAutoScalingUpdate(const TableAutoScalingUpdate& u, TableDescription* d) {
  if (d->billing_mode == BillingMode::kPayPerRequest) {
    // Guessed wording (not on record): on-demand capacity has nothing to scale.
    return Error::Validation("Auto scaling is not supported for tables in PAY_PER_REQUEST mode: " +
                             d->table_name);
  }
  TableAutoScaling& a = d->auto_scaling;
  if (u.read) DDB_RETURN_IF_ERROR(ApplySettingsUpdate(*u.read, &a.read));
  if (u.write) DDB_RETURN_IF_ERROR(ApplySettingsUpdate(*u.write, &a.write));
  for (const TableAutoScalingUpdate::Index& iu : u.indexes) {
    const bool exists = std::any_of(
        d->global_secondary_indexes.begin(), d->global_secondary_indexes.end(),
        [&](const SecondaryIndexDefinition& g) {
          return g.index_name == iu.index_name && g.index_status != IndexStatus::kDeleting;
        });
    if (!exists) {
      return Error::NotFound("Requested resource not found: Index: " + iu.index_name +
                             " not found");
    }
    auto it = std::find_if(
        a.indexes.begin(), a.indexes.end(),
        [&](const TableAutoScaling::Index& i) { return i.index_name == iu.index_name; });
    if (it == a.indexes.end()) {
      a.indexes.push_back({iu.index_name, std::nullopt, std::nullopt});
      it = std::prev(a.indexes.end());
    }
    if (iu.read) DDB_RETURN_IF_ERROR(ApplySettingsUpdate(*iu.read, &it->read));
    if (iu.write) DDB_RETURN_IF_ERROR(ApplySettingsUpdate(*iu.write, &it->write));
    if (!it->read && !it->write) a.indexes.erase(it);
  }
  return Status::Ok();
}

}  // namespace

Result<TableDescription> Engine::UpdateAutoScaling(const RequestContext& ctx,
                                                   const std::string& table,
                                                   const TableAutoScalingUpdate& update) {
  // Any status: Application Auto Scaling registers a target on a table still CREATING (a
  // new replica's) or UPDATING.
  DDB_ASSIGN_OR_RETURN(auto info, impl_->catalog->Update(table, [&](TableDescription* d) {
    return ApplyAutoScalingUpdate(update, d);
  }));
  return impl_->Describe(ctx, *info);
}

}  // namespace ddb
