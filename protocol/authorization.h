// Which account's tables a request reaches, and whether its caller may (issue 15). A table,
// index or stream named by its ARN belongs to the ARN's account; by its name, to the
// caller's. Under enforcement (--auth verify) every named resource's resource-based policy
// is evaluated for the caller (protocol/resource_policy.h): an explicit Deny refuses anyone,
// and a caller of another account needs an Allow.
// Internal to protocol/. Thread safety: pure functions over their arguments and the engine.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/engine.h"
#include "protocol/json_reader.h"

namespace ddb::protocol {

// A resource a request names, and the action it is named for.
struct NamedResource {
  std::string action;  // "dynamodb:GetItem"; a transaction's actions are each their own
  std::string account;
  std::string region;
  std::string table;  // the table's name
  // The ARN a policy's Resource is matched with: the table's, its index's
  // (".../table/t/index/i") or its stream's.
  std::string arn;
  // The resource whose policy applies: the table's ARN, or the stream's.
  std::string policy_owner;
  // Condition keys this request gives for the resource (dynamodb:LeadingKeys needs the
  // table's key schema and is added by Authorize).
  std::map<std::string, std::vector<std::string>> context;
  // The request's keys or items on this table, for dynamodb:LeadingKeys.
  std::vector<JsonObject> items;
};

// The resources `operation`'s request names. Errors: none that the operation's own reading
// would not report (a request it cannot read names no resource here).
std::vector<NamedResource> NamedResources(std::string_view operation, const JsonObject& request,
                                          const RequestContext& ctx);

// Whether the caller may act on `resource`, whose tables `engine` holds (nullptr: another
// account's namespace that does not exist, so no such table).
// Errors: kAccessDenied with the service's message.
Status Authorize(Engine* engine, const RequestContext& caller, const NamedResource& resource);

}  // namespace ddb::protocol
