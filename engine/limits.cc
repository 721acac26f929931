#include "ddb/limits.h"

#include <algorithm>

namespace ddb {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

}  // namespace

void TableNameViolations(std::string_view name, std::string_view path,
                         std::vector<std::string>* violations) {
  std::string prefix = "Value '" + std::string(name) + "' at '" + std::string(path) +
                       "' failed to satisfy constraint: Member must ";
  if (!std::all_of(name.begin(), name.end(), IsNameChar)) {
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
