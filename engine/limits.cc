#include "ddb/limits.h"

#include <algorithm>

#include "util/arn.h"

namespace ddb {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

}  // namespace

std::string_view TableNameOf(std::string_view name_or_arn) {
  if (!name_or_arn.starts_with(util::kDynamoDbArnPrefix) || name_or_arn.size() > 1024) {
    return name_or_arn;
  }
  size_t table = name_or_arn.find(":table/");
  if (table == std::string_view::npos) return name_or_arn;
  return name_or_arn.substr(table + 7);
}

void TableNameViolations(std::string_view name, std::string_view path,
                         std::vector<std::string>* violations) {
  const bool bad_chars = !std::all_of(name.begin(), name.end(), IsNameChar);
  if (!bad_chars && name.size() >= 3 && name.size() <= 255) return;  // no message to build
  std::string prefix = "Value '" + std::string(name) + "' at '" + std::string(path) +
                       "' failed to satisfy constraint: Member must ";
  if (bad_chars) {
    violations->push_back(prefix + "satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  }
  if (name.size() < 3) {
    violations->push_back(prefix + "have length greater than or equal to 3");
  }
  if (name.size() > 255) {
    violations->push_back(prefix + "have length less than or equal to 255");
  }
}

}  // namespace ddb
