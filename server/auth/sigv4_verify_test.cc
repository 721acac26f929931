#include "server/auth/sigv4_verify.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/digest.h"

namespace ddb::server {
namespace {

using std::chrono::system_clock;

// The AWS SigV4 test suite's credentials and date (its README: AKIDEXAMPLE,
// wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, 20150830T123600Z, us-east-1, service "service").
constexpr std::string_view kSuiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kEmptyHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string Canonical(std::string_view method, std::string_view target,
                      std::vector<HeaderField> headers, std::vector<std::string> signed_headers) {
  SignedRequest request{.method = method, .target = target, .headers = headers, .body = ""};
  Result<std::string> c = CanonicalRequest(request, signed_headers, kEmptyHash);
  EXPECT_TRUE(c.ok()) << c.error().message();
  return c.ok() ? *c : "";
}

TEST(SigV4Verify, SigningKeyOfTheIamDocumentationExample) {
  const std::string key = DeriveSigningKey(kSuiteSecret, "20150830", "us-east-1", "iam");
  std::string hex;
  for (unsigned char c : key) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  EXPECT_EQ(hex, "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
}

// get-vanilla: GET / with Host and X-Amz-Date, end to end to the published signature.
TEST(SigV4Verify, GetVanillaOfTheTestSuite) {
  const std::string canonical =
      Canonical("GET", "/", {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
                {"host", "x-amz-date"});
  EXPECT_EQ(canonical,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" +
                std::string(kEmptyHash));
  EXPECT_EQ(util::Sha256Hex(canonical),
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  const std::string sts =
      StringToSign("20150830T123600Z", "20150830/us-east-1/service/aws4_request", canonical);
  EXPECT_EQ(
      util::HmacSha256Hex(DeriveSigningKey(kSuiteSecret, "20150830", "us-east-1", "service"), sts),
      "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

// The suite's canonicalisation cases, by their descriptions.
TEST(SigV4Verify, CanonicalUriNormalisesAndEncodes) {
  EXPECT_EQ(CanonicalUri(""), "/");
  EXPECT_EQ(CanonicalUri("/"), "/");
  EXPECT_EQ(CanonicalUri("/example space/"), "/example%20space/");  // get-space
  EXPECT_EQ(CanonicalUri("//example//"), "/example/");              // get-slashes
  EXPECT_EQ(CanonicalUri("/example1/example2/../.."), "/");         // get-relative-relative
  EXPECT_EQ(CanonicalUri("/example/.."), "/");                      // get-relative
  EXPECT_EQ(CanonicalUri("/./"), "/");                              // get-slash-dot-slash
  EXPECT_EQ(CanonicalUri("/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");  // unreserved
  EXPECT_EQ(CanonicalUri("/%E1%88%B4"), "/%25E1%2588%25B4");  // encoded once more (not S3)
}

TEST(SigV4Verify, CanonicalQuerySortsDecodesAndReencodes) {
  EXPECT_EQ(CanonicalQuery("Param2=value2&Param1=value1"), "Param1=value1&Param2=value2");
  EXPECT_EQ(CanonicalQuery("Param1=value2&Param1=Value1"), "Param1=Value1&Param1=value2");
  EXPECT_EQ(CanonicalQuery("Param1=value1"), "Param1=value1");
  EXPECT_EQ(CanonicalQuery("%E1%88%B4=bar"), "%E1%88%B4=bar");  // get-vanilla-utf8-query
  EXPECT_EQ(CanonicalQuery("a=b c&flag"), "a=b%20c&flag=");
  EXPECT_EQ(CanonicalQuery("k=%2a+x"), "k=%2A%2Bx");  // hex case; '+' is not a space here
  EXPECT_EQ(CanonicalQuery("X-Amz-Signature=abc&X-Amz-Date=1"), "X-Amz-Date=1");
}

TEST(SigV4Verify, CanonicalHeadersFoldAndJoin) {
  // get-header-value-trim and get-header-key-duplicate.
  EXPECT_EQ(Canonical("GET", "/",
                      {{"Host", "example.amazonaws.com"},
                       {"My-Header1", " value1"},
                       {"My-Header2", "\"a   b   c\""},
                       {"my-header1", "value2 "}},
                      {"host", "my-header1", "my-header2"}),
            "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1,value2\n"
            "my-header2:\"a b c\"\n\nhost;my-header1;my-header2\n" +
                std::string(kEmptyHash));
}

TEST(SigV4Verify, SignedHeaderMissingFromTheRequest) {
  std::vector<HeaderField> headers = {{"Host", "h"}};
  std::vector<std::string> names = {"host", "x-amz-target"};
  SignedRequest request{.method = "POST", .target = "/", .headers = headers, .body = ""};
  Result<std::string> c = CanonicalRequest(request, names, kEmptyHash);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(c.error().message(),
            "'x-amz-target' is named as a SignedHeader, but it does not exist in the HTTP "
            "request.");
}

// A request signed as the SDKs sign, built with the functions above.
struct Signer {
  std::string key_id = "AKIDTEST";
  std::string secret = "secret";
  std::string region = "us-east-1";
  std::string date = "20261201T150000Z";
  std::string body = "{}";
  std::string token;
  std::vector<std::pair<std::string, std::string>> extra;

  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<HeaderField> headers;

  SignedRequest Sign() {
    fields = {{"Host", "127.0.0.1:8000"},
              {"X-Amz-Date", date},
              {"X-Amz-Target", "DynamoDB_20120810.ListTables"}};
    if (!token.empty()) fields.emplace_back("X-Amz-Security-Token", token);
    for (auto& f : extra) fields.push_back(f);
    std::vector<std::string> names = {"host", "x-amz-date", "x-amz-target"};
    headers.clear();
    for (auto& [n, v] : fields) headers.push_back({n, v});
    SignedRequest request{.method = "POST", .target = "/", .headers = headers, .body = body};
    const std::string canonical = CanonicalRequest(request, names, util::Sha256Hex(body)).value();
    const std::string scope = date.substr(0, 8) + "/" + region + "/dynamodb/aws4_request";
    const std::string sig =
        util::HmacSha256Hex(DeriveSigningKey(secret, date.substr(0, 8), region, "dynamodb"),
                            StringToSign(date, scope, canonical));
    fields.emplace_back("Authorization",
                        "AWS4-HMAC-SHA256 Credential=" + key_id + "/" + scope +
                            ", SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + sig);
    headers.clear();
    for (auto& [n, v] : fields) headers.push_back({n, v});
    request.headers = headers;
    return request;
  }
};

system_clock::time_point At(int64_t seconds) {
  return system_clock::time_point(std::chrono::seconds(seconds));
}
constexpr int64_t k20261201T150000Z = 1796137200;

class VerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(keys_
                    .AddIniText("[a]\naws_access_key_id=AKIDTEST\naws_secret_access_key=secret\n"
                                "account_id=111122223333\n"
                                "[t]\naws_access_key_id=AKIDTOKEN\naws_secret_access_key=s2\n"
                                "aws_session_token=tok\n",
                                "test")
                    .ok());
  }
  Result<VerifiedCaller> Verify(const SignedRequest& r, int64_t now = k20261201T150000Z) {
    return verifier_.Verify(r, At(now));
  }
  CredentialStore keys_;
  SignatureVerifier verifier_{&keys_};
};

TEST_F(VerifierTest, AcceptsAGoodSignature) {
  Signer s;
  Result<VerifiedCaller> caller = Verify(s.Sign());
  ASSERT_TRUE(caller.ok()) << caller.error().message();
  EXPECT_EQ(caller->key->account_id, "111122223333");
  EXPECT_EQ(caller->key->principal_arn, "arn:aws:iam::111122223333:user/a");
  EXPECT_EQ(caller->region, "us-east-1");
  ASSERT_TRUE(Verify(s.Sign()).ok());  // again, from the signing-key cache
}

TEST_F(VerifierTest, WrongSecretShowsTheCanonicalRequest) {
  Signer s;
  s.secret = "wrong";
  Result<VerifiedCaller> caller = Verify(s.Sign());
  ASSERT_FALSE(caller.ok());
  EXPECT_EQ(caller.error().code(), ErrorCode::kInvalidSignature);
  const std::string& m = caller.error().message();
  EXPECT_TRUE(
      m.starts_with("The request signature we calculated does not match the signature "
                    "you provided. Check your AWS Secret Access Key and signing method. "
                    "Consult the service documentation for details.\n\nThe Canonical "
                    "String for this request should have been\n'POST\n/\n\nhost:"))
      << m;
  EXPECT_NE(m.find("'\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n"
                   "20261201T150000Z\n20261201/us-east-1/dynamodb/aws4_request\n"),
            std::string::npos)
      << m;
}

TEST_F(VerifierTest, TamperedBodyFails) {
  Signer s;
  SignedRequest r = s.Sign();
  r.body = "{\"Limit\":1}";
  EXPECT_EQ(Verify(r).error().code(), ErrorCode::kInvalidSignature);
}

TEST_F(VerifierTest, UnknownKey) {
  Signer s;
  s.key_id = "AKIDNOBODY";
  Result<VerifiedCaller> caller = Verify(s.Sign());
  EXPECT_EQ(caller.error().code(), ErrorCode::kUnrecognizedClient);
  EXPECT_EQ(caller.error().message(), "The security token included in the request is invalid.");
}

TEST_F(VerifierTest, SessionTokens) {
  Signer s;
  s.key_id = "AKIDTOKEN";
  s.secret = "s2";
  s.token = "tok";
  EXPECT_TRUE(Verify(s.Sign()).ok());
  s.token = "other";
  EXPECT_EQ(Verify(s.Sign()).error().message(),
            "The security token included in the request is invalid");
  s.token = "";
  EXPECT_EQ(Verify(s.Sign()).error().code(), ErrorCode::kUnrecognizedClient);
  Signer plain;  // a long-term key sent with a token
  plain.token = "tok";
  EXPECT_EQ(Verify(plain.Sign()).error().code(), ErrorCode::kUnrecognizedClient);
}

TEST_F(VerifierTest, ClockSkew) {
  Signer s;
  EXPECT_TRUE(Verify(s.Sign(), k20261201T150000Z + 15 * 60).ok());
  Result<VerifiedCaller> late = Verify(s.Sign(), k20261201T150000Z + 15 * 60 + 1);
  EXPECT_EQ(late.error().code(), ErrorCode::kInvalidSignature);
  EXPECT_EQ(late.error().message(),
            "Signature expired: 20261201T150000Z is now earlier than 20261201T150001Z "
            "(20261201T151501Z - 15 min.)");
  Result<VerifiedCaller> early = Verify(s.Sign(), k20261201T150000Z - 15 * 60 - 1);
  EXPECT_EQ(early.error().message(),
            "Signature not yet current: 20261201T150000Z is still later than 20261201T145959Z "
            "(20261201T144459Z + 15 min.)");
}

TEST_F(VerifierTest, OrderOfChecks) {
  // Incomplete before the date: the date check needs the parts.
  std::vector<HeaderField> headers = {{"Host", "h"}, {"Authorization", "AWS4-HMAC-SHA256 x=y"}};
  SignedRequest r{.method = "POST", .target = "/", .headers = headers, .body = ""};
  Result<VerifiedCaller> c = Verify(r);
  EXPECT_EQ(c.error().code(), ErrorCode::kIncompleteSignature);
  EXPECT_EQ(c.error().message(),
            "Authorization header requires 'Credential' parameter. Authorization header requires "
            "'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. "
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
            "Authorization=AWS4-HMAC-SHA256 x=y");
  // Blank-separated parameters are complete; then the date fails before the scope.
  headers = {{"Host", "h"},
             {"X-Amz-Date", "20170101T010101Z"},
             {"Authorization",
              "AWS4-HMAC-SHA256 Credential=alternator/2/3/4/aws4_request "
              "SignedHeaders=x-amz-date;host Signature=123"}};
  r.headers = headers;
  c = Verify(r);
  EXPECT_EQ(c.error().code(), ErrorCode::kInvalidSignature);
  EXPECT_TRUE(c.error().message().starts_with("Signature expired: 20170101T010101Z"))
      << c.error().message();
  // Host not signed.
  headers[1].value = "20261201T150000Z";
  headers[2].value =
      "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261201/us-east-1/dynamodb/aws4_request, "
      "SignedHeaders=x-amz-date, Signature=00";
  c = Verify(r);
  EXPECT_EQ(c.error().message(), "'Host' must be a 'SignedHeader' in the AWS Authorization.");
  // The scope's service, then its date.
  headers[2].value =
      "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261201/us-east-1/s3/aws4_request, "
      "SignedHeaders=host;x-amz-date, Signature=00";
  EXPECT_EQ(Verify(r).error().message(),
            "Credential should be scoped to correct service: 'dynamodb'. ");
  headers[2].value =
      "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261130/us-east-1/dynamodb/aws4_request, "
      "SignedHeaders=host;x-amz-date, Signature=00";
  EXPECT_EQ(Verify(r).error().message(),
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from "
            "HTTP: '20261130' != '20261201', from '20261201T150000Z'.");
  // No Authorization at all.
  headers = {{"Host", "h"}};
  r.headers = headers;
  EXPECT_EQ(Verify(r).error().code(), ErrorCode::kMissingAuthenticationToken);
}

TEST_F(VerifierTest, DateHeaderInsteadOfXAmzDate) {
  // RFC 1123 Date: the string to sign carries it in ISO 8601 basic format.
  std::vector<HeaderField> headers = {{"Host", "h"}, {"Date", "Tue, 01 Dec 2026 15:00:00 GMT"}};
  std::vector<std::string> names = {"date", "host"};
  SignedRequest r{.method = "POST", .target = "/", .headers = headers, .body = ""};
  const std::string canonical = CanonicalRequest(r, names, util::Sha256Hex("")).value();
  const std::string sig = util::HmacSha256Hex(
      DeriveSigningKey("secret", "20261201", "eu-west-1", "dynamodb"),
      StringToSign("20261201T150000Z", "20261201/eu-west-1/dynamodb/aws4_request", canonical));
  const std::string auth =
      "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261201/eu-west-1/dynamodb/aws4_request, "
      "SignedHeaders=date;host, Signature=" +
      sig;
  headers.push_back({"Authorization", auth});
  r.headers = headers;
  Result<VerifiedCaller> c = Verify(r);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->region, "eu-west-1");
}

TEST_F(VerifierTest, PresignedQuery) {
  const std::string scope = "20261201/us-east-1/dynamodb/aws4_request";
  std::string query =
      "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDTEST%2F20261201%2Fus-east-1%2F"
      "dynamodb%2Faws4_request&X-Amz-Date=20261201T150000Z&X-Amz-Expires=60&"
      "X-Amz-SignedHeaders=host";
  std::vector<HeaderField> headers = {{"Host", "h"}};
  std::vector<std::string> names = {"host"};
  std::string target = "/?" + query;
  SignedRequest r{.method = "POST", .target = target, .headers = headers, .body = "{}"};
  const std::string canonical = CanonicalRequest(r, names, util::Sha256Hex("{}")).value();
  const std::string sig =
      util::HmacSha256Hex(DeriveSigningKey("secret", "20261201", "us-east-1", "dynamodb"),
                          StringToSign("20261201T150000Z", scope, canonical));
  target += "&X-Amz-Signature=" + sig;
  r.target = target;
  EXPECT_TRUE(Verify(r, k20261201T150000Z + 60).ok());
  Result<VerifiedCaller> expired = Verify(r, k20261201T150000Z + 61);
  EXPECT_EQ(expired.error().code(), ErrorCode::kInvalidSignature);
  EXPECT_TRUE(expired.error().message().starts_with("Signature expired: 20261201T150000Z"));

  std::string incomplete = "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T150000Z";
  r.target = incomplete;
  EXPECT_EQ(Verify(r).error().message(),
            "AWS query-string parameters must include 'X-Amz-Credential'. AWS query-string "
            "parameters must include 'X-Amz-Signature'. AWS query-string parameters must include "
            "'X-Amz-SignedHeaders'. AWS query-string parameters must include 'X-Amz-Expires'. "
            "Re-examine the query-string parameters.");
}

TEST(Credentials, IniFormat) {
  CredentialStore keys;
  ASSERT_TRUE(keys.AddIniText("# comment\n[default]\naws_access_key_id = AK1\n"
                              "aws_secret_access_key = S1 \n\n[profile two]\r\n"
                              "aws_access_key_id=AK2\r\naws_secret_access_key=S2\r\n"
                              "region = eu-west-1\n; another comment\nprincipal_arn = arn:x\n"
                              "account_id = 222233334444\n[empty]\n",
                              "f")
                  .ok());
  EXPECT_EQ(keys.size(), 2u);
  ASSERT_NE(keys.Find("AK1"), nullptr);
  EXPECT_EQ(keys.Find("AK1")->secret_access_key, "S1");
  EXPECT_EQ(keys.Find("AK1")->account_id, "000000000000");
  EXPECT_EQ(keys.Find("AK1")->principal_arn, "arn:aws:iam::000000000000:user/default");
  EXPECT_EQ(keys.Find("AK2")->account_id, "222233334444");
  EXPECT_EQ(keys.Find("AK2")->principal_arn, "arn:x");
  EXPECT_EQ(keys.Find("AK3"), nullptr);
}

TEST(Credentials, Errors) {
  CredentialStore keys;
  EXPECT_EQ(keys.AddIniText("aws_access_key_id=A\n", "f").error().message(),
            "f:1: a key before any [profile]");
  EXPECT_EQ(keys.AddIniText("[a]\njunk\n", "f").error().message(),
            "f:2: expected 'key = value' or '[profile]'");
  EXPECT_FALSE(keys.AddIniText("[a]\naws_access_key_id=A\n", "f").ok());  // no secret
  EXPECT_FALSE(
      keys.AddIniText("[a]\naws_access_key_id=A\naws_secret_access_key=s\naccount_id=12\n", "f")
          .ok());
  EXPECT_FALSE(keys.AddIniText("[a]\naws_access_key_id=A\naws_secret_access_key=s\n"
                               "[b]\naws_access_key_id=A\naws_secret_access_key=t\n",
                               "g")
                   .ok());
}

}  // namespace
}  // namespace ddb::server
