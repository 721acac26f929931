#include "protocol/resource_policy.h"

#include <arpa/inet.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "protocol/json_writer.h"
#include "util/arn.h"
#include "util/ascii.h"

namespace ddb::protocol {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::string_view kInvalid = "One or more parameter values were invalid: ";

Error InvalidDocument(std::string_view why) {
  return Error::Validation(std::string(kInvalid) + "Invalid policy document: " + std::string(why));
}

Error InvalidJson() { return InvalidDocument("This policy contains invalid Json"); }

bool IsAccountId(std::string_view s) {
  return s.size() == 12 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The account of an IAM or STS ARN ("arn:aws:iam::<account>:..."), "" when not one.
std::string_view AccountOfArn(std::string_view arn) {
  const std::optional<util::ArnParts> parts = util::ParseArn(arn);
  if (!parts || parts->partition != "aws" || (parts->service != "iam" && parts->service != "sts") ||
      !parts->region.empty()) {
    return {};
  }
  return parts->account;
}

// A string or a list of strings (Action, Resource, a principal kind). False when it is
// neither.
bool StringOrList(element e, std::vector<std::string>* out) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    out->emplace_back(s);
    return true;
  }
  array a;
  if (e.get(a) != simdjson::SUCCESS) return false;
  for (element x : a) {
    if (x.get(s) != simdjson::SUCCESS) return false;
    out->emplace_back(s);
  }
  return true;
}

// A condition value as text: strings as they are, numbers and booleans as written.
bool ConditionValue(element e, std::string* out) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    *out = std::string(s);
    return true;
  }
  bool b;
  if (e.get(b) == simdjson::SUCCESS) {
    *out = b ? "true" : "false";
    return true;
  }
  if (e.is_number()) {
    *out = simdjson::minify(e);
    return true;
  }
  return false;
}

Status ReadPrincipal(element e, std::string_view raw, PolicyStatement* st) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    if (s == "*") {
      st->any_principal = true;
      return Status::Ok();
    }
    // The service answers a bare principal string with a syntax error at its position;
    // the position here is the first occurrence of the value in the document (a guess at
    // how it counts).
    size_t at = raw.find("\"" + std::string(s) + "\"");
    return InvalidDocument("Syntax error at position (1," +
                           std::to_string(at == std::string_view::npos ? 1 : at + 1) + ")");
  }
  object o;
  if (e.get(o) != simdjson::SUCCESS) return InvalidJson();
  for (auto [kind, value] : o) {
    std::vector<std::string> list;
    if (!StringOrList(value, &list)) return InvalidJson();
    for (const std::string& p : list) {
      if (kind == "AWS") {
        if (p == "*") {
          st->any_principal = true;
        } else if (IsAccountId(p) || IsAccountId(AccountOfArn(p))) {
          st->principals.push_back(IsAccountId(p) ? util::AccountRootArn(p) : p);
        } else {
          // The service also refuses principals that do not exist, which cannot be known
          // here; this refuses the malformed ones with its text.
          return Error::Validation(std::string(kInvalid) + "Invalid principal in policy document.");
        }
      } else if (kind == "Service" || kind == "Federated" || kind == "CanonicalUser") {
        st->principals.push_back(std::string(kind) + ":" + p);
      } else {
        return Error::Validation(std::string(kInvalid) + "Invalid principal in policy document.");
      }
    }
  }
  // Duplicates (an account id beside its root ARN) collapse to one, as the service shows.
  std::vector<std::string> unique;
  for (const std::string& p : st->principals) {
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
  }
  st->principals = std::move(unique);
  return Status::Ok();
}

Status ReadCondition(element e, PolicyStatement* st) {
  object ops;
  if (e.get(ops) != simdjson::SUCCESS) return InvalidJson();
  for (auto [op, block] : ops) {
    object keys;
    if (block.get(keys) != simdjson::SUCCESS) return InvalidJson();
    for (auto [key, values] : keys) {
      PolicyCondition c{std::string(op), std::string(key), {}};
      array list;
      std::string v;
      if (values.get(list) == simdjson::SUCCESS) {
        for (element x : list) {
          if (!ConditionValue(x, &v)) return InvalidJson();
          c.values.push_back(v);
        }
      } else if (ConditionValue(values, &v)) {
        c.values.push_back(v);
      } else {
        return InvalidJson();
      }
      st->conditions.push_back(std::move(c));
    }
  }
  st->condition_json = simdjson::minify(e);
  return Status::Ok();
}

Status ReadActions(const std::vector<std::string>& actions) {
  for (const std::string& a : actions) {
    if (a == "*") continue;
    size_t colon = a.find(':');
    if (colon == std::string::npos || colon == 0) {
      // IAM's policy-grammar text; the service's wrapping of it here is a guess.
      return InvalidDocument(
          "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.");
    }
  }
  return Status::Ok();
}

Result<PolicyStatement> ReadStatement(element e, std::string_view raw) {
  object o;
  if (e.get(o) != simdjson::SUCCESS) return InvalidJson();
  PolicyStatement st;
  bool has_effect = false, has_principal = false, has_action = false, has_resource = false;
  for (auto [key, value] : o) {
    if (key == "Sid") {
      std::string_view sid;
      if (value.get(sid) != simdjson::SUCCESS) return InvalidJson();
      st.sid = std::string(sid);
    } else if (key == "Effect") {
      std::string_view effect;
      if (value.get(effect) != simdjson::SUCCESS) return InvalidJson();
      if (!util::EqualsIgnoreCase(effect, "Allow") && !util::EqualsIgnoreCase(effect, "Deny")) {
        return InvalidDocument("Invalid effect: " + std::string(effect));  // a guess
      }
      st.allow = util::EqualsIgnoreCase(effect, "Allow");
      has_effect = true;
    } else if (key == "Principal" || key == "NotPrincipal") {
      if (has_principal) return InvalidJson();
      st.not_principal = key == "NotPrincipal";
      DDB_RETURN_IF_ERROR(ReadPrincipal(value, raw, &st));
      has_principal = true;
    } else if (key == "Action" || key == "NotAction") {
      if (has_action) return InvalidJson();
      st.not_action = key == "NotAction";
      if (!StringOrList(value, &st.actions)) return InvalidJson();
      DDB_RETURN_IF_ERROR(ReadActions(st.actions));
      has_action = true;
    } else if (key == "Resource" || key == "NotResource") {
      if (has_resource) return InvalidJson();
      st.not_resource = key == "NotResource";
      if (!StringOrList(value, &st.resources)) return InvalidJson();
      has_resource = true;
    } else if (key == "Condition") {
      DDB_RETURN_IF_ERROR(ReadCondition(value, &st));
    } else {
      return InvalidDocument("Unknown field " + std::string(key));  // a guess
    }
  }
  // "Missing required field Resource" is the service's; the others follow its pattern.
  if (!has_effect) return InvalidDocument("Missing required field Effect");
  if (!has_principal) return InvalidDocument("Missing required field Principal");
  if (!has_action) return InvalidDocument("Missing required field Action");
  if (!has_resource) return InvalidDocument("Missing required field Resource");
  return st;
}

// --- Evaluation helpers ---

bool PrincipalMatches(const PolicyStatement& st, const AccessRequest& req) {
  if (st.any_principal) return true;
  for (const std::string& p : st.principals) {
    if (p == req.principal_arn) return true;
    if (p == util::AccountRootArn(req.principal_account)) return true;
    // A role principal matches the sessions of the role.
    std::string_view account = AccountOfArn(p);
    const std::string role_prefix = util::Arn("iam", "", account, "role/");
    if (!account.empty() && p.starts_with(role_prefix)) {
      const std::string session =
          util::Arn("sts", "", account, "assumed-role/" + p.substr(p.rfind('/') + 1) + "/");
      if (req.principal_arn.starts_with(session)) return true;
    }
  }
  return false;
}

bool AnyMatches(const std::vector<std::string>& patterns, std::string_view text, bool ignore_case) {
  for (const std::string& p : patterns) {
    if (WildcardMatch(p, text, ignore_case)) return true;
  }
  return false;
}

enum class Truth { kFalse, kTrue, kUnknown };

const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> keys = {
      "aws:principalaccount",
      "aws:principalarn",
      "aws:sourceip",
      "aws:securetransport",
      "aws:currenttime",
      "aws:userid",
      "aws:username",
      "dynamodb:leadingkeys",
      "dynamodb:attributes",
      "dynamodb:select",
      "dynamodb:returnvalues",
      "dynamodb:returnconsumedcapacity",
      "dynamodb:enclosingoperation",
      "dynamodb:fulltablescan",
  };
  return keys;
}

// Parses "a.b.c.d[/n]" or an IPv6 form; false when it is neither.
bool ParseCidr(std::string_view text, int* family, unsigned char addr[16], int* bits) {
  std::string s(text);
  size_t slash = s.find('/');
  std::string host = s.substr(0, slash);
  *family = host.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (inet_pton(*family, host.c_str(), addr) != 1) return false;
  int max = *family == AF_INET ? 32 : 128;
  *bits = max;
  if (slash != std::string::npos) {
    char* end = nullptr;
    long b = std::strtol(s.c_str() + slash + 1, &end, 10);
    if (*end != '\0' || b < 0 || b > max) return false;
    *bits = static_cast<int>(b);
  }
  return true;
}

// nullopt: the value or the pattern is not an address.
std::optional<bool> InCidr(std::string_view ip, std::string_view cidr) {
  int f1, f2, bits1, bits2;
  unsigned char a[16], n[16];
  if (!ParseCidr(ip, &f1, a, &bits1) || !ParseCidr(cidr, &f2, n, &bits2)) return std::nullopt;
  if (f1 != f2) return false;
  for (int i = 0; i < bits2; ++i) {
    int mask = 0x80 >> (i % 8);
    if ((a[i / 8] & mask) != (n[i / 8] & mask)) return false;
  }
  return true;
}

// One value against one policy value under a base operator; nullopt when they cannot be
// compared (a number that is not one, an address that is not one).
std::optional<bool> Compare(std::string_view base, const std::string& value,
                            const std::string& pattern) {
  if (base == "StringEquals") return value == pattern;
  if (base == "StringEqualsIgnoreCase") return util::EqualsIgnoreCase(value, pattern);
  if (base == "StringLike") return WildcardMatch(pattern, value, false);
  if (base == "ArnEquals" || base == "ArnLike") return WildcardMatch(pattern, value, false);
  if (base == "Bool") return util::EqualsIgnoreCase(value, pattern);
  if (base == "IpAddress") return InCidr(value, pattern);
  if (base.starts_with("Numeric")) {
    char* e1 = nullptr;
    char* e2 = nullptr;
    double a = std::strtod(value.c_str(), &e1);
    double b = std::strtod(pattern.c_str(), &e2);
    if (value.empty() || pattern.empty() || *e1 != '\0' || *e2 != '\0') return std::nullopt;
    if (base == "NumericEquals") return a == b;
    if (base == "NumericLessThan") return a < b;
    if (base == "NumericLessThanEquals") return a <= b;
    if (base == "NumericGreaterThan") return a > b;
    if (base == "NumericGreaterThanEquals") return a >= b;
  }
  return std::nullopt;
}

// The positive operator of a negated one ("StringNotEquals" -> "StringEquals"), and
// whether it was negated. Unknown operators give "".
std::string_view BaseOperator(std::string_view op, bool* negated) {
  static const std::map<std::string_view, std::pair<std::string_view, bool>> ops = {
      {"StringEquals", {"StringEquals", false}},
      {"StringNotEquals", {"StringEquals", true}},
      {"StringEqualsIgnoreCase", {"StringEqualsIgnoreCase", false}},
      {"StringNotEqualsIgnoreCase", {"StringEqualsIgnoreCase", true}},
      {"StringLike", {"StringLike", false}},
      {"StringNotLike", {"StringLike", true}},
      {"ArnEquals", {"ArnEquals", false}},
      {"ArnNotEquals", {"ArnEquals", true}},
      {"ArnLike", {"ArnLike", false}},
      {"ArnNotLike", {"ArnLike", true}},
      {"NumericEquals", {"NumericEquals", false}},
      {"NumericNotEquals", {"NumericEquals", true}},
      {"NumericLessThan", {"NumericLessThan", false}},
      {"NumericLessThanEquals", {"NumericLessThanEquals", false}},
      {"NumericGreaterThan", {"NumericGreaterThan", false}},
      {"NumericGreaterThanEquals", {"NumericGreaterThanEquals", false}},
      {"Bool", {"Bool", false}},
      {"IpAddress", {"IpAddress", false}},
      {"NotIpAddress", {"IpAddress", true}},
  };
  auto it = ops.find(op);
  if (it == ops.end()) return {};
  *negated = it->second.second;
  return it->second.first;
}

// Whether one request value matches any of the policy's values (the positive operator).
std::optional<bool> MatchesAny(std::string_view base, const std::string& value,
                               const std::vector<std::string>& patterns) {
  bool any = false;
  for (const std::string& p : patterns) {
    std::optional<bool> r = Compare(base, value, p);
    if (!r) return std::nullopt;
    any = any || *r;
  }
  return any;
}

Truth EvaluateCondition(const PolicyCondition& c, const AccessRequest& req) {
  std::string_view op = c.op;
  enum class Set { kNone, kAll, kAny } set = Set::kNone;
  if (op.starts_with("ForAllValues:")) {
    set = Set::kAll;
    op.remove_prefix(13);
  } else if (op.starts_with("ForAnyValue:")) {
    set = Set::kAny;
    op.remove_prefix(12);
  }
  bool if_exists = op.ends_with("IfExists") && op != "IfExists";
  if (if_exists) op.remove_suffix(8);

  std::string key = util::AsciiLowerCopy(c.key);
  const std::vector<std::string>* values = nullptr;
  std::vector<std::string> derived;
  for (const auto& [k, v] : req.context) {
    if (util::AsciiLowerCopy(k) == key) values = &v;
  }
  if (!values && key == "aws:principalaccount" && !req.principal_account.empty()) {
    derived = {req.principal_account};
    values = &derived;
  }
  if (!values && key == "aws:principalarn" && !req.principal_arn.empty()) {
    derived = {req.principal_arn};
    values = &derived;
  }
  if (!values && !KnownKeys().count(key)) return Truth::kUnknown;

  if (op == "Null") {
    if (set != Set::kNone || if_exists || c.values.empty()) return Truth::kUnknown;
    bool want_absent = util::EqualsIgnoreCase(c.values[0], "true");
    if (!want_absent && !util::EqualsIgnoreCase(c.values[0], "false")) return Truth::kUnknown;
    bool absent = values == nullptr || values->empty();
    return absent == want_absent ? Truth::kTrue : Truth::kFalse;
  }
  bool negated = false;
  std::string_view base = BaseOperator(op, &negated);
  if (base.empty()) return Truth::kUnknown;

  if (values == nullptr || values->empty()) {
    // A missing key: IfExists and ForAllValues hold; a negated operator holds; others fail.
    if (if_exists || set == Set::kAll) return Truth::kTrue;
    if (set == Set::kAny) return Truth::kFalse;
    return negated ? Truth::kTrue : Truth::kFalse;
  }
  if (set == Set::kNone) {
    // A single-valued key; given several values, every one must satisfy the operator.
    for (const std::string& v : *values) {
      std::optional<bool> m = MatchesAny(base, v, c.values);
      if (!m) return Truth::kUnknown;
      if (*m == negated) return Truth::kFalse;
    }
    return Truth::kTrue;
  }
  bool all = true, any = false;
  for (const std::string& v : *values) {
    std::optional<bool> m = MatchesAny(base, v, c.values);
    if (!m) return Truth::kUnknown;
    bool ok = *m != negated;
    all = all && ok;
    any = any || ok;
  }
  return (set == Set::kAll ? all : any) ? Truth::kTrue : Truth::kFalse;
}

Truth EvaluateConditions(const PolicyStatement& st, const AccessRequest& req) {
  Truth result = Truth::kTrue;
  for (const PolicyCondition& c : st.conditions) {
    Truth t = EvaluateCondition(c, req);
    if (t == Truth::kFalse) return Truth::kFalse;  // one false condition settles it
    if (t == Truth::kUnknown) result = Truth::kUnknown;
  }
  return result;
}

// --- Put-time rules ---

// The DynamoDB Streams actions, which only a stream's policy may name.
bool IsStreamAction(std::string_view action) {
  std::string a = util::AsciiLowerCopy(action);
  return a == "dynamodb:describestream" || a == "dynamodb:getrecords" ||
         a == "dynamodb:getsharditerator" || a == "dynamodb:liststreams";
}

bool HasWildcard(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

// The part of an ARN after "arn:<partition>:<service>:<region>:<account>:".
std::string_view RelativeId(std::string_view arn) {
  size_t pos = 0;
  for (int i = 0; i < 5; ++i) {
    pos = arn.find(':', pos);
    if (pos == std::string_view::npos) return {};
    ++pos;
  }
  return arn.substr(pos);
}

Error RelativeIdInvalid(std::string_view resource) {
  // The service's text begins so; what follows "for ARN" is a guess (its record is cut).
  return InvalidDocument("The relative-id \"" + std::string(RelativeId(resource)) +
                         "\" is invalid for ARN \"" + std::string(resource) + "\"");
}

}  // namespace

bool WildcardMatch(std::string_view pattern, std::string_view text, bool ignore_case) {
  auto eq = [&](char a, char b) {
    return ignore_case ? util::AsciiLower(a) == util::AsciiLower(b) : a == b;
  };
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() &&
        (pattern[p] == '?' || (pattern[p] != '*' && eq(pattern[p], text[t])))) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<ParsedPolicy> ParsePolicy(std::string_view json) {
  thread_local simdjson::dom::parser parser;  // not json_reader's: the request stays valid
  element root;
  if (json.empty() || parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS) {
    return InvalidJson();
  }
  object doc;
  if (root.get(doc) != simdjson::SUCCESS) return InvalidJson();
  ParsedPolicy policy;
  policy.version =
      "2008-10-17";  // IAM's default, which the service shows for a document without one
  std::optional<element> statement;
  for (auto [key, value] : doc) {
    std::string_view s;
    if (key == "Version") {
      if (value.get(s) != simdjson::SUCCESS) return InvalidJson();
      if (s != "2012-10-17" && s != "2008-10-17") {
        return InvalidDocument("The policy must contain a valid version string");  // IAM's text
      }
      policy.version = std::string(s);
    } else if (key == "Id") {
      if (value.get(s) != simdjson::SUCCESS) return InvalidJson();
      policy.id = std::string(s);
    } else if (key == "Statement") {
      statement = value;
    } else {
      return InvalidDocument("Unknown field " + std::string(key));  // a guess
    }
  }
  if (!statement) return InvalidDocument("Missing required field Statement");  // a guess
  array list;
  if (statement->get(list) == simdjson::SUCCESS) {
    if (list.size() == 0) return InvalidDocument("Could not parse the policy: Statement is empty!");
    for (element e : list) {
      DDB_ASSIGN_OR_RETURN(PolicyStatement st, ReadStatement(e, json));
      policy.statements.push_back(std::move(st));
    }
  } else {
    DDB_ASSIGN_OR_RETURN(PolicyStatement st, ReadStatement(*statement, json));
    policy.statements.push_back(std::move(st));
  }
  std::set<std::string> sids;
  for (const PolicyStatement& st : policy.statements) {
    if (st.sid.empty()) continue;
    if (!sids.insert(st.sid).second) {
      return InvalidDocument("The Statement Ids in the policy are not unique");
    }
  }
  return policy;
}

Status ValidatePolicyFor(const ParsedPolicy& policy, std::string_view resource_arn) {
  bool stream_target = resource_arn.find("/stream/") != std::string_view::npos;
  for (const PolicyStatement& st : policy.statements) {
    if (st.allow && st.any_principal && !st.not_principal && st.conditions.empty()) {
      return Error::Validation(
          "Resource-based policy grants unbounded access in one or more elements. Please revise "
          "the policy to ensure least-privilege form of access");
    }
    if (st.not_action) continue;
    if (!stream_target) {
      // A table's policy: no stream actions, no stream resources.
      std::vector<std::string> invalid;
      for (const std::string& a : st.actions) {
        if (IsStreamAction(a)) invalid.push_back("\"" + a + "\"");
      }
      if (!invalid.empty()) {
        std::string names;
        for (const std::string& n : invalid) names += (names.empty() ? "" : ", ") + n;
        return InvalidDocument("The following action names are invalid: " + names);
      }
      for (const std::string& r : st.resources) {
        if (!HasWildcard(r) && r.find("/stream/") != std::string::npos) return RelativeIdInvalid(r);
      }
    } else {
      // A stream's policy: stream actions on stream resources only.
      bool table_action =
          std::any_of(st.actions.begin(), st.actions.end(), [](const std::string& a) {
            return !HasWildcard(a) && util::AsciiLowerCopy(a).starts_with("dynamodb:") &&
                   !IsStreamAction(a);
          });
      for (const std::string& r : st.resources) {
        if (HasWildcard(r) || !r.starts_with("arn:")) continue;
        if (table_action || r.find("/stream/") == std::string::npos) return RelativeIdInvalid(r);
      }
    }
  }
  return Status::Ok();
}

std::string CanonicalPolicyJson(const ParsedPolicy& policy) {
  JsonWriter w;
  auto one_or_list = [&w](const std::vector<std::string>& list) {
    if (list.size() == 1) {
      w.String(list[0]);
      return;
    }
    w.BeginArray();
    for (const std::string& s : list) w.String(s);
    w.EndArray();
  };
  w.BeginObject();
  w.Key("Version");
  w.String(policy.version);
  w.OptionalString("Id", policy.id);
  w.Key("Statement");
  w.BeginArray();
  for (const PolicyStatement& st : policy.statements) {
    w.BeginObject();
    w.NonEmptyString("Sid", st.sid);
    w.Key("Effect");
    w.String(st.allow ? "Allow" : "Deny");
    w.Key(st.not_principal ? "NotPrincipal" : "Principal");
    if (st.any_principal && st.principals.empty()) {
      w.String("*");
    } else {
      w.BeginObject();
      std::vector<std::string> aws;
      if (st.any_principal) aws.push_back("*");
      std::map<std::string, std::vector<std::string>> others;
      for (const std::string& p : st.principals) {
        size_t colon = p.find(':');
        std::string kind = p.substr(0, colon);
        if (kind == "Service" || kind == "Federated" || kind == "CanonicalUser") {
          others[kind].push_back(p.substr(colon + 1));
        } else {
          aws.push_back(p);
        }
      }
      if (!aws.empty()) {
        w.Key("AWS");
        one_or_list(aws);
      }
      for (const auto& [kind, list] : others) {
        w.Key(kind);
        one_or_list(list);
      }
      w.EndObject();
    }
    w.Key(st.not_action ? "NotAction" : "Action");
    one_or_list(st.actions);
    w.Key(st.not_resource ? "NotResource" : "Resource");
    one_or_list(st.resources);
    if (!st.condition_json.empty()) {
      w.Key("Condition");
      w.RawValue() += st.condition_json;
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

PolicyDecision EvaluatePolicy(const ParsedPolicy& policy, const AccessRequest& req) {
  bool allowed = false;
  for (const PolicyStatement& st : policy.statements) {
    if (PrincipalMatches(st, req) == st.not_principal) continue;
    if (AnyMatches(st.actions, req.action, /*ignore_case=*/true) == st.not_action) continue;
    if (AnyMatches(st.resources, req.resource_arn, /*ignore_case=*/false) == st.not_resource) {
      continue;
    }
    Truth t = EvaluateConditions(st, req);
    if (!st.allow && t != Truth::kFalse) return PolicyDecision::kExplicitDeny;
    if (st.allow && t == Truth::kTrue) allowed = true;
  }
  return allowed ? PolicyDecision::kAllow : PolicyDecision::kNoMatch;
}

PolicyDecision EvaluatePolicy(std::string_view policy_json, const AccessRequest& req) {
  Result<ParsedPolicy> policy = ParsePolicy(policy_json);
  if (!policy.ok()) return PolicyDecision::kExplicitDeny;
  return EvaluatePolicy(*policy, req);
}

std::string AccessDeniedMessage(const AccessRequest& req, PolicyDecision decision) {
  std::string m = "User: " + req.principal_arn + " is not authorized to perform: " + req.action +
                  " on resource: " + req.resource_arn;
  if (decision == PolicyDecision::kExplicitDeny) {
    return m + " with an explicit deny in a resource-based policy";
  }
  return m + " because no resource-based policy allows the " + req.action + " action";
}

Error AccessDenied(const AccessRequest& req, PolicyDecision decision) {
  return Error(ErrorCode::kAccessDenied, AccessDeniedMessage(req, decision));
}

Error SelfLockout() {
  return Error(ErrorCode::kAccessDenied,
               "The new resource policy will not allow you to update the resource policy in the "
               "future.");
}

}  // namespace ddb::protocol
