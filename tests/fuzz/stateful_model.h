// The reference model of the stateful fuzz target (stateful_fuzz.cc): per table, a map from
// the key to the item, and the few rules the target needs to predict an outcome (conditions,
// update actions, index key checks, index contents). It is the oracle, so it is kept small
// and written from DynamoDB's documented behaviour, not from the engine's code: it uses
// ddb::AttributeValue only as a container (never its operator== or the engine's expression
// code). Numbers are kept as exact hundredths in an int64 (every N the target generates is
// one), so arithmetic is exact. Thread safety: plain values, one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"

namespace ddb::fuzz::model {

// --- Numbers: hundredths <-> DynamoDB's normalised text ("-1.5", "100", "0.05", "0"). ---

inline std::string NumberText(int64_t hundredths) {
  if (hundredths == 0) return "0";
  const bool negative = hundredths < 0;
  uint64_t v = negative ? 0 - static_cast<uint64_t>(hundredths) : static_cast<uint64_t>(hundredths);
  std::string whole = std::to_string(v / 100);
  std::string frac = {static_cast<char>('0' + v % 100 / 10), static_cast<char>('0' + v % 10)};
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return (negative ? "-" : "") + whole + (frac.empty() ? "" : "." + frac);
}

// The inverse of NumberText; nullopt for text it cannot have written.
inline std::optional<int64_t> NumberHundredths(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') negative = true, ++i;
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (whole > INT64_MAX / 1000) return std::nullopt;
    whole = whole * 10 + (text[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t frac = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int scale = 10;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, scale /= 10) {
      if (scale == 0) return std::nullopt;
      frac += (text[i] - '0') * scale;
    }
  }
  if (i != text.size()) return std::nullopt;
  int64_t v = whole * 100 + frac;
  return negative ? -v : v;
}

// --- Values: a canonical text per value, independent of the engine's equality. ---

inline std::string Hex(const std::string& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {kDigits[c >> 4], kDigits[c & 15]};
  return out;
}

// Equal texts <=> equal DynamoDB values (sets as sets; numbers are normalised text already).
inline std::string Show(const AttributeValue& v) {
  switch (v.type()) {
    case AttributeType::kS:
      return "S\"" + v.scalar() + "\"";
    case AttributeType::kN:
      return "N" + v.scalar();
    case AttributeType::kB:
      return "B" + Hex(v.scalar());
    case AttributeType::kBool:
      return v.boolean() ? "true" : "false";
    case AttributeType::kNull:
      return "null";
    case AttributeType::kL: {
      std::string out = "[";
      for (const AttributeValue& e : v.list()) out += Show(e) + ",";
      return out + "]";
    }
    case AttributeType::kM: {
      std::string out = "{";
      for (const auto& [k, e] : v.map()) out += k + ":" + Show(e) + ",";
      return out + "}";
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      std::set<std::string> members(v.set().begin(), v.set().end());
      std::string out(AttributeTypeName(v.type()));
      out += "<";
      for (const std::string& m : members)
        out += (v.type() == AttributeType::kBS ? Hex(m) : m) + ",";
      return out + ">";
    }
  }
  return "?";
}

inline std::string Show(const Item& item) {
  std::string out = "{";
  for (const auto& [k, v] : item) out += k + ":" + Show(v) + ", ";
  return out + "}";
}

inline bool Same(const AttributeValue& a, const AttributeValue& b) { return Show(a) == Show(b); }
inline bool Same(const Item& a, const Item& b) { return Show(a) == Show(b); }

// --- Tables ---

struct Gsi {
  std::string name;
  std::string hash;    // attribute
  std::string range;   // "" for none
  int projection = 0;  // 0 ALL, 1 KEYS_ONLY, 2 INCLUDE ("a")
};

struct Table {
  std::string name;
  ScalarType hash_type = ScalarType::kS;
  std::optional<ScalarType> range_type;  // the sort key "sk", when there is one
  bool lsi = false;                      // "lsi" on l (S); needs a sort key
  int lsi_projection = 0;
  std::vector<Gsi> gsis;
  std::optional<StreamViewType> stream;  // enabled, with this view type
  std::optional<std::string> ttl;        // the TTL attribute, when enabled
  std::map<std::string, Item> items;     // by KeyText
  // Declared types of every attribute any key uses (the engine keeps one per name).
  ScalarType TypeOf(const std::string& attribute) const {
    if (attribute == "pk") return hash_type;
    if (attribute == "sk") return *range_type;
    if (attribute == "c") return ScalarType::kN;
    return ScalarType::kS;  // g, l
  }
  std::vector<std::string> KeyNames() const {
    if (range_type) return {"pk", "sk"};
    return {"pk"};
  }
};

inline AttributeType ToType(ScalarType t) {
  return t == ScalarType::kS   ? AttributeType::kS
         : t == ScalarType::kN ? AttributeType::kN
                               : AttributeType::kB;
}

// The model's key of an item (or key) of `t`: the canonical texts of its key values.
inline std::string KeyText(const Table& t, const Item& item) {
  std::string out;
  for (const std::string& k : t.KeyNames()) {
    auto it = item.find(k);
    out += (it == item.end() ? std::string("-") : Show(it->second)) + "|";
  }
  return out;
}

inline Item KeyOf(const Table& t, const Item& item) {
  Item key;
  for (const std::string& k : t.KeyNames()) key[k] = item.at(k);
  return key;
}

// A value usable as a key of type `type`: that type and not empty.
inline bool GoodKeyValue(const AttributeValue& v, ScalarType type) {
  return v.type() == ToType(type) && !v.scalar().empty();
}

// The table's own key attributes of `item` are all there and well formed.
inline bool GoodPrimaryKey(const Table& t, const Item& item) {
  for (const std::string& k : t.KeyNames()) {
    auto it = item.find(k);
    if (it == item.end() || !GoodKeyValue(it->second, t.TypeOf(k))) return false;
  }
  return true;
}

// Index key attributes an item has must have the declared type and not be empty (an item
// without them is not indexed, which is fine).
inline bool GoodIndexKeys(const Table& t, const Item& item) {
  std::vector<std::string> attributes;
  if (t.lsi) attributes.push_back("l");
  for (const Gsi& g : t.gsis) {
    attributes.push_back(g.hash);
    if (!g.range.empty()) attributes.push_back(g.range);
  }
  for (const std::string& a : attributes) {
    auto it = item.find(a);
    if (it != item.end() && !GoodKeyValue(it->second, t.TypeOf(a))) return false;
  }
  return true;
}

// What an index holds for an item: nullopt when the item lacks one of its key attributes.
inline std::optional<Item> IndexEntry(const Table& t, const Item& item, const std::string& hash,
                                      const std::string& range, int projection) {
  if (!item.count(hash) || (!range.empty() && !item.count(range))) return std::nullopt;
  if (projection == 0) return item;
  Item entry = KeyOf(t, item);
  entry[hash] = item.at(hash);
  if (!range.empty()) entry[range] = item.at(range);
  if (projection == 2 && item.count("a")) entry["a"] = item.at("a");
  return entry;
}

// --- Conditions: the handful of forms the target writes. ---

struct Condition {
  enum Kind : uint8_t { kNone, kExists, kNotExists, kEq, kNe, kBeginsWith, kLt } kind = kNone;
  std::string attribute;  // kExists/kNotExists: any attribute; else "a", "c", "g"
  AttributeValue value;
};

inline bool Holds(const Condition& c, const std::optional<Item>& item) {
  const AttributeValue* v = nullptr;
  if (item) {
    auto it = item->find(c.attribute);
    if (it != item->end()) v = &it->second;
  }
  switch (c.kind) {
    case Condition::kNone:
      return true;
    case Condition::kExists:
      return v != nullptr;
    case Condition::kNotExists:
      return v == nullptr;
    case Condition::kEq:
      return v != nullptr && Same(*v, c.value);
    case Condition::kNe:  // a missing attribute is not equal to anything
      return v == nullptr || !Same(*v, c.value);
    case Condition::kBeginsWith:
      return v != nullptr && v->type() == AttributeType::kS &&
             c.value.type() == AttributeType::kS && v->scalar().rfind(c.value.scalar(), 0) == 0;
    case Condition::kLt: {  // numbers only (the target compares only numbers)
      if (v == nullptr || v->type() != AttributeType::kN || c.value.type() != AttributeType::kN) {
        return false;
      }
      return *NumberHundredths(v->scalar()) < *NumberHundredths(c.value.scalar());
    }
  }
  return false;
}

// --- Update actions ---

struct Action {
  enum Kind : uint8_t { kSet, kSetIfNotExists, kRemove, kAdd, kDelete, kIncrement } kind = kSet;
  std::string attribute;
  AttributeValue value;
};

// Outcome of applying actions: the new item, or a validation error.
enum class Outcome : uint8_t { kOk, kConditionFailed, kInvalid, kNotFound };

inline std::vector<std::string> SortedMembers(const AttributeValue& set) {
  std::vector<std::string> m = set.set();
  std::sort(m.begin(), m.end());
  return m;
}

// Applies the actions to *item (already holding the key); false: a validation error.
inline bool Apply(const std::vector<Action>& actions, Item* item) {
  for (const Action& a : actions) {
    auto it = item->find(a.attribute);
    const AttributeValue* old = it == item->end() ? nullptr : &it->second;
    switch (a.kind) {
      case Action::kSet:
        (*item)[a.attribute] = a.value;
        break;
      case Action::kSetIfNotExists:
        if (!old) (*item)[a.attribute] = a.value;
        break;
      case Action::kRemove:
        item->erase(a.attribute);
        break;
      case Action::kIncrement: {  // SET #x = #x + :v
        if (!old || old->type() != AttributeType::kN || a.value.type() != AttributeType::kN) {
          return false;
        }
        int64_t sum = *NumberHundredths(old->scalar()) + *NumberHundredths(a.value.scalar());
        (*item)[a.attribute] = AttributeValue::N(NumberText(sum));
        break;
      }
      case Action::kAdd: {
        if (a.value.type() == AttributeType::kN) {
          if (old && old->type() != AttributeType::kN) return false;
          int64_t sum =
              (old ? *NumberHundredths(old->scalar()) : 0) + *NumberHundredths(a.value.scalar());
          (*item)[a.attribute] = AttributeValue::N(NumberText(sum));
        } else {  // a set
          if (old && old->type() != a.value.type()) return false;
          std::set<std::string> members(a.value.set().begin(), a.value.set().end());
          if (old) members.insert(old->set().begin(), old->set().end());
          std::vector<std::string> v(members.begin(), members.end());
          SortSet(a.value.type(), &v);
          (*item)[a.attribute] = a.value.type() == AttributeType::kSS   ? AttributeValue::SS(v)
                                 : a.value.type() == AttributeType::kNS ? AttributeValue::NS(v)
                                                                        : AttributeValue::BS(v);
        }
        break;
      }
      case Action::kDelete: {  // a.value is a set
        if (!old) break;
        if (old->type() != a.value.type()) return false;
        std::set<std::string> members(old->set().begin(), old->set().end());
        for (const std::string& m : a.value.set()) members.erase(m);
        if (members.empty()) {
          item->erase(a.attribute);
          break;
        }
        std::vector<std::string> v(members.begin(), members.end());
        SortSet(a.value.type(), &v);
        (*item)[a.attribute] = a.value.type() == AttributeType::kSS   ? AttributeValue::SS(v)
                               : a.value.type() == AttributeType::kNS ? AttributeValue::NS(v)
                                                                      : AttributeValue::BS(v);
        break;
      }
    }
  }
  return true;
}

inline bool OnlyRemoves(const std::vector<Action>& actions) {
  for (const Action& a : actions) {
    if (a.kind != Action::kRemove && a.kind != Action::kDelete) return false;
  }
  return true;
}

// An UpdateItem of `key` in `t`: the new item (nullopt: nothing to write) or why not.
struct UpdatePrediction {
  Outcome outcome = Outcome::kOk;
  std::optional<Item> new_item;
};

inline UpdatePrediction PredictUpdate(const Table& t, const Item& key, const Condition& cond,
                                      const std::vector<Action>& actions) {
  UpdatePrediction p;
  for (const Action& a : actions) {
    if (a.attribute == "pk" || (a.attribute == "sk" && t.range_type)) {
      p.outcome = Outcome::kInvalid;  // key attributes cannot be updated
      return p;
    }
  }
  auto it = t.items.find(KeyText(t, key));
  std::optional<Item> old;
  if (it != t.items.end()) old = it->second;
  if (!Holds(cond, old)) {
    p.outcome = Outcome::kConditionFailed;
    return p;
  }
  if (!old && OnlyRemoves(actions)) return p;  // creates nothing
  Item item = old ? *old : key;
  if (!Apply(actions, &item) || !GoodIndexKeys(t, item)) {
    p.outcome = Outcome::kInvalid;
    return p;
  }
  p.new_item = std::move(item);
  return p;
}

}  // namespace ddb::fuzz::model
