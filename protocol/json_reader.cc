#include "protocol/json_reader.h"

#include <cmath>
#include <cstdint>

#include "ddb/limits.h"

namespace ddb::protocol {

namespace {

// The parser's buffers grow to the largest body it has parsed, ~13 bytes per byte of JSON (its
// tape and structural index): one 16 MB body left ~210 MB with its thread for good, and every
// thread may serve one (found by a black-box probe). Past this they are given back.
constexpr size_t kRetainedParserCapacity = size_t{1} << 20;

simdjson::dom::parser& ThreadParser() {
  static thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

void ReleaseLargeParserMemory() {
  simdjson::dom::parser& parser = ThreadParser();
  if (parser.capacity() > kRetainedParserCapacity) parser = simdjson::dom::parser();
}

size_t ThreadParserCapacity() { return ThreadParser().capacity(); }

Result<JsonObject> ParseBody(std::string& body) {
  simdjson::dom::parser& parser = ThreadParser();
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  JsonElement root;
  if (parser.parse(body.data(), body.size(), false).get(root) != simdjson::SUCCESS) {
    return Error::Serialization("Start of structure or map found where not expected");
  }
  JsonObject obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS) {
    return Error::Serialization("Start of structure or map found where not expected");
  }
  return obj;
}

Error WrongType(std::string_view member, std::string_view expected) {
  return Error::Serialization("Unexpected value type in payload: '" + std::string(member) +
                              "' must be " + std::string(expected));
}

bool LooksLikeNumber(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  bool digits = false;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, digits = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, digits = true;
  }
  if (digits && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    bool exponent = false;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, exponent = true;
    digits = exponent;
  }
  return digits && i == t.size();
}

Result<bool> ReadBoolean(const JsonElement& e, std::string_view member) {
  bool b;
  if (e.get(b) == simdjson::SUCCESS) return b;
  std::string_view text;
  if (e.get(text) == simdjson::SUCCESS) {
    if (LooksLikeNumber(text)) return Error::Serialization("Unexpected token received from parser");
    return text.size() == 4 && (text[0] | 0x20) == 't' && (text[1] | 0x20) == 'r' &&
           (text[2] | 0x20) == 'u' && (text[3] | 0x20) == 'e';
  }
  return WrongType(member, "a boolean");
}

namespace {
template <typename T>
Result<std::optional<T>> GetTyped(const JsonObject& obj, std::string_view key,
                                  std::string_view expected) {
  JsonElement e;
  if (obj.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::optional<T>();
  T v;
  if (e.get(v) != simdjson::SUCCESS) return WrongType(key, expected);
  return std::optional<T>(v);
}
}  // namespace

Result<std::optional<std::string_view>> GetString(const JsonObject& obj, std::string_view key) {
  return GetTyped<std::string_view>(obj, key, "a string");
}

Result<std::optional<int64_t>> GetInt(const JsonObject& obj, std::string_view key) {
  JsonElement e;
  if (obj.at_key(key).get(e) != simdjson::SUCCESS || e.is_null()) return std::optional<int64_t>();
  int64_t v;
  if (e.get(v) == simdjson::SUCCESS) return std::optional<int64_t>(v);
  // Past int64 (an unsigned 64-bit integer, or a double out of range): the nearest int64, so
  // that range checks see a value that is too large, not one wrapped around (a plain cast of
  // such a double is undefined, and answered 2^63 as -2^63). Decimals round down.
  uint64_t u;
  if (e.get(u) == simdjson::SUCCESS) return std::optional<int64_t>(INT64_MAX);
  double d;
  if (e.get(d) == simdjson::SUCCESS) {
    if (!(d < 9.2e18)) return std::optional<int64_t>(INT64_MAX);
    if (!(d > -9.2e18)) return std::optional<int64_t>(INT64_MIN);
    return std::optional<int64_t>(static_cast<int64_t>(std::floor(d)));
  }
  return WrongType(key, "a number");
}

Result<std::optional<bool>> GetBool(const JsonObject& obj, std::string_view key) {
  return GetTyped<bool>(obj, key, "a boolean");
}

Result<std::optional<JsonObject>> GetObject(const JsonObject& obj, std::string_view key) {
  return GetTyped<JsonObject>(obj, key, "an object");
}

Result<std::optional<simdjson::dom::array>> GetArray(const JsonObject& obj, std::string_view key) {
  return GetTyped<simdjson::dom::array>(obj, key, "a list");
}

Status Violations::ToStatus() const {
  if (list_.empty()) return Status::Ok();
  return ValidationErrors(list_);
}

}  // namespace ddb::protocol
