#include "protocol/resource_policy.h"

#include <gtest/gtest.h>

namespace ddb::protocol {
namespace {

constexpr const char* kTable = "arn:aws:dynamodb:us-east-1:111111111111:table/orders";
constexpr const char* kIndex = "arn:aws:dynamodb:us-east-1:111111111111:table/orders/index/byDate";
constexpr const char* kStream =
    "arn:aws:dynamodb:us-east-1:111111111111:table/orders/stream/2026-01-01T00:00:00.000";

AccessRequest Req(std::string action = "dynamodb:GetItem", std::string resource = kTable) {
  AccessRequest r;
  r.principal_account = "222222222222";
  r.principal_arn = "arn:aws:iam::222222222222:user/alice";
  r.action = std::move(action);
  r.resource_arn = std::move(resource);
  return r;
}

// A one-statement document.
std::string Doc(std::string_view effect, std::string_view principal, std::string_view action,
                std::string_view resource, std::string_view condition = "") {
  std::string s = R"({"Version":"2012-10-17","Statement":{"Effect":")" + std::string(effect) +
                  R"(","Principal":)" + std::string(principal) + R"(,"Action":)" +
                  std::string(action) + R"(,"Resource":)" + std::string(resource);
  if (!condition.empty()) s += R"(,"Condition":)" + std::string(condition);
  return s + "}}";
}

const std::string kAlice = R"({"AWS":"arn:aws:iam::222222222222:user/alice"})";
const std::string kAccount2 = R"({"AWS":"222222222222"})";
const std::string kTableJson = std::string("\"") + kTable + "\"";

PolicyDecision Eval(const std::string& doc, const AccessRequest& req = Req()) {
  return EvaluatePolicy(doc, req);
}

TEST(ResourcePolicy, Wildcards) {
  EXPECT_TRUE(WildcardMatch("dynamodb:Get*", "dynamodb:GetItem", true));
  EXPECT_TRUE(WildcardMatch("dynamodb:get*", "dynamodb:GetItem", true));
  EXPECT_FALSE(WildcardMatch("dynamodb:get*", "dynamodb:GetItem", false));
  EXPECT_TRUE(WildcardMatch("dynamodb:?etItem", "dynamodb:GetItem", false));
  EXPECT_FALSE(WildcardMatch("dynamodb:?Item", "dynamodb:GetItem", false));
  EXPECT_TRUE(WildcardMatch("*", "", false));
  EXPECT_TRUE(WildcardMatch("a*b*c", "aXXbYYc", false));
  EXPECT_FALSE(WildcardMatch("a*b*c", "aXXbYY", false));
}

TEST(ResourcePolicy, PrincipalForms) {
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"dynamodb:GetItem\"", kTableJson)), PolicyDecision::kAllow);
  EXPECT_EQ(Eval(Doc("Allow", kAccount2, "\"dynamodb:GetItem\"", kTableJson)),
            PolicyDecision::kAllow);
  EXPECT_EQ(Eval(Doc("Allow", R"({"AWS":"arn:aws:iam::222222222222:root"})", "\"dynamodb:GetItem\"",
                     kTableJson)),
            PolicyDecision::kAllow);
  EXPECT_EQ(
      Eval(Doc(
          "Allow",
          R"({"AWS":["arn:aws:iam::333333333333:root","arn:aws:iam::222222222222:user/alice"]})",
          "\"dynamodb:GetItem\"", kTableJson)),
      PolicyDecision::kAllow);
  EXPECT_EQ(Eval(Doc("Allow", R"({"AWS":"arn:aws:iam::222222222222:user/bob"})",
                     "\"dynamodb:GetItem\"", kTableJson)),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(Doc("Allow", R"({"AWS":"333333333333"})", "\"dynamodb:GetItem\"", kTableJson)),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(Doc("Deny", "\"*\"", "\"dynamodb:GetItem\"", kTableJson)),
            PolicyDecision::kExplicitDeny);
  EXPECT_EQ(Eval(Doc("Deny", R"({"AWS":"*"})", "\"dynamodb:GetItem\"", kTableJson)),
            PolicyDecision::kExplicitDeny);
  // A role principal covers the role's sessions.
  AccessRequest session = Req();
  session.principal_arn = "arn:aws:sts::222222222222:assumed-role/reader/s1";
  EXPECT_EQ(Eval(Doc("Allow", R"({"AWS":"arn:aws:iam::222222222222:role/reader"})",
                     "\"dynamodb:GetItem\"", kTableJson),
                 session),
            PolicyDecision::kAllow);
  // Service principals are no caller of this server.
  EXPECT_EQ(Eval(Doc("Allow", R"({"Service":"lambda.amazonaws.com"})", "\"dynamodb:GetItem\"",
                     kTableJson)),
            PolicyDecision::kNoMatch);
}

TEST(ResourcePolicy, NotPrincipal) {
  std::string doc = R"({"Version":"2012-10-17","Statement":[{"Effect":"Deny",
      "NotPrincipal":{"AWS":"arn:aws:iam::222222222222:user/alice"},
      "Action":"dynamodb:*","Resource":"*"}]})";
  EXPECT_EQ(Eval(doc), PolicyDecision::kNoMatch);
  AccessRequest bob = Req();
  bob.principal_arn = "arn:aws:iam::222222222222:user/bob";
  EXPECT_EQ(Eval(doc, bob), PolicyDecision::kExplicitDeny);
}

TEST(ResourcePolicy, ActionsAndNotAction) {
  EXPECT_EQ(Eval(Doc("Allow", kAlice, R"(["dynamodb:Query","dynamodb:Get*"])", kTableJson)),
            PolicyDecision::kAllow);
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"DynamoDB:getitem\"", kTableJson)),
            PolicyDecision::kAllow);  // action names are case-insensitive
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"dynamodb:PutItem\"", kTableJson)),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"*\"", kTableJson)), PolicyDecision::kAllow);
  std::string not_action = R"({"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*",
      "NotAction":["dynamodb:GetItem","dynamodb:Query"],"Resource":"*"}})";
  EXPECT_EQ(Eval(not_action), PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(not_action, Req("dynamodb:PutItem")), PolicyDecision::kExplicitDeny);
}

TEST(ResourcePolicy, ResourcesIndexesStreams) {
  std::string doc =
      Doc("Allow", kAlice, "\"dynamodb:Query\"", std::string("\"") + kTable + "/index/*\"");
  EXPECT_EQ(Eval(doc, Req("dynamodb:Query", kIndex)), PolicyDecision::kAllow);
  EXPECT_EQ(Eval(doc, Req("dynamodb:Query", kTable)), PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"dynamodb:GetRecords\"",
                     "\"arn:aws:dynamodb:us-east-1:111111111111:table/orders/stream/*\""),
                 Req("dynamodb:GetRecords", kStream)),
            PolicyDecision::kAllow);
  // Resource ARNs are case-sensitive.
  EXPECT_EQ(Eval(Doc("Allow", kAlice, "\"dynamodb:GetItem\"",
                     "\"arn:aws:dynamodb:us-east-1:111111111111:table/ORDERS\"")),
            PolicyDecision::kNoMatch);
  std::string not_resource =
      R"({"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":"*",
      "Action":"dynamodb:*","NotResource":")" +
      std::string(kTable) + R"("}})";
  EXPECT_EQ(Eval(not_resource), PolicyDecision::kNoMatch);
  EXPECT_EQ(Eval(not_resource, Req("dynamodb:Query", kIndex)), PolicyDecision::kExplicitDeny);
}

TEST(ResourcePolicy, ExplicitDenyWins) {
  std::string doc = R"({"Version":"2012-10-17","Statement":[
      {"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":"dynamodb:*","Resource":"*"},
      {"Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteItem","Resource":"*"}]})";
  EXPECT_EQ(Eval(doc), PolicyDecision::kAllow);
  EXPECT_EQ(Eval(doc, Req("dynamodb:DeleteItem")), PolicyDecision::kExplicitDeny);
}

PolicyDecision EvalCondition(std::string_view condition, const AccessRequest& req,
                             std::string_view effect = "Allow") {
  return Eval(Doc(effect, kAlice, "\"dynamodb:GetItem\"", kTableJson, condition), req);
}

AccessRequest With(std::string key, std::vector<std::string> values) {
  AccessRequest r = Req();
  r.context[std::move(key)] = std::move(values);
  return r;
}

TEST(ResourcePolicy, StringConditions) {
  AccessRequest r = With("dynamodb:Select", {"SPECIFIC_ATTRIBUTES"});
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"dynamodb:Select":["ALL_ATTRIBUTES","COUNT"]}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"StringNotEquals":{"dynamodb:Select":"ALL_ATTRIBUTES"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(
      EvalCondition(R"({"StringEqualsIgnoreCase":{"dynamodb:select":"specific_attributes"}})", r),
      PolicyDecision::kAllow);  // keys are case-insensitive too
  EXPECT_EQ(EvalCondition(R"({"StringLike":{"dynamodb:Select":"SPECIFIC_*"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"StringNotLike":{"dynamodb:Select":"SPECIFIC_*"}})", r),
            PolicyDecision::kNoMatch);
  // aws:PrincipalAccount and aws:PrincipalArn come from the request itself.
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"aws:PrincipalAccount":"222222222222"}})", Req()),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::222222222222:user/*"}})",
                          Req()),
            PolicyDecision::kAllow);
  EXPECT_EQ(
      EvalCondition(R"({"ArnEquals":{"aws:PrincipalArn":"arn:aws:iam::222222222222:user/bob"}})",
                    Req()),
      PolicyDecision::kNoMatch);
  // Several operators and keys must all hold.
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES",
                                               "aws:PrincipalAccount":"999999999999"}})",
                          r),
            PolicyDecision::kNoMatch);
}

TEST(ResourcePolicy, MissingKeysAndIfExists) {
  AccessRequest r = Req();
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"dynamodb:Select":"COUNT"}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"StringEqualsIfExists":{"dynamodb:Select":"COUNT"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"StringNotEquals":{"dynamodb:Select":"COUNT"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"Null":{"dynamodb:Select":"true"}})", r), PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"Null":{"dynamodb:Select":"false"}})", r), PolicyDecision::kNoMatch);
  AccessRequest given = With("dynamodb:Select", {"COUNT"});
  EXPECT_EQ(
      EvalCondition(R"({"StringEqualsIfExists":{"dynamodb:Select":"ALL_ATTRIBUTES"}})", given),
      PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"Null":{"dynamodb:Select":"false"}})", given),
            PolicyDecision::kAllow);
}

TEST(ResourcePolicy, SetOperators) {
  AccessRequest r = With("dynamodb:LeadingKeys", {"alice", "alice#2"});
  EXPECT_EQ(EvalCondition(R"({"ForAllValues:StringLike":{"dynamodb:LeadingKeys":["alice*"]}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["alice"]}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"ForAnyValue:StringEquals":{"dynamodb:LeadingKeys":["alice"]}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"ForAnyValue:StringEquals":{"dynamodb:LeadingKeys":["bob"]}})", r),
            PolicyDecision::kNoMatch);
  AccessRequest attrs = With("dynamodb:Attributes", {"pk", "name"});
  EXPECT_EQ(
      EvalCondition(
          R"({"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","name","email"]}})", attrs),
      PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk"]}})", attrs),
            PolicyDecision::kNoMatch);
  // ForAllValues holds over no values; ForAnyValue does not.
  EXPECT_EQ(EvalCondition(R"({"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk"]}})", Req()),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"ForAnyValue:StringEquals":{"dynamodb:Attributes":["pk"]}})", Req()),
            PolicyDecision::kNoMatch);
}

TEST(ResourcePolicy, IpNumericBool) {
  AccessRequest r = With("aws:SourceIp", {"10.1.2.3"});
  EXPECT_EQ(EvalCondition(R"({"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"IpAddress":{"aws:SourceIp":["192.168.0.0/16","10.1.2.3"]}})", r),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"IpAddress":{"aws:SourceIp":"2001:db8::/32"}})",
                          With("aws:SourceIp", {"2001:db8::1"})),
            PolicyDecision::kAllow);
  AccessRequest n = With("aws:RequestCount", {"5"});  // a key given by the caller is known
  EXPECT_EQ(EvalCondition(R"({"NumericLessThan":{"aws:RequestCount":10}})", n),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"NumericGreaterThanEquals":{"aws:RequestCount":"5"}})", n),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"NumericEquals":{"aws:RequestCount":"6"}})", n),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"NumericNotEquals":{"aws:RequestCount":"6"}})", n),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"Bool":{"aws:SecureTransport":true}})",
                          With("aws:SecureTransport", {"true"})),
            PolicyDecision::kAllow);
  EXPECT_EQ(EvalCondition(R"({"Bool":{"aws:SecureTransport":"true"}})",
                          With("aws:SecureTransport", {"false"})),
            PolicyDecision::kNoMatch);
}

TEST(ResourcePolicy, UnknownConditionsFailClosed) {
  AccessRequest r = Req();
  // An unknown operator or key never grants...
  EXPECT_EQ(EvalCondition(R"({"StringSoundsLike":{"dynamodb:Select":"COUNT"}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"aws:MadeUpKey":"x"}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"StringNotEqualsIfExists":{"aws:MadeUpKey":"x"}})", r),
            PolicyDecision::kNoMatch);
  EXPECT_EQ(EvalCondition(R"({"DateGreaterThan":{"aws:CurrentTime":"2020-01-01T00:00:00Z"}})", r),
            PolicyDecision::kNoMatch);
  // ...and always lets a Deny apply.
  EXPECT_EQ(EvalCondition(R"({"StringSoundsLike":{"dynamodb:Select":"COUNT"}})", r, "Deny"),
            PolicyDecision::kExplicitDeny);
  EXPECT_EQ(EvalCondition(R"({"StringEquals":{"aws:MadeUpKey":"x"}})", r, "Deny"),
            PolicyDecision::kExplicitDeny);
  EXPECT_EQ(EvalCondition(R"({"NumericLessThan":{"aws:RequestCount":"ten"}})",
                          With("aws:RequestCount", {"5"}), "Deny"),
            PolicyDecision::kExplicitDeny);
  // An unparseable document denies.
  EXPECT_EQ(EvaluatePolicy(std::string_view("{not json"), r), PolicyDecision::kExplicitDeny);
}

std::string Rejection(std::string_view doc, std::string_view resource = kTable) {
  Result<ParsedPolicy> p = ParsePolicy(doc);
  if (!p.ok()) return p.error().message();
  Status s = ValidatePolicyFor(*p, resource);
  return s.ok() ? "" : s.error().message();
}

TEST(ResourcePolicy, ParseErrorsAreTheServices) {
  const std::string prefix = "One or more parameter values were invalid: Invalid policy document: ";
  EXPECT_EQ(Rejection(""), prefix + "This policy contains invalid Json");
  EXPECT_EQ(Rejection("{not json"), prefix + "This policy contains invalid Json");
  EXPECT_EQ(Rejection(R"({"Version":"2012-10-17","Statement":[]})"),
            prefix + "Could not parse the policy: Statement is empty!");
  EXPECT_EQ(
      Rejection(
          R"({"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":"dynamodb:GetItem"}})"),
      prefix + "Missing required field Resource");
  EXPECT_EQ(Rejection(R"({"Version":"2012-10-17","Statement":[
      {"Sid":"a","Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":"dynamodb:GetItem","Resource":"*"},
      {"Sid":"a","Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":"dynamodb:Query","Resource":"*"}]})"),
            prefix + "The Statement Ids in the policy are not unique");
  EXPECT_EQ(Rejection(Doc("Allow", "\"*\"", "\"dynamodb:GetItem\"", kTableJson)),
            "Resource-based policy grants unbounded access in one or more elements. Please revise "
            "the policy to ensure least-privilege form of access");
  EXPECT_EQ(Rejection(Doc("Allow", R"({"AWS":"*"})", "\"dynamodb:GetItem\"", kTableJson)),
            "Resource-based policy grants unbounded access in one or more elements. Please revise "
            "the policy to ensure least-privilege form of access");
  EXPECT_EQ(Rejection(Doc("Deny", "\"*\"", "\"dynamodb:GetItem\"", kTableJson)), "");
  EXPECT_EQ(Rejection(Doc("Allow", R"({"AWS":"someone"})", "\"dynamodb:GetItem\"", kTableJson)),
            "One or more parameter values were invalid: Invalid principal in policy document.");
  EXPECT_EQ(Rejection(Doc("Allow", kAccount2,
                          R"(["dynamodb:GetRecords","dynamodb:DescribeStream"])", kTableJson)),
            prefix +
                "The following action names are invalid: \"dynamodb:GetRecords\", "
                "\"dynamodb:DescribeStream\"");
  EXPECT_EQ(Rejection(Doc("Allow", kAccount2, "\"dynamodb:GetItem\"",
                          std::string("\"") + kStream + "\"")),
            prefix +
                "The relative-id \"table/orders/stream/2026-01-01T00:00:00.000\" is invalid for "
                "ARN \"" +
                kStream + "\"");
  // A stream's policy takes stream actions on the stream.
  EXPECT_EQ(Rejection(Doc("Allow", kAccount2, "\"dynamodb:GetRecords\"",
                          std::string("\"") + kStream + "\""),
                      kStream),
            "");
  EXPECT_NE(
      Rejection(Doc("Allow", kAccount2, "\"dynamodb:GetItem\"", std::string("\"") + kStream + "\""),
                kStream),
      "");
  // Another table, "*" and an index are accepted on a table, as the service does.
  EXPECT_EQ(Rejection(Doc("Allow", kAccount2, "\"dynamodb:GetItem\"",
                          "\"arn:aws:dynamodb:us-east-1:111111111111:table/other\"")),
            "");
  EXPECT_EQ(
      Rejection(Doc("Allow", kAccount2, "\"dynamodb:Query\"", std::string("\"") + kIndex + "\"")),
      "");
}

TEST(ResourcePolicy, CanonicalForm) {
  Result<ParsedPolicy> p = ParsePolicy(R"({ "Statement": {
      "Resource": [")" + std::string(kTable) +
                                       R"("], "Action": ["dynamodb:GetItem"],
      "Effect": "allow", "Principal": {"AWS": ["222222222222", "arn:aws:iam::222222222222:root"]},
      "Sid": "s1", "Condition": {"StringEquals": {"dynamodb:Select": "COUNT"}} } })");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(
      CanonicalPolicyJson(*p),
      std::string(
          R"({"Version":"2008-10-17","Statement":[{"Sid":"s1","Effect":"Allow",)"
          R"("Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Action":"dynamodb:GetItem",)"
          R"("Resource":")") +
          kTable + R"(","Condition":{"StringEquals":{"dynamodb:Select":"COUNT"}}}]})");
  // The canonical form parses to itself.
  Result<ParsedPolicy> again = ParsePolicy(CanonicalPolicyJson(*p));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(CanonicalPolicyJson(*again), CanonicalPolicyJson(*p));
}

TEST(ResourcePolicy, AccessDeniedMessages) {
  AccessRequest r = Req("dynamodb:PutItem");
  EXPECT_EQ(AccessDeniedMessage(r, PolicyDecision::kNoMatch),
            std::string("User: arn:aws:iam::222222222222:user/alice is not authorized to perform: "
                        "dynamodb:PutItem on resource: ") +
                kTable + " because no resource-based policy allows the dynamodb:PutItem action");
  EXPECT_EQ(AccessDeniedMessage(r, PolicyDecision::kExplicitDeny),
            std::string("User: arn:aws:iam::222222222222:user/alice is not authorized to perform: "
                        "dynamodb:PutItem on resource: ") +
                kTable + " with an explicit deny in a resource-based policy");
  EXPECT_EQ(AccessDenied(r, PolicyDecision::kNoMatch).code(), ErrorCode::kAccessDenied);
  EXPECT_EQ(
      SelfLockout().message(),
      "The new resource policy will not allow you to update the resource policy in the future.");
}

}  // namespace
}  // namespace ddb::protocol
