// The invariants of ddb::AttributeValue (include/ddb/attribute_value.h) as a fuzz check, for
// values the engine builds (updates, decoded items): numbers in normalised text, set members
// unique and in DynamoDB's order, all the way down.
#pragma once

#include <string>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/number.h"

namespace ddb::fuzz {

inline bool IsNormalisedNumber(const std::string& text) {
  Result<std::string> normalised = NormalizeNumber(text);
  return normalised.ok() && *normalised == text;
}

inline bool HoldsInvariants(const AttributeValue& v) {
  switch (v.type()) {
    case AttributeType::kN:
      return IsNormalisedNumber(v.scalar());
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      if (v.set().empty()) return false;
      if (v.type() == AttributeType::kNS) {
        for (const std::string& member : v.set()) {
          if (!IsNormalisedNumber(member)) return false;
        }
      }
      std::vector<std::string> sorted = v.set();
      return SortSet(v.type(), &sorted) && sorted == v.set();
    }
    case AttributeType::kL:
      for (const AttributeValue& element : v.list()) {
        if (!HoldsInvariants(element)) return false;
      }
      return true;
    case AttributeType::kM:
      for (const auto& [name, element] : v.map()) {
        if (!HoldsInvariants(element)) return false;
      }
      return true;
    default:
      return true;
  }
}

inline bool HoldsInvariants(const Item& item) {
  for (const auto& [name, value] : item) {
    if (!HoldsInvariants(value)) return false;
  }
  return true;
}

}  // namespace ddb::fuzz
