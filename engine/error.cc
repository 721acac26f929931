#include "ddb/error.h"

namespace ddb {

Error ValidationErrors(const std::vector<std::string>& violations) {
  std::string msg =
      std::to_string(violations.size()) +
      (violations.size() == 1 ? " validation error detected: " : " validation errors detected: ");
  for (size_t i = 0; i < violations.size(); ++i) {
    if (i) msg += "; ";
    msg += violations[i];
  }
  return Error::Validation(std::move(msg));
}

}  // namespace ddb
