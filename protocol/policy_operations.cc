// PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy, and CreateTable's
// ResourcePolicy member. The document is validated and canonicalised here
// (resource_policy.h) before the engine stores it. Texts are the service's as recorded by
// tests/wire/test_resource_policy.py unless a comment says they are guesses.
#include "protocol/json_writer.h"
#include "protocol/operations.h"
#include "protocol/resource_policy.h"
#include "util/arn.h"

namespace ddb::protocol {
namespace {

constexpr std::string_view kInvalid = "One or more parameter values were invalid: ";
// The caller as the policy evaluator sees it: its principal (its account's root when not
// verified), of the account its ARN names.
AccessRequest CallerRequest(const RequestContext& ctx, std::string action, std::string resource) {
  AccessRequest req;
  req.principal_arn =
      ctx.principal_arn.empty() ? util::AccountRootArn(ctx.account_id) : ctx.principal_arn;
  const size_t start = std::string_view("arn:aws:iam::").size();
  req.principal_account =
      req.principal_arn.size() > start
          ? req.principal_arn.substr(start, req.principal_arn.find(':', start) - start)
          : ctx.account_id;
  req.action = std::move(action);
  req.resource_arn = std::move(resource);
  return req;
}

// ResourceArn: a table or stream ARN of the caller's account and region, checked in the
// service's order (shape, "arn:", a DynamoDB resource, partition and region, account, kind).
// An empty result with no error means a shape violation was added to *v.
Result<std::string> ReadResourceArn(const JsonObject& request, const RequestContext& ctx,
                                    Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto arn, GetString(request, "ResourceArn"));
  if (!arn) {
    v->NotNull("resourceArn");
    return std::string();
  }
  // The model's bounds (1..1283) as we recall them: a guess.
  v->Length(*arn, "resourceArn", 1, 1283);
  if (arn->empty() || arn->size() > 1283) return std::string();
  std::string text(*arn);
  if (!arn->starts_with("arn:")) {
    return Error::Validation(std::string(kInvalid) + "ARNs must start with 'arn:': " + text);
  }
  const std::optional<util::ArnParts> parts = util::ParseArn(*arn);
  Error not_dynamodb = Error::Validation(std::string(kInvalid) +
                                         "Provided Arn is not a DynamoDB resource arn: " + text);
  if (!parts || parts->service != "dynamodb" || !parts->resource.starts_with("table/")) {
    return not_dynamodb;
  }
  if (parts->partition != "aws" || parts->region != ctx.region) {
    return Error::Validation(std::string(kInvalid) + "Invalid resource Arn: " + text);
  }
  if (parts->account != ctx.account_id) {
    return Error::Validation(
        "This action is only supported by accounts that match the resource owner\u2019s "
        "account.");
  }
  std::string_view path = parts->resource.substr(6);  // <name>[/<kind>/<id>]
  size_t slash = path.find('/');
  if (slash == 0) return not_dynamodb;
  if (slash != std::string_view::npos) {
    std::string_view kind = path.substr(slash + 1);
    if (kind.starts_with("index/")) {
      return Error::Validation(std::string(kInvalid) +
                               "Invalid resource arn provided, only table or stream is accepted. "
                               "Provided resource arn: " +
                               text);
    }
    if (!kind.starts_with("stream/") || kind.size() == 7) return not_dynamodb;
  }
  return text;
}

// The document checked and canonicalised for the resource it goes on. Errors: kValidation.
Result<ParsedPolicy> ReadPolicyDocument(std::string_view policy, std::string_view resource_arn) {
  if (policy.size() > 20480) {
    return Error::Validation(std::string(kInvalid) + "Maximum policy size of 20480 bytes exceeded");
  }
  DDB_ASSIGN_OR_RETURN(ParsedPolicy parsed, ParsePolicy(policy));
  DDB_RETURN_IF_ERROR(ValidatePolicyFor(parsed, resource_arn));
  return parsed;
}

Result<std::optional<std::string>> ReadRevision(const JsonObject& request, Violations* v) {
  DDB_ASSIGN_OR_RETURN(auto rev, GetString(request, "ExpectedRevisionId"));
  if (!rev) return std::optional<std::string>();
  v->Length(*rev, "expectedRevisionId", 1, 255);  // the model's bounds as we recall them: a guess
  return std::optional<std::string>(std::string(*rev));
}

std::string RenderRevision(const std::optional<std::string>& revision) {
  JsonWriter w;
  w.BeginObject();
  w.OptionalString("RevisionId", revision);
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::optional<std::string>> ReadCreateTablePolicy(const JsonObject& request,
                                                         const RequestContext& ctx,
                                                         const std::string& table) {
  DDB_ASSIGN_OR_RETURN(auto policy, GetString(request, "ResourcePolicy"));
  if (!policy) return std::optional<std::string>();
  const std::string arn = util::TableArn(ctx.region, ctx.account_id, table);
  DDB_ASSIGN_OR_RETURN(ParsedPolicy parsed, ReadPolicyDocument(*policy, arn));
  return std::optional<std::string>(CanonicalPolicyJson(parsed));
}

Result<std::string> HandlePutResourcePolicy(Engine& engine, const RequestContext& ctx,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string arn, ReadResourceArn(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(auto policy, GetString(request, "Policy"));
  if (!policy) v.NotNull("policy");
  PutResourcePolicyRequest req;
  DDB_ASSIGN_OR_RETURN(req.expected_revision_id, ReadRevision(request, &v));
  DDB_ASSIGN_OR_RETURN(auto confirm, GetBool(request, "ConfirmRemoveSelfResourceAccess"));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ParsedPolicy parsed, ReadPolicyDocument(*policy, arn));
  // The service simulates the caller against the new document: one that would deny it
  // PutResourcePolicy needs ConfirmRemoveSelfResourceAccess.
  if (!confirm.value_or(false) &&
      EvaluatePolicy(parsed, CallerRequest(ctx, "dynamodb:PutResourcePolicy", arn)) ==
          PolicyDecision::kExplicitDeny) {
    return SelfLockout();
  }
  req.resource = arn;
  req.policy = CanonicalPolicyJson(parsed);
  DDB_ASSIGN_OR_RETURN(std::string revision, engine.PutResourcePolicy(ctx, req));
  return RenderRevision(revision);
}

Result<std::string> HandleGetResourcePolicy(Engine& engine, const RequestContext& ctx,
                                            const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string arn, ReadResourceArn(request, ctx, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(ResourcePolicy policy, engine.GetResourcePolicy(ctx, arn));
  JsonWriter w;
  w.BeginObject();
  w.Key("Policy");
  w.String(policy.policy);
  w.Key("RevisionId");
  w.String(policy.revision_id);
  w.EndObject();
  return w.Take();
}

Result<std::string> HandleDeleteResourcePolicy(Engine& engine, const RequestContext& ctx,
                                               const JsonObject& request) {
  Violations v;
  DDB_ASSIGN_OR_RETURN(std::string arn, ReadResourceArn(request, ctx, &v));
  DDB_ASSIGN_OR_RETURN(auto expected, ReadRevision(request, &v));
  DDB_RETURN_IF_ERROR(v.ToStatus());
  DDB_ASSIGN_OR_RETURN(auto removed, engine.DeleteResourcePolicy(ctx, arn, expected));
  return RenderRevision(removed);
}

}  // namespace ddb::protocol
