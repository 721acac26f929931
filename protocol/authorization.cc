#include "protocol/authorization.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "protocol/resource_policy.h"
#include "util/arn.h"
#include "util/ascii.h"

namespace ddb::protocol {
namespace {

// A resource from a table name or a table, index or stream ARN, in the caller's account
// and region unless the ARN names others.
NamedResource Resolve(std::string_view name_or_arn, const RequestContext& ctx,
                      std::string_view action) {
  NamedResource r;
  r.action = std::string(action);
  r.account = ctx.account_id;
  r.region = ctx.region;
  std::string_view table = name_or_arn;
  std::string_view rest;  // after the table: "/stream/<label>", "/index/<name>" or ""
  const std::optional<util::DynamoDbArnParts> arn = util::ParseDynamoDbArn(name_or_arn);
  if (arn && arn->resource.starts_with("table/")) {
    r.region = std::string(arn->region);
    r.account = std::string(arn->account);
    table = arn->table;
    rest = arn->rest;
  } else if (const size_t slash = name_or_arn.find('/'); slash != std::string_view::npos) {
    // Not a table ARN (the operation answers it), or a name with a '/'.
    table = name_or_arn.substr(0, slash);
    rest = name_or_arn.substr(slash);
  }
  r.table = std::string(table);
  const std::string table_arn = util::TableArn(r.region, r.account, r.table);
  r.arn = table_arn + std::string(rest);
  r.policy_owner = rest.starts_with("/stream/") ? r.arn : table_arn;
  return r;
}

std::string Action(std::string_view operation) { return "dynamodb:" + std::string(operation); }

void AddString(const JsonObject& request, std::string_view member, std::string_view key,
               NamedResource* r) {
  Result<std::optional<std::string_view>> v = GetString(request, member);
  if (v.ok() && *v) r->context[std::string(key)].emplace_back(**v);
}

void AddNames(const JsonObject& item, NamedResource* r) {
  std::vector<std::string>& names = r->context["dynamodb:Attributes"];
  for (auto field : item) names.emplace_back(field.key);
}

// The resource of a single-table request (its index's, for a read of an index), with its
// condition keys.
NamedResource TableRequest(std::string_view operation, const JsonObject& request,
                           const RequestContext& ctx, std::string_view name) {
  NamedResource r = Resolve(name, ctx, Action(operation));
  Result<std::optional<std::string_view>> index = GetString(request, "IndexName");
  if (index.ok() && *index) r.arn = util::IndexArn(r.arn, **index);
  AddString(request, "Select", "dynamodb:Select", &r);
  AddString(request, "ReturnValues", "dynamodb:ReturnValues", &r);
  AddString(request, "ReturnConsumedCapacity", "dynamodb:ReturnConsumedCapacity", &r);
  for (std::string_view member : {"Key", "Item"}) {
    Result<std::optional<JsonObject>> item = GetObject(request, member);
    if (!item.ok() || !*item) continue;
    r.items.push_back(**item);
    if (member == "Item") AddNames(**item, &r);
  }
  return r;
}

// TransactWriteItems' and TransactGetItems' actions, each under the IAM action it needs.
void TransactionResources(const JsonObject& request, const RequestContext& ctx,
                          std::vector<NamedResource>* out) {
  Result<std::optional<simdjson::dom::array>> actions = GetArray(request, "TransactItems");
  if (!actions.ok() || !*actions) return;
  static constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {"Put", "PutItem"},
      {"Update", "UpdateItem"},
      {"Delete", "DeleteItem"},
      {"ConditionCheck", "ConditionCheckItem"},
      {"Get", "GetItem"}};
  for (JsonElement e : **actions) {
    JsonObject action;
    if (e.get(action) != simdjson::SUCCESS) continue;
    for (auto [kind, iam] : kKinds) {
      Result<std::optional<JsonObject>> body = GetObject(action, kind);
      if (!body.ok() || !*body) continue;
      Result<std::optional<std::string_view>> name = GetString(**body, "TableName");
      if (!name.ok() || !*name) continue;
      out->push_back(TableRequest(iam, **body, ctx, **name));
    }
  }
}

void BatchResources(std::string_view operation, const JsonObject& request,
                    const RequestContext& ctx, std::vector<NamedResource>* out) {
  Result<std::optional<JsonObject>> items = GetObject(request, "RequestItems");
  if (!items.ok() || !*items) return;
  for (auto field : **items) {
    NamedResource r = Resolve(field.key, ctx, Action(operation));
    JsonObject per_table;
    simdjson::dom::array list;
    if (field.value.get(per_table) == simdjson::SUCCESS) {  // BatchGetItem
      Result<std::optional<simdjson::dom::array>> keys = GetArray(per_table, "Keys");
      if (keys.ok() && *keys) {
        for (JsonElement k : **keys) {
          JsonObject key;
          if (k.get(key) == simdjson::SUCCESS) r.items.push_back(key);
        }
      }
    } else if (field.value.get(list) == simdjson::SUCCESS) {  // BatchWriteItem
      for (JsonElement w : list) {
        JsonObject write, body;
        if (w.get(write) != simdjson::SUCCESS) continue;
        for (auto [kind, member] : {std::pair{"PutRequest", "Item"}, {"DeleteRequest", "Key"}}) {
          if (write[kind].get(body) == simdjson::SUCCESS &&
              body[member].get(body) == simdjson::SUCCESS) {
            r.items.push_back(body);
          }
        }
      }
    }
    out->push_back(std::move(r));
  }
}

// The table a PartiQL statement names, and the IAM action it needs: SELECT ... FROM t,
// INSERT INTO t, UPDATE t, DELETE FROM t (a quoted or bare name; "t"."index" names t's
// index). Empty when the statement does not read so; the operation then answers it.
struct StatementTarget {
  std::string action;
  std::string table;
  std::string index;
};

StatementTarget TargetOfStatement(std::string_view text) {
  size_t i = 0;
  auto skip_blanks = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
      ++i;
    }
  };
  auto word = [&]() -> std::string {
    skip_blanks();
    std::string w;
    while (i < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      w.push_back(util::AsciiUpper(text[i++]));
    }
    return w;
  };
  auto name = [&]() -> std::string {
    skip_blanks();
    std::string n;
    if (i < text.size() && text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) n.push_back(text[i]);
      if (i < text.size()) ++i;
      return n;
    }
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) ||
                               text[i] == '_' || text[i] == '-' || text[i] == '.')) {
      n.push_back(text[i++]);
    }
    return n;
  };
  StatementTarget t;
  const std::string verb = word();
  if (verb == "SELECT" || verb == "DELETE") {
    // The first FROM outside quotes ('...' strings, "..." names: each closed by its own).
    char quote = 0;
    for (; i < text.size(); ++i) {
      if (quote) {
        if (text[i] == quote) quote = 0;
        continue;
      }
      if (text[i] == '\'' || text[i] == '"') {
        quote = text[i];
        continue;
      }
      auto from_at = [&](size_t at) {
        static constexpr std::string_view kFrom = "FROM";
        for (size_t k = 0; k < kFrom.size(); ++k) {
          if (util::AsciiUpper(text[at + k]) != kFrom[k]) return false;
        }
        return true;
      };
      if (i + 4 <= text.size() &&
          (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))) && from_at(i)) {
        i += 4;
        break;
      }
    }
    t.action = verb == "SELECT" ? "dynamodb:PartiQLSelect" : "dynamodb:PartiQLDelete";
  } else if (verb == "INSERT") {
    if (word() != "INTO") return {};
    t.action = "dynamodb:PartiQLInsert";
  } else if (verb == "UPDATE") {
    t.action = "dynamodb:PartiQLUpdate";
  } else {
    return {};
  }
  t.table = name();
  if (i < text.size() && text[i] == '.') {
    ++i;
    t.index = name();
  }
  if (t.table.empty()) return {};
  return t;
}

void StatementResources(std::string_view operation, const JsonObject& request,
                        const RequestContext& ctx, std::vector<NamedResource>* out) {
  auto add = [&](std::string_view statement) {
    StatementTarget t = TargetOfStatement(statement);
    if (t.table.empty()) return;
    NamedResource r = Resolve(t.table, ctx, t.action);
    if (!t.index.empty()) r.arn = util::IndexArn(r.arn, t.index);
    out->push_back(std::move(r));
  };
  if (operation == "ExecuteStatement") {
    Result<std::optional<std::string_view>> statement = GetString(request, "Statement");
    if (statement.ok() && *statement) add(**statement);
    return;
  }
  const char* list = operation == "BatchExecuteStatement" ? "Statements" : "TransactStatements";
  Result<std::optional<simdjson::dom::array>> statements = GetArray(request, list);
  if (!statements.ok() || !*statements) return;
  for (JsonElement e : **statements) {
    JsonObject one;
    std::string_view text;
    if (e.get(one) == simdjson::SUCCESS && one["Statement"].get(text) == simdjson::SUCCESS) {
      add(text);
    }
  }
}

// A value of a partition key as condition keys compare it.
std::string KeyText(const JsonElement& v) {
  JsonObject typed;
  if (v.get(typed) != simdjson::SUCCESS) return "";
  for (auto field : typed) {
    std::string_view text;
    if (field.value.get(text) == simdjson::SUCCESS) return std::string(text);
  }
  return "";
}

}  // namespace

std::vector<NamedResource> NamedResources(std::string_view operation, const JsonObject& request,
                                          const RequestContext& ctx) {
  std::vector<NamedResource> out;
  if (operation == "TransactWriteItems" || operation == "TransactGetItems") {
    TransactionResources(request, ctx, &out);
    return out;
  }
  if (operation == "BatchGetItem" || operation == "BatchWriteItem") {
    BatchResources(operation, request, ctx, &out);
    return out;
  }
  if (operation == "ExecuteStatement" || operation == "BatchExecuteStatement" ||
      operation == "ExecuteTransaction") {
    // Names in statements are the caller's own tables.
    StatementResources(operation, request, ctx, &out);
    return out;
  }
  for (std::string_view member : {"ResourceArn", "StreamArn", "TableArn"}) {
    Result<std::optional<std::string_view>> arn = GetString(request, member);
    if (arn.ok() && *arn) {
      out.push_back(Resolve(**arn, ctx, Action(operation)));
      return out;
    }
  }
  if (operation == "GetRecords") {
    // A shard iterator starts with its stream's ARN.
    Result<std::optional<std::string_view>> it = GetString(request, "ShardIterator");
    if (it.ok() && *it && (*it)->find('|') != std::string_view::npos) {
      out.push_back(Resolve((*it)->substr(0, (*it)->find('|')), ctx, Action(operation)));
    }
    return out;
  }
  if (operation == "ListTables" || operation == "ListStreams") {
    return out;  // the caller's own namespace
  }
  if (operation == "CreateTable") {
    // The caller's own namespace, unless its TableName is an ARN: then that ARN's account and
    // Region are checked as any other's (no resource policy allows creating a table in
    // another account; a probe found one created in the caller's own).
    Result<std::optional<std::string_view>> name = GetString(request, "TableName");
    if (!name.ok() || !*name || !(*name)->starts_with("arn:")) return out;
  }
  Result<std::optional<std::string_view>> name = GetString(request, "TableName");
  if (name.ok() && *name) out.push_back(TableRequest(operation, request, ctx, **name));
  return out;
}

namespace {

bool CrossAccountAction(std::string_view action) {
  static constexpr std::string_view kLocalOnly[] = {
      "dynamodb:UpdateTimeToLive",
      "dynamodb:DescribeTimeToLive",
      "dynamodb:CreateBackup",
      "dynamodb:DescribeBackup",
      "dynamodb:DeleteBackup",
      "dynamodb:ListBackups",
      "dynamodb:RestoreTableFromBackup",
      "dynamodb:RestoreTableToPointInTime",
      "dynamodb:UpdateContinuousBackups",
      "dynamodb:DescribeContinuousBackups",
      "dynamodb:UpdateContributorInsights",
      "dynamodb:DescribeContributorInsights",
      "dynamodb:PutResourcePolicy",
      "dynamodb:GetResourcePolicy",
      "dynamodb:DeleteResourcePolicy",
      "dynamodb:EnableKinesisStreamingDestination",
      "dynamodb:DisableKinesisStreamingDestination",
      "dynamodb:DescribeKinesisStreamingDestination",
      "dynamodb:UpdateKinesisStreamingDestination",
      "dynamodb:UpdateTableReplicaAutoScaling",
      "dynamodb:DescribeTableReplicaAutoScaling",
  };
  return std::find(std::begin(kLocalOnly), std::end(kLocalOnly), action) == std::end(kLocalOnly);
}

}  // namespace

Status Authorize(Engine* engine, const RequestContext& caller, const NamedResource& resource) {
  RequestContext owner = caller;  // the owner's namespace is in the caller's region
  owner.account_id = resource.account;
  AccessRequest req;
  req.principal_arn =
      caller.principal_arn.empty() ? util::AccountRootArn(caller.account_id) : caller.principal_arn;
  req.principal_account = caller.account_id;
  req.action = resource.action;
  req.resource_arn = resource.arn;
  req.context = resource.context;
  const bool foreign = resource.account != caller.account_id;
  // Actions whose resource policies the service does not honour for another account
  // ("Cross-account support: No" in the developer guide's list of operations supported by
  // resource-based policies): a policy allowing them is not consulted (a probe found another
  // account changing TTL, taking backups and rewriting the policy itself).
  if (foreign && !CrossAccountAction(resource.action)) {
    return AccessDenied(req, PolicyDecision::kNoMatch);
  }
  Result<ResourcePolicy> policy =
      engine ? engine->GetResourcePolicy(owner, resource.policy_owner)
             : Result<ResourcePolicy>(Error::NotFound("no such namespace"));
  if (!policy.ok()) {
    // No policy (or no such resource): the owner's callers go on (the operation answers
    // them); another account's are refused, a missing resource included, as the service.
    if (!foreign) return Status::Ok();
    return AccessDenied(req, PolicyDecision::kNoMatch);
  }
  if (!resource.items.empty()) {
    Result<TableDescription> table = engine->DescribeTable(owner, resource.table);
    if (table.ok() && !table->key_schema.empty()) {
      std::vector<std::string>& keys = req.context["dynamodb:LeadingKeys"];
      for (const JsonObject& item : resource.items) {
        JsonElement v;
        if (item[table->key_schema[0].attribute_name].get(v) == simdjson::SUCCESS) {
          keys.push_back(KeyText(v));
        }
      }
    }
  }
  const PolicyDecision decision = EvaluatePolicy(policy->policy, req);
  if (decision == PolicyDecision::kExplicitDeny) return AccessDenied(req, decision);
  if (foreign && decision != PolicyDecision::kAllow) return AccessDenied(req, decision);
  return Status::Ok();
}

}  // namespace ddb::protocol
