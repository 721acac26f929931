#include "cli/json_lines.h"

namespace ddb::cli {

Result<std::string> ItemOfLine(simdjson::dom::parser& parser, std::string_view line) {
  simdjson::dom::element doc;
  if (const auto error = parser.parse(line.data(), line.size()).get(doc)) {
    return Error::Serialization(std::string("not JSON: ") + simdjson::error_message(error));
  }
  simdjson::dom::object obj;
  if (doc.get(obj)) return Error::Validation("not a JSON object");
  simdjson::dom::object item;
  bool found = false;
  for (auto field : obj) {
    if (field.key != "Item" || found || field.value.get(item)) {
      return Error::Validation("expected {\"Item\":{...}}, found member '" +
                               std::string(field.key) + "'");
    }
    found = true;
  }
  if (!found) return Error::Validation("expected {\"Item\":{...}}");
  return simdjson::to_string(item);
}

std::string LineOfItem(simdjson::dom::element item) {
  std::string out = "{\"Item\":";
  out += simdjson::to_string(item);
  out += "}\n";
  return out;
}

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace ddb::cli
