// The access keys `--auth verify` accepts, and the account each one belongs to: read from a
// file in the AWS shared-credentials INI format and from the environment.
//
//   [alice]
//   aws_access_key_id = AKIAALICE
//   aws_secret_access_key = ...
//   aws_session_token = ...            ; optional: then requests must carry this token
//   account_id = 111122223333          ; optional, default kDefaultAccountId
//   principal_arn = arn:aws:iam::111122223333:user/alice   ; optional
//
// Thread safety: immutable once built; Find may be called concurrently.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "ddb/error.h"

namespace ddb::server {

// The account of a key that names none, and of every caller under `--auth off`.
inline constexpr std::string_view kDefaultAccountId = "000000000000";

struct AccessKey {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" when the key is a long-term one
  std::string account_id;     // 12 digits
  // The caller as AccessDeniedException names it; default arn:aws:iam::<account>:user/<profile>.
  std::string principal_arn;
};

class CredentialStore {
 public:
  // Parses the INI text of a credentials file. `origin` names it in errors. Profiles may be
  // written "[name]" or "[profile name]"; '#' and ';' start comments; unknown keys are
  // ignored, as the AWS CLI does. A profile without aws_access_key_id is skipped.
  // Errors: kValidation naming the line (a line that is neither a section, a key = value pair
  // nor a comment; a key without a secret; an account_id that is not 12 digits; one access key
  // in two profiles).
  Status AddIniText(std::string_view text, std::string_view origin);

  // AddIniText on the file's contents. Errors: kValidation when it cannot be read.
  Status AddFile(const std::string& path);

  // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, optional AWS_SESSION_TOKEN, AWS_ACCOUNT_ID and
  // DDB_PRINCIPAL_ARN from the environment, when the first two are set. An access key also in a
  // file keeps the file's entry. Errors: as AddIniText.
  Status AddEnvironment();

  // The key with this id, or nullptr.
  const AccessKey* Find(std::string_view access_key_id) const;

  size_t size() const { return keys_.size(); }

 private:
  Status Add(AccessKey key, std::string_view where);

  std::unordered_map<std::string, AccessKey> keys_;
};

}  // namespace ddb::server
