#include "cli/json_text.h"

#include <simdjson.h>

namespace ddb::cli {

namespace {

// (type, message) of an error envelope; false when the body is not one.
bool ParseEnvelope(std::string_view body, std::string* type, std::string* message) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body.data(), body.size()).get(doc)) return false;
  std::string_view t;
  if (doc["__type"].get(t)) return false;
  const size_t hash = t.rfind('#');
  *type = std::string(hash == std::string_view::npos ? t : t.substr(hash + 1));
  std::string_view m;
  if (!doc["message"].get(m) || !doc["Message"].get(m)) *message = std::string(m);
  return true;
}

}  // namespace

std::string ErrorText(int status, std::string_view body) {
  std::string type;
  std::string message;
  if (ParseEnvelope(body, &type, &message)) {
    return message.empty() ? type : type + ": " + message;
  }
  return "HTTP " + std::to_string(status) + ": " + std::string(body.substr(0, 500));
}

std::string ErrorType(std::string_view body) {
  std::string type;
  std::string message;
  return ParseEnvelope(body, &type, &message) ? type : "";
}

}  // namespace ddb::cli
