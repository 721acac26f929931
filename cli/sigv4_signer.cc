#include "cli/sigv4_signer.h"

#include <cstdlib>

#include "util/digest.h"
#include "util/hex.h"

namespace ddb::cli {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

SigV4Signer::SigV4Signer(std::string access_key_id, std::string secret_key,
                         std::string session_token, std::string region)
    : access_key_id_(std::move(access_key_id)),
      secret_key_(std::move(secret_key)),
      session_token_(std::move(session_token)),
      region_(std::move(region)) {}

SigV4Signer SigV4Signer::FromEnvironment() {
  std::string key = Env("AWS_ACCESS_KEY_ID");
  std::string secret = Env("AWS_SECRET_ACCESS_KEY");
  const bool placeholder = key.empty() || secret.empty();
  if (placeholder) {
    key = "ddb";
    secret = "ddb";
  }
  std::string region = Env("AWS_REGION");
  if (region.empty()) region = Env("AWS_DEFAULT_REGION");
  if (region.empty()) region = "us-east-1";
  SigV4Signer signer(std::move(key), std::move(secret), placeholder ? "" : Env("AWS_SESSION_TOKEN"),
                     std::move(region));
  signer.placeholder_ = placeholder;
  return signer;
}

std::string SigV4Signer::Authorization(std::string_view host, std::string_view target,
                                       std::string_view amz_date, std::string_view body) const {
  const std::string date(amz_date.substr(0, 8));
  if (placeholder_) {
    return "AWS4-HMAC-SHA256 Credential=" + access_key_id_ + "/" + date + "/" + region_ +
           "/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
           "Signature=" +
           std::string(64, '0');
  }
  std::string signed_headers = "content-type;host;x-amz-date";
  std::string canonical_headers =
      "content-type:application/x-amz-json-1.0\nhost:" + std::string(host) +
      "\nx-amz-date:" + std::string(amz_date) + "\n";
  if (!session_token_.empty()) {
    signed_headers += ";x-amz-security-token";
    canonical_headers += "x-amz-security-token:" + session_token_ + "\n";
  }
  signed_headers += ";x-amz-target";
  canonical_headers += "x-amz-target:" + std::string(target) + "\n";
  const std::string canonical_request =
      "POST\n/\n\n" + canonical_headers + "\n" + signed_headers + "\n" + util::Sha256Hex(body);
  const std::string scope = date + "/" + region_ + "/dynamodb/aws4_request";
  const std::string string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope +
                                     "\n" + util::Sha256Hex(canonical_request);
  std::string key = util::HmacSha256("AWS4" + secret_key_, date);
  key = util::HmacSha256(key, region_);
  key = util::HmacSha256(key, "dynamodb");
  key = util::HmacSha256(key, "aws4_request");
  const std::string signature = util::HmacSha256(key, string_to_sign);
  return "AWS4-HMAC-SHA256 Credential=" + access_key_id_ + "/" + scope +
         ", SignedHeaders=" + signed_headers + ", Signature=" + util::Hex(signature);
}

}  // namespace ddb::cli
