#include "protocol/request_types.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace ddb::protocol {
namespace {

enum class ShapeKind : uint8_t {
  kString,
  kBoolean,
  kInteger,
  kLong,
  kDouble,
  kBlob,
  kTimestamp,
  kList,
  kMap,
  kStructure,
};

struct RequestShape {
  ShapeKind kind;
  const char* name;
  uint16_t first_member;  // structures: members [first_member, first_member + member_count)
  uint16_t member_count;
  uint16_t element;  // lists: the element's shape; maps: the value's
};

struct RequestMember {
  const char* name;
  uint16_t shape;
};

struct RequestOperation {
  const char* name;
  uint16_t input;
};

#include "protocol/request_shapes.inc"

// Where a value sits: a structure's member (a "field"), or a list's element or a map's value.
// The deserializer words some errors differently for the two.
enum class Position { kField, kValue };

constexpr std::string_view kStartOfStructure = "Start of structure or map found where not expected";
// What the service answers for a scalar where a list or map nested in a list or map belongs.
constexpr std::string_view kParameterizedCast =
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class "
    "java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and "
    "java.lang.Class are in module java.base of loader 'bootstrap')";

std::string JavaType(uint16_t index) {
  const RequestShape& s = kShapes[index];
  switch (s.kind) {
    case ShapeKind::kString:
      return "java.lang.String";
    case ShapeKind::kBoolean:
      return "java.lang.Boolean";
    case ShapeKind::kInteger:
      return "java.lang.Integer";
    case ShapeKind::kLong:
      return "java.lang.Long";
    case ShapeKind::kDouble:
      return "java.lang.Double";
    case ShapeKind::kBlob:
      return "java.nio.ByteBuffer";
    case ShapeKind::kTimestamp:
      return "java.util.Date";
    case ShapeKind::kList:
      return "java.util.List<" + JavaType(s.element) + ">";
    case ShapeKind::kMap:
      return "java.util.Map<java.lang.String, " + JavaType(s.element) + ">";
    case ShapeKind::kStructure:
      return std::string("com.amazonaws.dynamodb.v20120810.") + s.name;
  }
  return "java.lang.Object";
}

// The deserializer's name for a scalar token.
std::string_view TokenName(const JsonElement& e) {
  switch (e.type()) {
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
      return "NUMBER_VALUE";
    case simdjson::dom::element_type::DOUBLE:
      return "DECIMAL_VALUE";
    case simdjson::dom::element_type::BOOL:
      return e.get_bool().value_unsafe() ? "TRUE_VALUE" : "FALSE_VALUE";
    default:
      return "STRING_VALUE";
  }
}

std::optional<Error> Fail(std::string message) { return Error::Serialization(std::move(message)); }

std::optional<Error> Check(const JsonElement& e, uint16_t index, Position at);

// A structure's members, in the document's order.
std::optional<Error> CheckMembers(const JsonObject& object, const RequestShape& s) {
  const RequestMember* begin = kMembers + s.first_member;
  const RequestMember* end = begin + s.member_count;
  for (auto field : object) {
    const RequestMember* m =
        std::find_if(begin, end, [&](const RequestMember& x) { return field.key == x.name; });
    if (m == end) continue;  // a member the model does not know: the service ignores it
    if (auto error = Check(field.value, m->shape, Position::kField)) return error;
  }
  return std::nullopt;
}

std::optional<Error> CheckScalar(const JsonElement& e, const RequestShape& s,
                                 std::string_view java) {
  using T = simdjson::dom::element_type;
  const T type = e.type();
  if (type == T::ARRAY) return Fail("Unrecognized collection type class " + std::string(java));
  if (type == T::OBJECT) return Fail(std::string(kStartOfStructure));
  const bool number = type == T::INT64 || type == T::UINT64 || type == T::DOUBLE;
  switch (s.kind) {
    case ShapeKind::kString:
      if (type == T::STRING) return std::nullopt;
      return Fail(std::string(TokenName(e)) + " cannot be converted to String");
    case ShapeKind::kBoolean: {
      if (type == T::BOOL) return std::nullopt;
      std::string_view text;
      if (type == T::STRING && e.get(text) == simdjson::SUCCESS) {
        // An attribute value's BOOL or NULL reads text as Java does, unless it is a number
        // (ReadBoolean); other Boolean members take only true and false.
        const std::string_view name = s.name;
        if ((name == "BooleanAttributeValue" || name == "NullAttributeValue") &&
            !LooksLikeNumber(text)) {
          return std::nullopt;
        }
        return Fail("Unexpected token received from parser");
      }
      return Fail(std::string(TokenName(e)) + " cannot be converted to Boolean");
    }
    case ShapeKind::kInteger:
    case ShapeKind::kLong:
    case ShapeKind::kDouble:
      if (number) return std::nullopt;
      return Fail(std::string(TokenName(e)) + " cannot be converted to " +
                  std::string(java.substr(java.rfind('.') + 1)));
    case ShapeKind::kBlob: {
      if (type != T::STRING) return Fail("only base-64-encoded strings are convertible to bytes");
      std::string_view text;
      const size_t length = e.get(text) == simdjson::SUCCESS ? text.size() : 0;
      if (length % 4 != 0) {
        return Fail("Base64 encoded length is expected a multiple of 4 bytes but found: " +
                    std::to_string(length));
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<Error> Check(const JsonElement& e, uint16_t index, Position at) {
  using T = simdjson::dom::element_type;
  if (e.is_null()) return std::nullopt;  // a null member is an absent one
  const RequestShape& s = kShapes[index];
  const T type = e.type();
  const bool scalar = type != T::ARRAY && type != T::OBJECT;
  switch (s.kind) {
    case ShapeKind::kTimestamp:
      return std::nullopt;  // numbers or text; left to the readers
    case ShapeKind::kList: {
      if (type == T::OBJECT) return Fail(std::string(kStartOfStructure));
      if (scalar) {
        return Fail(at == Position::kField ? "Unexpected field type"
                                           : std::string(kParameterizedCast));
      }
      simdjson::dom::array elements;
      if (e.get(elements) != simdjson::SUCCESS) return std::nullopt;
      for (JsonElement element : elements) {
        if (auto error = Check(element, s.element, Position::kValue)) return error;
      }
      return std::nullopt;
    }
    case ShapeKind::kMap: {
      if (type == T::ARRAY) {
        return Fail("Unrecognized collection type java.util.Map<java.lang.String, " +
                    JavaType(s.element) + ">");
      }
      if (scalar) {
        return Fail(at == Position::kField ? "Unexpected field type"
                                           : std::string(kParameterizedCast));
      }
      JsonObject values;
      if (e.get(values) != simdjson::SUCCESS) return std::nullopt;
      for (auto field : values) {
        if (auto error = Check(field.value, s.element, Position::kValue)) return error;
      }
      return std::nullopt;
    }
    case ShapeKind::kStructure: {
      if (type == T::ARRAY) return Fail("Unrecognized collection type class " + JavaType(index));
      if (scalar) {
        return Fail(at == Position::kField ? "Unexpected field type"
                                           : "Unexpected value type in payload");
      }
      JsonObject members;
      if (e.get(members) != simdjson::SUCCESS) return std::nullopt;
      return CheckMembers(members, s);
    }
    default:
      return CheckScalar(e, s, JavaType(index));
  }
}

}  // namespace

std::optional<Error> FirstTypeError(std::string_view operation, const JsonObject& request) {
  const RequestOperation* begin = std::begin(kOperations);
  const RequestOperation* end = std::end(kOperations);
  const RequestOperation* op =
      std::lower_bound(begin, end, operation, [](const RequestOperation& o, std::string_view name) {
        return std::string_view(o.name) < name;
      });
  if (op == end || op->name != operation) return std::nullopt;
  return CheckMembers(request, kShapes[op->input]);
}

}  // namespace ddb::protocol
