// SigV4 signatures of the command line's requests (POST / with a JSON body), for servers
// that verify them (ddb-server --auth verify, or the service). See
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
// Thread safety: const methods, callable concurrently.
#pragma once

#include <string>
#include <string_view>

namespace ddb::cli {

class SigV4Signer {
 public:
  SigV4Signer(std::string access_key_id, std::string secret_key, std::string session_token,
              std::string region);

  // From AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION /
  // AWS_DEFAULT_REGION (default us-east-1). Without the key variables, a placeholder: servers
  // that do not verify signatures (ddb-server --auth off, DynamoDB Local) still want a
  // well-formed Authorization header, which then names the key "ddb" and carries a zero
  // signature (hashing every body for nobody would cost ddb load a tenth of its CPU).
  static SigV4Signer FromEnvironment();

  // The Authorization header of a request that sends exactly the headers content-type
  // (application/x-amz-json-1.0), host, x-amz-date and x-amz-target (and
  // x-amz-security-token when there is a session token).
  // amz_date: "20261202T010203Z".
  std::string Authorization(std::string_view host, std::string_view target,
                            std::string_view amz_date, std::string_view body) const;

  const std::string& session_token() const { return session_token_; }

 private:
  std::string access_key_id_;
  std::string secret_key_;
  std::string session_token_;
  std::string region_;
  bool placeholder_ = false;
};

}  // namespace ddb::cli
