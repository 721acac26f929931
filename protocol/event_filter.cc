// FilterCriteria of event source mappings (protocol/lambda.h RecordFilter): the EventBridge
// pattern syntax, which Lambda uses ("For filter rules, Lambda supports the same set of
// syntax and rules as Amazon EventBridge"), matched against a stream record as the function
// would get it. Written here: no Debian or npm library matches EventBridge patterns in C++.
#include <simdjson.h>

#include <cmath>

#include "protocol/json_reader.h"
#include "protocol/json_writer.h"
#include "protocol/lambda.h"
#include "protocol/stream_record_json.h"
#include "util/ascii.h"

namespace ddb::protocol {

// A JSON scalar of a pattern.
struct FilterScalar {
  enum class Type : uint8_t { kString, kNumber, kBool, kNull } type = Type::kNull;
  std::string text;
  double number = 0;
  bool boolean = false;
};

// One element of a field's list: a value, or an operator object.
struct FilterMatcher {
  enum class Kind : uint8_t {
    kValue,             // the scalar itself
    kPrefix,            // {"prefix": "x"} (or {"prefix": {"equals-ignore-case": "x"}})
    kSuffix,            // {"suffix": ...}, likewise
    kEqualsIgnoreCase,  // {"equals-ignore-case": "x"}
    kWildcard,          // {"wildcard": "a*b"}
    kNumeric,           // {"numeric": [">", 1, "<=", 5]}
    kExists,            // {"exists": true|false}
    kAnythingBut,       // {"anything-but": v | [v...] | {"prefix"|"suffix"|...: "x"}}
  } kind = Kind::kValue;
  FilterScalar value;
  std::vector<FilterScalar> values;  // anything-but's list
  bool ignore_case = false;
  bool exists = true;
  std::vector<std::pair<std::string, double>> comparisons;  // numeric
  std::shared_ptr<FilterMatcher> inner;                     // anything-but of prefix, suffix, ...
};

struct FilterPattern {
  struct Field {
    std::string name;
    std::shared_ptr<FilterPattern> nested;  // an object: the field's own pattern
    std::vector<FilterMatcher> matchers;    // a list: any of them
  };
  std::vector<Field> fields;
  std::vector<std::vector<FilterPattern>> ors;  // each "$or": any of its patterns
};

namespace {

using Pattern = FilterPattern;
using Matcher = FilterMatcher;
using Scalar = FilterScalar;

Error Invalid() { return Error::Validation("Invalid filter pattern definition."); }

Result<Scalar> ScalarOf(JsonElement e) {
  Scalar s;
  std::string_view text;
  double number;
  bool boolean;
  if (e.get(text) == simdjson::SUCCESS) {
    s.type = Scalar::Type::kString;
    s.text = std::string(text);
  } else if (e.get(number) == simdjson::SUCCESS) {
    s.type = Scalar::Type::kNumber;
    s.number = number;
  } else if (e.get(boolean) == simdjson::SUCCESS) {
    s.type = Scalar::Type::kBool;
    s.boolean = boolean;
  } else if (e.is_null()) {
    s.type = Scalar::Type::kNull;
  } else {
    return Invalid();
  }
  return s;
}

// {"prefix": "x"} / {"prefix": {"equals-ignore-case": "x"}} and the same for suffix.
Result<Matcher> AffixOf(Matcher::Kind kind, JsonElement e) {
  Matcher m;
  m.kind = kind;
  std::string_view text;
  JsonObject o;
  if (e.get(text) == simdjson::SUCCESS) {
    m.value.text = std::string(text);
  } else if (e.get(o) == simdjson::SUCCESS && o.size() == 1 &&
             o.at_key("equals-ignore-case").get(text) == simdjson::SUCCESS) {
    m.value.text = std::string(text);
    m.ignore_case = true;
  } else {
    return Invalid();
  }
  return m;
}

Result<Matcher> OperatorOf(JsonObject o) {
  if (o.size() != 1) return Invalid();
  const auto [key, value] = *o.begin();
  Matcher m;
  std::string_view text;
  if (key == "prefix") return AffixOf(Matcher::Kind::kPrefix, value);
  if (key == "suffix") return AffixOf(Matcher::Kind::kSuffix, value);
  if (key == "equals-ignore-case" || key == "wildcard") {
    if (value.get(text) != simdjson::SUCCESS) return Invalid();
    m.kind = key == "wildcard" ? Matcher::Kind::kWildcard : Matcher::Kind::kEqualsIgnoreCase;
    m.value.text = std::string(text);
    return m;
  }
  if (key == "exists") {
    if (value.get(m.exists) != simdjson::SUCCESS) return Invalid();
    m.kind = Matcher::Kind::kExists;
    return m;
  }
  if (key == "numeric") {
    simdjson::dom::array list;
    if (value.get(list) != simdjson::SUCCESS || list.size() == 0 || list.size() % 2 != 0 ||
        list.size() > 4) {
      return Invalid();
    }
    m.kind = Matcher::Kind::kNumeric;
    for (auto it = list.begin(); it != list.end();) {
      std::string_view op;
      double bound;
      if ((*it).get(op) != simdjson::SUCCESS) return Invalid();
      ++it;
      if ((*it).get(bound) != simdjson::SUCCESS) return Invalid();
      ++it;
      if (op != "=" && op != "<" && op != "<=" && op != ">" && op != ">=") return Invalid();
      m.comparisons.emplace_back(std::string(op), bound);
    }
    return m;
  }
  if (key == "anything-but") {
    m.kind = Matcher::Kind::kAnythingBut;
    simdjson::dom::array list;
    JsonObject inner;
    if (value.get(list) == simdjson::SUCCESS) {
      if (list.size() == 0) return Invalid();
      for (JsonElement e : list) {
        DDB_ASSIGN_OR_RETURN(Scalar s, ScalarOf(e));
        m.values.push_back(std::move(s));
      }
    } else if (value.get(inner) == simdjson::SUCCESS) {
      DDB_ASSIGN_OR_RETURN(Matcher nested, OperatorOf(inner));
      if (nested.kind != Matcher::Kind::kPrefix && nested.kind != Matcher::Kind::kSuffix &&
          nested.kind != Matcher::Kind::kEqualsIgnoreCase &&
          nested.kind != Matcher::Kind::kWildcard) {
        return Invalid();
      }
      m.inner = std::make_shared<Matcher>(std::move(nested));
    } else {
      DDB_ASSIGN_OR_RETURN(Scalar s, ScalarOf(value));
      m.values.push_back(std::move(s));
    }
    return m;
  }
  return Invalid();
}

Result<Pattern> PatternOf(JsonObject o, int depth) {
  if (depth > 32) return Invalid();
  Pattern p;
  for (const auto [key, value] : o) {
    simdjson::dom::array list;
    JsonObject nested;
    if (key == "$or") {
      if (value.get(list) != simdjson::SUCCESS || list.size() < 2) return Invalid();
      std::vector<Pattern> any;
      for (JsonElement e : list) {
        JsonObject alternative;
        if (e.get(alternative) != simdjson::SUCCESS) return Invalid();
        DDB_ASSIGN_OR_RETURN(Pattern alt, PatternOf(alternative, depth + 1));
        any.push_back(std::move(alt));
      }
      p.ors.push_back(std::move(any));
      continue;
    }
    Pattern::Field f;
    f.name = std::string(key);
    if (value.get(nested) == simdjson::SUCCESS) {
      DDB_ASSIGN_OR_RETURN(Pattern inner, PatternOf(nested, depth + 1));
      f.nested = std::make_shared<Pattern>(std::move(inner));
    } else if (value.get(list) == simdjson::SUCCESS) {
      if (list.size() == 0) return Invalid();
      for (JsonElement e : list) {
        JsonObject op;
        if (e.get(op) == simdjson::SUCCESS) {
          DDB_ASSIGN_OR_RETURN(Matcher m, OperatorOf(op));
          f.matchers.push_back(std::move(m));
        } else {
          DDB_ASSIGN_OR_RETURN(Scalar s, ScalarOf(e));
          Matcher m;
          m.value = std::move(s);
          f.matchers.push_back(std::move(m));
        }
      }
    } else {
      return Invalid();  // a field's value is a list of matchers or a nested pattern
    }
    p.fields.push_back(std::move(f));
  }
  // {} alone matches every record; an empty pattern inside one names nothing to match.
  if (depth > 0 && p.fields.empty() && p.ors.empty()) return Invalid();
  return p;
}

bool Equal(const Scalar& a, JsonElement v) {
  std::string_view text;
  double number;
  bool boolean;
  switch (a.type) {
    case Scalar::Type::kString:
      return v.get(text) == simdjson::SUCCESS && text == a.text;
    case Scalar::Type::kNumber:
      return v.get(number) == simdjson::SUCCESS && number == a.number;
    case Scalar::Type::kBool:
      return v.get(boolean) == simdjson::SUCCESS && boolean == a.boolean;
    case Scalar::Type::kNull:
      return v.is_null();
  }
  return false;
}

bool Lower(std::string_view a, std::string_view b) { return util::EqualsIgnoreCase(a, b); }

// '*' matches any run of characters; iterative, with one backtracking point (linear in
// practice, quadratic at worst in the value's 400 KB bound).
bool Wildcard(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool MatchesValue(const Matcher& m, JsonElement v) {
  std::string_view text;
  const bool is_text = v.get(text) == simdjson::SUCCESS;
  switch (m.kind) {
    case Matcher::Kind::kValue:
      return Equal(m.value, v);
    case Matcher::Kind::kPrefix:
      return is_text && text.size() >= m.value.text.size() &&
             (m.ignore_case ? Lower(text.substr(0, m.value.text.size()), m.value.text)
                            : text.substr(0, m.value.text.size()) == m.value.text);
    case Matcher::Kind::kSuffix:
      return is_text && text.size() >= m.value.text.size() &&
             (m.ignore_case ? Lower(text.substr(text.size() - m.value.text.size()), m.value.text)
                            : text.substr(text.size() - m.value.text.size()) == m.value.text);
    case Matcher::Kind::kEqualsIgnoreCase:
      return is_text && Lower(text, m.value.text);
    case Matcher::Kind::kWildcard:
      return is_text && Wildcard(m.value.text, text);
    case Matcher::Kind::kNumeric: {
      double n;
      if (v.get(n) != simdjson::SUCCESS) return false;
      for (const auto& [op, bound] : m.comparisons) {
        const bool ok = op == "="    ? n == bound
                        : op == "<"  ? n < bound
                        : op == "<=" ? n <= bound
                        : op == ">"  ? n > bound
                                     : n >= bound;
        if (!ok) return false;
      }
      return true;
    }
    case Matcher::Kind::kExists:
      return m.exists;  // a value is there
    case Matcher::Kind::kAnythingBut:
      if (m.inner) return is_text && !MatchesValue(*m.inner, v);
      for (const Scalar& s : m.values) {
        if (Equal(s, v)) return false;
      }
      return true;
  }
  return false;
}

bool MatchesPattern(const Pattern& p, const JsonElement* object);

// A field of the event (null: absent) against the pattern's field.
bool MatchesField(const Pattern::Field& f, const JsonElement* value) {
  if (f.nested) {
    JsonObject o;
    if (value && value->get(o) != simdjson::SUCCESS) return false;
    return MatchesPattern(*f.nested, value);
  }
  for (const Matcher& m : f.matchers) {
    if (!value) {
      if (m.kind == Matcher::Kind::kExists && !m.exists) return true;
      continue;
    }
    simdjson::dom::array list;
    if (value->get(list) == simdjson::SUCCESS) {
      for (JsonElement e : list) {
        if (MatchesValue(m, e)) return true;
      }
      continue;
    }
    JsonObject o;
    if (value->get(o) == simdjson::SUCCESS) {
      if (m.kind == Matcher::Kind::kExists && m.exists) return true;  // an object is there
      continue;
    }
    if (m.kind == Matcher::Kind::kExists && !m.exists) continue;
    if (MatchesValue(m, *value)) return true;
  }
  return false;
}

bool MatchesPattern(const Pattern& p, const JsonElement* object) {
  JsonObject o;
  const bool present = object && object->get(o) == simdjson::SUCCESS;
  for (const Pattern::Field& f : p.fields) {
    JsonElement value;
    const bool has = present && o.at_key(f.name).get(value) == simdjson::SUCCESS;
    if (!MatchesField(f, has ? &value : nullptr)) return false;
  }
  for (const std::vector<Pattern>& any : p.ors) {
    bool one = false;
    for (const Pattern& alternative : any) one = one || MatchesPattern(alternative, object);
    if (!one) return false;
  }
  return true;
}

}  // namespace

Result<RecordFilter> RecordFilter::Parse(const std::vector<std::string>& patterns) {
  RecordFilter filter;
  simdjson::dom::parser parser;
  for (const std::string& text : patterns) {
    JsonElement root;
    JsonObject o;
    if (parser.parse(text).get(root) != simdjson::SUCCESS || root.get(o) != simdjson::SUCCESS) {
      return Invalid();
    }
    DDB_ASSIGN_OR_RETURN(Pattern p, PatternOf(o, 0));
    filter.patterns_.push_back(std::make_shared<Pattern>(std::move(p)));
  }
  return filter;
}

bool RecordFilter::Matches(const StreamRecord& record, const std::string& event_source_arn) const {
  if (patterns_.empty()) return true;
  JsonWriter w;
  WriteLambdaStreamRecord(w, record, event_source_arn);
  std::string json = w.Take();
  static thread_local simdjson::dom::parser parser;
  JsonElement root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return false;
  for (const auto& p : patterns_) {
    if (MatchesPattern(*p, &root)) return true;
  }
  return false;
}

}  // namespace ddb::protocol
