#include "ddb/attribute_value.h"

#include <algorithm>

#include "ddb/number.h"

namespace ddb {

std::string_view AttributeTypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kS:
      return "S";
    case AttributeType::kN:
      return "N";
    case AttributeType::kB:
      return "B";
    case AttributeType::kBool:
      return "BOOL";
    case AttributeType::kNull:
      return "NULL";
    case AttributeType::kM:
      return "M";
    case AttributeType::kL:
      return "L";
    case AttributeType::kSS:
      return "SS";
    case AttributeType::kNS:
      return "NS";
    case AttributeType::kBS:
      return "BS";
  }
  return "?";
}

AttributeValue AttributeValue::S(std::string s) {
  AttributeValue v;
  v.type_ = AttributeType::kS;
  v.scalar_ = std::move(s);
  return v;
}

AttributeValue AttributeValue::N(std::string normalised) {
  AttributeValue v;
  v.type_ = AttributeType::kN;
  v.scalar_ = std::move(normalised);
  return v;
}

AttributeValue AttributeValue::B(std::string bytes) {
  AttributeValue v;
  v.type_ = AttributeType::kB;
  v.scalar_ = std::move(bytes);
  return v;
}

AttributeValue AttributeValue::Bool(bool b) {
  AttributeValue v;
  v.type_ = AttributeType::kBool;
  v.bool_ = b;
  return v;
}

AttributeValue AttributeValue::Null() {
  AttributeValue v;
  v.type_ = AttributeType::kNull;
  v.bool_ = true;
  return v;
}

AttributeValue AttributeValue::M(AttributeMap m) {
  AttributeValue v;
  v.type_ = AttributeType::kM;
  v.map_ = std::move(m);
  return v;
}

AttributeValue AttributeValue::L(std::vector<AttributeValue> l) {
  AttributeValue v;
  v.type_ = AttributeType::kL;
  v.list_ = std::move(l);
  return v;
}

AttributeValue AttributeValue::SS(std::vector<std::string> members) {
  AttributeValue v;
  v.type_ = AttributeType::kSS;
  v.set_ = std::move(members);
  return v;
}

AttributeValue AttributeValue::NS(std::vector<std::string> members) {
  AttributeValue v;
  v.type_ = AttributeType::kNS;
  v.set_ = std::move(members);
  return v;
}

AttributeValue AttributeValue::BS(std::vector<std::string> members) {
  AttributeValue v;
  v.type_ = AttributeType::kBS;
  v.set_ = std::move(members);
  return v;
}

bool operator==(const AttributeValue& a, const AttributeValue& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case AttributeType::kS:
    case AttributeType::kN:  // normalised, so text equality is value equality
    case AttributeType::kB:
      return a.scalar_ == b.scalar_;
    case AttributeType::kBool:
      return a.bool_ == b.bool_;
    case AttributeType::kNull:
      return true;
    case AttributeType::kM:
      return a.map_ == b.map_;
    case AttributeType::kL:
      return a.list_ == b.list_;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      return a.set_ == b.set_;  // sorted, so order-independent
  }
  return false;
}

bool SortSet(AttributeType type, std::vector<std::string>* members) {
  if (type == AttributeType::kNS) {
    std::sort(members->begin(), members->end(),
              [](const std::string& x, const std::string& y) { return CompareNumbers(x, y) < 0; });
  } else {
    std::sort(members->begin(), members->end());  // std::string compares as unsigned bytes
  }
  return std::adjacent_find(members->begin(), members->end()) == members->end();
}

// DynamoDB stores numbers in base 100 with the decimal point on a digit-pair boundary:
// one byte per pair the significant digits touch, plus one, plus one for a minus sign.
size_t NumberSize(std::string_view n) {
  bool negative = !n.empty() && n[0] == '-';
  if (negative) n.remove_prefix(1);
  if (n == "0") return 1;
  size_t point = n.find('.');
  std::string_view int_part = n.substr(0, point);
  std::string_view frac_part = point == std::string_view::npos ? "" : n.substr(point + 1);
  // Position (power of ten) of the first and last significant digit.
  long first, last;
  if (int_part != "0") {
    first = static_cast<long>(int_part.size()) - 1;
    if (!frac_part.empty()) {
      last = -static_cast<long>(frac_part.size());
    } else {
      size_t nz = int_part.find_last_not_of('0');
      last = static_cast<long>(int_part.size() - 1 - nz);
    }
  } else {
    size_t nz = frac_part.find_first_not_of('0');
    first = -static_cast<long>(nz) - 1;
    last = -static_cast<long>(frac_part.size());
  }
  auto pair_of = [](long pos) { return pos >= 0 ? pos / 2 : -((-pos + 1) / 2); };
  size_t pairs = static_cast<size_t>(pair_of(first) - pair_of(last) + 1);
  return pairs + 1 + (negative ? 1 : 0);
}

size_t AttributeValueSize(const AttributeValue& value) {
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kB:
      return value.scalar().size();
    case AttributeType::kN:
      return NumberSize(value.scalar());
    case AttributeType::kBool:
    case AttributeType::kNull:
      return 1;
    case AttributeType::kSS:
    case AttributeType::kBS: {
      size_t size = 0;
      for (const auto& m : value.set()) size += m.size();
      return size;
    }
    case AttributeType::kNS: {
      size_t size = 0;
      for (const auto& m : value.set()) size += NumberSize(m);
      return size;
    }
    case AttributeType::kL: {
      size_t size = 3;
      for (const auto& e : value.list()) size += 1 + AttributeValueSize(e);
      return size;
    }
    case AttributeType::kM: {
      size_t size = 3;
      for (const auto& [name, e] : value.map()) size += 1 + name.size() + AttributeValueSize(e);
      return size;
    }
  }
  return 0;
}

size_t ItemSize(const Item& item) {
  size_t size = 0;
  for (const auto& [name, value] : item) size += name.size() + AttributeValueSize(value);
  return size;
}

}  // namespace ddb
