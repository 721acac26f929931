// AttributeValue: the engine's model of a DynamoDB value (S, N, B, BOOL, NULL, L, M, SS,
// NS, BS) and Item, a map of attribute names to values. The wire form ({"S": ...}) lives in
// protocol/; this is what the engine stores, compares and sizes.
// Invariants kept by the constructors below and checked by ValidateAttributeValue:
//   - N holds the normalised decimal text (number.h), so equal numbers have equal text;
//   - B and BS hold raw bytes (not base64);
//   - set members are unique and sorted in DynamoDB's order (SS/BS bytewise, NS by value).
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// DO NOT reorder: the numeric values are type tags in the on-disk item format.
enum class AttributeType : uint8_t {
  kS = 1,
  kN = 2,
  kB = 3,
  kBool = 4,
  kNull = 5,
  kM = 6,
  kL = 7,
  kSS = 8,
  kNS = 9,
  kBS = 10,
};

// "S", "N", "BOOL", "SS", ... as in the wire format.
std::string_view AttributeTypeName(AttributeType type);

class AttributeValue;
// Attribute name -> value, ordered by name so that output order is deterministic.
using AttributeMap = std::map<std::string, AttributeValue, std::less<>>;
using Item = AttributeMap;

class AttributeValue {
 public:
  AttributeValue() : type_(AttributeType::kNull) {}

  // Factories. S/B take the bytes as they are; N REQUIRES normalised text (see
  // ParseNumber in number.h); sets REQUIRE members unique and sorted (SortSet does both).
  static AttributeValue S(std::string s);
  static AttributeValue N(std::string normalised);
  static AttributeValue B(std::string bytes);
  static AttributeValue Bool(bool b);
  static AttributeValue Null();
  static AttributeValue M(AttributeMap m);
  static AttributeValue L(std::vector<AttributeValue> l);
  static AttributeValue SS(std::vector<std::string> members);
  static AttributeValue NS(std::vector<std::string> members);
  static AttributeValue BS(std::vector<std::string> members);

  AttributeType type() const { return type_; }
  bool is_set() const {
    return type_ == AttributeType::kSS || type_ == AttributeType::kNS ||
           type_ == AttributeType::kBS;
  }
  bool is_scalar_key_type() const {
    return type_ == AttributeType::kS || type_ == AttributeType::kN || type_ == AttributeType::kB;
  }

  // S text, N normalised text or B bytes. REQUIRES: type is S, N or B.
  const std::string& scalar() const { return scalar_; }
  bool boolean() const { return bool_; }
  // REQUIRES: is_set().
  const std::vector<std::string>& set() const { return set_; }
  std::vector<std::string>& mutable_set() { return set_; }
  // REQUIRES: type is L.
  const std::vector<AttributeValue>& list() const { return list_; }
  std::vector<AttributeValue>& mutable_list() { return list_; }
  // REQUIRES: type is M.
  const AttributeMap& map() const { return map_; }
  AttributeMap& mutable_map() { return map_; }

  // DynamoDB equality: same type and same value (numbers by value, sets as sets).
  friend bool operator==(const AttributeValue& a, const AttributeValue& b);

 private:
  AttributeType type_;
  bool bool_ = false;
  std::string scalar_;
  std::vector<std::string> set_;
  std::vector<AttributeValue> list_;
  AttributeMap map_;
};

// Declared here as well so that it is exported (a friend declaration alone is not).
bool operator==(const AttributeValue& a, const AttributeValue& b);

// Sorts set members into DynamoDB's order (type is kSS, kNS or kBS) and reports whether
// they were all distinct. NS members REQUIRE normalised text.
bool SortSet(AttributeType type, std::vector<std::string>* members);

// Size of a value as DynamoDB counts it for the 400 KB item limit and capacity units
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
size_t AttributeValueSize(const AttributeValue& value);
// Sum over attributes of UTF-8 name length + value size.
size_t ItemSize(const Item& item);
// Size of one N value given as normalised decimal text.
size_t NumberSize(std::string_view number);

}  // namespace ddb

#pragma GCC visibility pop
