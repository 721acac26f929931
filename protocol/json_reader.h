// Reading request bodies with simdjson (DOM API: runtime CPU dispatch, random access by
// member name, which suits DynamoDB requests whose members come in any order).
// Internal to protocol/: only protocol .cc files include this (simdjson stays here).
// Thread safety: ParseBody uses a thread-local parser; the returned element lives until
// the next ParseBody on the same thread.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/enum_names.h"
#include "ddb/error.h"

namespace ddb::protocol {

using JsonObject = simdjson::dom::object;
using JsonElement = simdjson::dom::element;

// Parses "body" (appending padding to its capacity) into its top-level object.
// Errors: kSerialization (not JSON, or not an object).
Result<JsonObject> ParseBody(std::string& body);

// Gives back the thread's parser buffers when a large body grew them past what ordinary
// requests need. Ends the life of the element ParseBody returned: call once the request's
// document is no longer read.
void ReleaseLargeParserMemory();
// The bytes of JSON the thread's parser can take without growing (for tests).
size_t ThreadParserCapacity();

// The wire error for a member of the wrong JSON type.
Error WrongType(std::string_view member, std::string_view expected);

// An AttributeValue's BOOL or NULL as the service's deserializer reads one: true or false, or a
// string as Java reads it ("true" in any case is true, other text false), except text that is a
// number ("Unexpected token received from parser", as dynalite's suite records both).
// Errors: kSerialization.
Result<bool> ReadBoolean(const JsonElement& e, std::string_view member);
// Whether `text` is a JSON number's text.
bool LooksLikeNumber(std::string_view text);

// Typed, optional member access: absent or null -> nullopt; wrong type -> kSerialization.
Result<std::optional<std::string_view>> GetString(const JsonObject& obj, std::string_view key);
Result<std::optional<int64_t>> GetInt(const JsonObject& obj, std::string_view key);
Result<std::optional<bool>> GetBool(const JsonObject& obj, std::string_view key);
Result<std::optional<JsonObject>> GetObject(const JsonObject& obj, std::string_view key);
Result<std::optional<simdjson::dom::array>> GetArray(const JsonObject& obj, std::string_view key);

class Violations;

// An optional string member naming a value of E; any other string adds the enum violation
// at `path` (Violations::EnumValue) and reads as absent.
template <typename E>
Result<std::optional<E>> ReadEnum(const JsonObject& obj, std::string_view member,
                                  std::string_view path, std::string_view listed, Violations* v);

// Collects the service's "failed to satisfy constraint" violations of one request, which
// it reports together: "N validation error(s) detected: a; b".
class Violations {
 public:
  void NotNull(std::string_view path) {
    Add("Value null at '" + std::string(path) +
        "' failed to satisfy constraint: Member must not be null");
  }
  void Enum(std::string_view value, std::string_view path, std::string_view allowed) {
    Add("Value '" + std::string(value) + "' at '" + std::string(path) +
        "' failed to satisfy constraint: Member must satisfy enum value set: [" +
        std::string(allowed) + "]");
  }
  // `text` as a value of E (its wire names: ddb/enum_names.h), or nullopt after adding the
  // enum violation at `path`; `listed` is the value set in the order the service lists it.
  template <typename E>
  std::optional<E> EnumValue(std::string_view text, std::string_view path,
                             std::string_view listed) {
    std::optional<E> e = EnumFromName<E>(text);
    if (!e) Enum(text, path, listed);
    return e;
  }
  // A number member outside [min, max] (max INT64_MAX: no upper bound) adds the violation;
  // true when it is inside.
  bool Range(int64_t value, std::string_view path, int64_t min, int64_t max = INT64_MAX) {
    return AddRange("Value '" + std::to_string(value) + "' at '" + std::string(path) + "'", value,
                    min, max);
  }
  // The same in the service's 2026 form for some members: "Value at 'Limit' ...", the
  // member named as the API spells it and no value echoed.
  bool MemberRange(int64_t value, std::string_view member, int64_t min, int64_t max = INT64_MAX) {
    return AddRange("Value at '" + std::string(member) + "'", value, min, max);
  }
  // A string member whose length is outside [min, max].
  void Length(std::string_view value, std::string_view path, size_t min, size_t max) {
    if (value.size() >= min && value.size() <= max) return;
    Add("Value '" + std::string(value) + "' at '" + std::string(path) +
        "' failed to satisfy constraint: Member must have length " +
        (value.size() < min ? "greater than or equal to " + std::to_string(min)
                            : "less than or equal to " + std::to_string(max)));
  }
  void Add(std::string v) { list_.push_back(std::move(v)); }
  std::vector<std::string>* list() { return &list_; }
  // kValidation with every violation, or OK when there are none.
  Status ToStatus() const;

 private:
  bool AddRange(std::string subject, int64_t value, int64_t min, int64_t max) {
    if (value >= min && value <= max) return true;
    Add(std::move(subject) + " failed to satisfy constraint: Member must have value " +
        (value < min ? "greater than or equal to " + std::to_string(min)
                     : "less than or equal to " + std::to_string(max)));
    return false;
  }

  std::vector<std::string> list_;
};

template <typename E>
Result<std::optional<E>> ReadEnum(const JsonObject& obj, std::string_view member,
                                  std::string_view path, std::string_view listed, Violations* v) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string_view> text, GetString(obj, member));
  if (!text) return std::optional<E>();
  return v->EnumValue<E>(*text, path, listed);
}

}  // namespace ddb::protocol
