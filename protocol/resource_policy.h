// Resource-based policy documents: parsing and the service's put-time validation, the
// canonical form GetResourcePolicy returns, a pure IAM evaluator, and the
// AccessDeniedException texts. No engine state: the engine stores documents
// (Engine::PutResourcePolicy), this file decides what they mean.
// Thread safety: pure functions over values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"

namespace ddb::protocol {

// --- The document ---

// One Condition entry: operator (with its ForAllValues:/ForAnyValue: prefix and IfExists
// suffix as written), key, and the values to compare with.
struct PolicyCondition {
  std::string op;
  std::string key;
  std::vector<std::string> values;
};

struct PolicyStatement {
  std::string sid;
  bool allow = false;  // Effect
  // Principal or NotPrincipal (not_principal): "*" or AWS principals (ARNs, account ids);
  // principals of other kinds (Service, Federated, CanonicalUser) are kept as
  // "<Kind>:<value>" and match no caller of this server.
  bool not_principal = false;
  bool any_principal = false;  // "*" or {"AWS": "*"}
  std::vector<std::string> principals;
  bool not_action = false;
  std::vector<std::string> actions;
  bool not_resource = false;
  std::vector<std::string> resources;
  std::vector<PolicyCondition> conditions;
  std::string condition_json;  // the Condition block minified, "" when absent
};

struct ParsedPolicy {
  std::string version;  // "2012-10-17" or "2008-10-17" (the default when absent)
  std::optional<std::string> id;
  std::vector<PolicyStatement> statements;
};

// Parses a policy document. Errors: kValidation with the service's texts ("One or more
// parameter values were invalid: Invalid policy document: This policy contains invalid
// Json", "... Statement is empty!", "... Missing required field Resource", "... The Statement
// Ids in the policy are not unique", "... Invalid principal in policy document.").
Result<ParsedPolicy> ParsePolicy(std::string_view json);

// The rules PutResourcePolicy (and CreateTable's ResourcePolicy) applies to a document for
// the resource it is attached to (a table or stream ARN): no unbounded Allow to "*", stream
// actions only on streams, table actions only on tables. Errors: kValidation.
Status ValidatePolicyFor(const ParsedPolicy& policy, std::string_view resource_arn);

// The document as GetResourcePolicy returns it: minified, keys in the service's order
// (Version, Id, Statement; Sid, Effect, Principal, Action, Resource, Condition), Statement
// always a list, one-element Action/Resource/principal lists as strings, an account-id
// principal as "arn:aws:iam::<account>:root".
std::string CanonicalPolicyJson(const ParsedPolicy& policy);

// --- Evaluation ---

enum class PolicyDecision {
  kNoMatch,       // no statement applies (an implicit deny for another account's caller)
  kAllow,         // an Allow statement applies and no Deny does
  kExplicitDeny,  // a Deny statement applies (or may: a condition it cannot evaluate)
};

// One request as the evaluator sees it.
struct AccessRequest {
  std::string principal_arn;      // "arn:aws:iam::111122223333:user/alice", or an STS
                                  // "arn:aws:sts::<account>:assumed-role/<role>/<session>"
  std::string principal_account;  // "111122223333"
  std::string action;             // "dynamodb:GetItem"
  std::string resource_arn;       // a table, index ("table/t/index/i") or stream ARN
  // Condition keys (matched case-insensitively) and their values; a single-valued key has
  // one. aws:PrincipalAccount and aws:PrincipalArn come from the fields above unless given.
  // Keys the evaluator knows and may find here: aws:PrincipalAccount, aws:PrincipalArn,
  // aws:SourceIp, aws:SecureTransport, aws:CurrentTime, aws:userid, aws:username,
  // dynamodb:LeadingKeys, dynamodb:Attributes, dynamodb:Select, dynamodb:ReturnValues,
  // dynamodb:ReturnConsumedCapacity, dynamodb:EnclosingOperation, dynamodb:FullTableScan.
  // Any other key given here is known too.
  std::map<std::string, std::vector<std::string>> context;
};

// IAM semantics: a statement applies when its principal, action and resource match and
// all its conditions hold; any applicable Deny wins. A condition with an operator or key
// the evaluator does not know never lets an Allow apply and always lets a Deny apply (fail
// closed).
PolicyDecision EvaluatePolicy(const ParsedPolicy& policy, const AccessRequest& req);
// The same on a document's text; a document that does not parse denies.
PolicyDecision EvaluatePolicy(std::string_view policy_json, const AccessRequest& req);

// Wildcard match of IAM: '*' any run of characters, '?' exactly one.
bool WildcardMatch(std::string_view pattern, std::string_view text, bool ignore_case);

// --- AccessDeniedException ---

// "User: <principal> is not authorized to perform: <action> on resource: <resource> because
// no resource-based policy allows the <action> action" (the service's text, quoted by the
// issue; "with an explicit deny in a resource-based policy" after a Deny, as the service
// writes it).
std::string AccessDeniedMessage(const AccessRequest& req, PolicyDecision decision);
// kAccessDenied with that message.
Error AccessDenied(const AccessRequest& req, PolicyDecision decision);
// PutResourcePolicy of a document that would deny its caller PutResourcePolicy, without
// ConfirmRemoveSelfResourceAccess: "The new resource policy will not allow you to update the
// resource policy in the future." (the service's text).
Error SelfLockout();

}  // namespace ddb::protocol
