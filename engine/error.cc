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

bool InValidationEnvelope(const Error& e) {
  if (e.code() != ErrorCode::kValidation) return false;
  const std::string& m = e.message();
  size_t digits = 0;
  while (digits < m.size() && m[digits] >= '0' && m[digits] <= '9') ++digits;
  if (digits == 0) return false;
  std::string_view rest = std::string_view(m).substr(digits);
  return rest.starts_with(" validation error detected: ") ||
         rest.starts_with(" validation errors detected: ");
}

}  // namespace ddb
