// Resource-based policies: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy on a
// table or one of its streams. The documents live in the table's catalog record
// (TableDescription::resource_policy, stream_policies), so they persist with it and go with
// it. Parsing, validating and evaluating documents is protocol/resource_policy.h's.
#include <algorithm>

#include "engine/engine_impl.h"

namespace ddb {
namespace {

// The service's limit, whitespace included (API reference, PutResourcePolicy: "The maximum
// size supported for a resource-based policy document is 20 KB"; the message is the
// service's, tests/wire/test_resource_policy.py::test_policy_size_limit).
constexpr size_t kMaxPolicyBytes = 20480;
constexpr std::string_view kNoPolicy = "NO_POLICY";
constexpr std::string_view kPolicyNotFound =
    "Resource-based policy not found for the provided ResourceArn: ";

// What a ResourceArn (or a bare table name) names.
struct PolicyTarget {
  std::string table;
  std::optional<std::string> stream_label;  // a stream of the table
};

Result<PolicyTarget> TargetOf(const std::string& resource) {
  PolicyTarget t;
  if (!resource.starts_with("arn:")) {
    t.table = resource;
    return t;
  }
  std::string label;
  if (resource.find("/stream/") != std::string::npos) {
    if (!ParseStreamArn(resource, &t.table, &label)) {
      return Error::Validation(
          "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource "
          "arn: " +
          resource);
    }
    t.stream_label = label;
    return t;
  }
  std::string_view name = TableNameOf(resource);
  if (name.size() == resource.size() || name.find('/') != std::string_view::npos) {
    return Error::Validation(
        "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource "
        "arn: " +
        resource);
  }
  t.table = std::string(name);
  return t;
}

std::string ArnOf(const RequestContext& ctx, const PolicyTarget& t) {
  if (t.stream_label) return StreamArn(ctx, t.table, *t.stream_label);
  return TableArnOf(ctx, t.table);
}

Error TableNotFoundNamed(const std::string& table) {
  return Error::NotFound("Requested resource not found: Table: " + table + " not found");
}

// The table, and the stream when the target is one. A stream of a table that is gone (its
// records outlive it) answers with no policy, as the service does.
Result<std::shared_ptr<const TableInfo>> FindTarget(const EngineImpl& impl,
                                                    const RequestContext& ctx,
                                                    const PolicyTarget& t) {
  auto info = impl.catalog->Find(t.table);
  if (t.stream_label) {
    bool known = impl.streams->Find(t.table, *t.stream_label) != nullptr;
    if (!info && known) {
      return Error(ErrorCode::kPolicyNotFound, std::string(kPolicyNotFound) + ArnOf(ctx, t));
    }
    if (!known) {
      return Error::NotFound("Requested resource not found: Stream: " + *t.stream_label +
                             " not found for Table: " + t.table);
    }
  }
  if (!info) return TableNotFoundNamed(t.table);
  return info;
}

const ResourcePolicy* PolicyOf(const TableDescription& d, const PolicyTarget& t) {
  if (!t.stream_label) return d.resource_policy ? &*d.resource_policy : nullptr;
  auto it = d.stream_policies.find(*t.stream_label);
  return it == d.stream_policies.end() ? nullptr : &it->second;
}

// The revision check of Put and Delete. The texts are the service's (moto's AWS-verified
// tests/test_dynamodb/test_dynamodb_resource_policy.py); a revision expected where there is
// no policy answers with GetResourcePolicy's text (a guess).
Status CheckRevision(const RequestContext& ctx, const PolicyTarget& t,
                     const ResourcePolicy* current, const std::optional<std::string>& expected) {
  if (!expected) return Status::Ok();
  if (*expected == kNoPolicy) {
    if (!current) return Status::Ok();
    return Error(ErrorCode::kPolicyNotFound,
                 std::string(kPolicyNotFound) +
                     "Requested policy update expecting none to be present for table " + t.table +
                     ", but a policy exists with revision id " + current->revision_id + ".");
  }
  if (!current) {
    return Error(ErrorCode::kPolicyNotFound, std::string(kPolicyNotFound) + ArnOf(ctx, t));
  }
  if (current->revision_id == *expected) return Status::Ok();
  return Error(ErrorCode::kPolicyNotFound,
               std::string(kPolicyNotFound) + "Requested update for policy with revision id " +
                   *expected + ", but the policy associated to target table " + t.table +
                   " has revision id " + current->revision_id + ".");
}

// A fresh revision id: the epoch milliseconds, past the one it replaces.
std::string NextRevision(const ResourcePolicy* previous) {
  uint64_t ms = WallClockMillis();
  if (previous) {
    uint64_t before = std::strtoull(previous->revision_id.c_str(), nullptr, 10);
    ms = std::max(ms, before + 1);
  }
  return std::to_string(ms);
}

Status CheckPolicySize(const std::string& policy) {
  if (policy.size() <= kMaxPolicyBytes) return Status::Ok();
  return Error::Validation(
      "One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded");
}

}  // namespace

std::optional<ResourcePolicy> NewTablePolicy(const std::optional<std::string>& policy) {
  if (!policy) return std::nullopt;
  return ResourcePolicy{*policy, NextRevision(nullptr)};
}

Status CheckResourcePolicySize(const std::string& policy) { return CheckPolicySize(policy); }

Result<std::string> Engine::PutResourcePolicy(const RequestContext& ctx,
                                              const PutResourcePolicyRequest& req) {
  DDB_ASSIGN_OR_RETURN(PolicyTarget t, TargetOf(req.resource));
  DDB_RETURN_IF_ERROR(CheckPolicySize(req.policy));
  DDB_ASSIGN_OR_RETURN(auto found, FindTarget(*impl_, ctx, t));
  (void)found;
  impl_->policies_seen = true;  // before the write: a reader never misses a policy
  std::string revision;
  DDB_RETURN_IF_ERROR(
      impl_->catalog
          ->Update(t.table,
                   [&](TableDescription* d) -> Status {
                     const ResourcePolicy* current = PolicyOf(*d, t);
                     DDB_RETURN_IF_ERROR(CheckRevision(ctx, t, current, req.expected_revision_id));
                     if (current && current->policy == req.policy) {
                       revision = current->revision_id;  // an equivalent document: a no-op
                       return Status::Ok();
                     }
                     ResourcePolicy next{req.policy, NextRevision(current)};
                     revision = next.revision_id;
                     if (t.stream_label) {
                       d->stream_policies[*t.stream_label] = std::move(next);
                     } else {
                       d->resource_policy = std::move(next);
                     }
                     return Status::Ok();
                   })
          .status());
  return revision;
}

bool Engine::MayHaveResourcePolicies() const { return impl_->policies_seen.load(); }

Result<ResourcePolicy> Engine::GetResourcePolicy(const RequestContext& ctx,
                                                 const std::string& resource) {
  DDB_ASSIGN_OR_RETURN(PolicyTarget t, TargetOf(resource));
  DDB_ASSIGN_OR_RETURN(auto info, FindTarget(*impl_, ctx, t));
  const ResourcePolicy* policy = PolicyOf(info->description, t);
  if (!policy) {
    return Error(ErrorCode::kPolicyNotFound, std::string(kPolicyNotFound) + ArnOf(ctx, t));
  }
  return *policy;
}

Result<std::optional<std::string>> Engine::DeleteResourcePolicy(
    const RequestContext& ctx, const std::string& resource,
    const std::optional<std::string>& expected_revision_id) {
  DDB_ASSIGN_OR_RETURN(PolicyTarget t, TargetOf(resource));
  DDB_ASSIGN_OR_RETURN(auto info, FindTarget(*impl_, ctx, t));
  if (!PolicyOf(info->description, t) && !expected_revision_id) {
    return std::optional<std::string>();  // nothing to delete: 200, as in the service
  }
  std::optional<std::string> removed;
  DDB_RETURN_IF_ERROR(impl_->catalog
                          ->Update(t.table,
                                   [&](TableDescription* d) -> Status {
                                     const ResourcePolicy* current = PolicyOf(*d, t);
                                     DDB_RETURN_IF_ERROR(
                                         CheckRevision(ctx, t, current, expected_revision_id));
                                     if (!current) return Status::Ok();
                                     removed = current->revision_id;
                                     if (t.stream_label) {
                                       d->stream_policies.erase(*t.stream_label);
                                     } else {
                                       d->resource_policy.reset();
                                     }
                                     return Status::Ok();
                                   })
                          .status());
  return removed;
}

}  // namespace ddb
