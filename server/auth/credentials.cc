#include "server/auth/credentials.h"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "util/arn.h"

namespace ddb::server {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsAccountId(std::string_view s) {
  if (s.size() != 12) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// One profile as read so far.
struct Profile {
  std::string name;
  size_t line = 0;
  AccessKey key;
};

std::string EnvOr(const char* name, std::string_view fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : std::string(fallback);
}

}  // namespace

Status CredentialStore::Add(AccessKey key, std::string_view where) {
  if (key.secret_access_key.empty()) {
    return Error::Validation(std::string(where) + ": access key " + key.access_key_id +
                             " has no aws_secret_access_key");
  }
  if (key.account_id.empty()) key.account_id = std::string(kDefaultAccountId);
  if (!IsAccountId(key.account_id)) {
    return Error::Validation(std::string(where) + ": account_id '" + key.account_id +
                             "' is not 12 digits");
  }
  if (keys_.contains(key.access_key_id)) {
    return Error::Validation(std::string(where) + ": access key " + key.access_key_id +
                             " is defined twice");
  }
  std::string id = key.access_key_id;
  keys_.emplace(std::move(id), std::move(key));
  return {};
}

Status CredentialStore::AddIniText(std::string_view text, std::string_view origin) {
  std::optional<Profile> profile;
  auto finish = [&]() -> Status {
    if (!profile || profile->key.access_key_id.empty()) return {};
    if (profile->key.principal_arn.empty()) {
      const std::string account = profile->key.account_id.empty() ? std::string(kDefaultAccountId)
                                                                  : profile->key.account_id;
      profile->key.principal_arn = util::Arn("iam", "", account, "user/" + profile->name);
    }
    return Add(std::move(profile->key), std::string(origin) + ": profile [" + profile->name +
                                            "] (line " + std::to_string(profile->line) + ")");
  };
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const std::string where = std::string(origin) + ":" + std::to_string(line_number);
    if (line.front() == '[') {
      if (line.back() != ']') return Error::Validation(where + ": unterminated section name");
      if (Status s = finish(); !s.ok()) return s;
      std::string_view name = Trim(line.substr(1, line.size() - 2));
      if (name.starts_with("profile ")) name = Trim(name.substr(8));
      profile = Profile{.name = std::string(name), .line = line_number, .key = {}};
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Error::Validation(where + ": expected 'key = value' or '[profile]'");
    }
    if (!profile) return Error::Validation(where + ": a key before any [profile]");
    const std::string_view key = Trim(line.substr(0, eq));
    const std::string value(Trim(line.substr(eq + 1)));
    if (key == "aws_access_key_id") {
      profile->key.access_key_id = value;
    } else if (key == "aws_secret_access_key") {
      profile->key.secret_access_key = value;
    } else if (key == "aws_session_token") {
      profile->key.session_token = value;
    } else if (key == "account_id" || key == "aws_account_id") {
      profile->key.account_id = value;
    } else if (key == "principal_arn") {
      profile->key.principal_arn = value;
    }
  }
  return finish();
}

Status CredentialStore::AddFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::Validation("cannot read the credentials file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return AddIniText(text.str(), path);
}

Status CredentialStore::AddEnvironment() {
  const std::string id = EnvOr("AWS_ACCESS_KEY_ID", "");
  const std::string secret = EnvOr("AWS_SECRET_ACCESS_KEY", "");
  if (id.empty() || secret.empty() || keys_.contains(id)) return {};
  AccessKey key{.access_key_id = id,
                .secret_access_key = secret,
                .session_token = EnvOr("AWS_SESSION_TOKEN", ""),
                .account_id = EnvOr("AWS_ACCOUNT_ID", kDefaultAccountId),
                .principal_arn = EnvOr("DDB_PRINCIPAL_ARN", "")};
  if (key.principal_arn.empty()) {
    key.principal_arn = util::Arn("iam", "", key.account_id, "user/environment");
  }
  return Add(std::move(key), "the environment");
}

const AccessKey* CredentialStore::Find(std::string_view access_key_id) const {
  auto it = keys_.find(std::string(access_key_id));
  return it == keys_.end() ? nullptr : &it->second;
}

}  // namespace ddb::server
