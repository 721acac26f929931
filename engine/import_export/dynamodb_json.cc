#include "engine/import_export/dynamodb_json.h"

#include "ddb/limits.h"
#include "ddb/number.h"
#include "util/base64.h"
#include "util/json_escape.h"

namespace ddb {
namespace {

// Nesting of L and M values, as the service bounds documents.
constexpr int kMaxDepth = 32;

class Parser {
 public:
  Parser(std::string_view text, std::string* error) : in_(text), error_(error) {}

  bool incomplete() const { return incomplete_; }

  void SkipSpace() {
    while (pos_ < in_.size() &&
           (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= in_.size();
  }
  bool Fail(const std::string& why) {
    if (error_->empty()) *error_ = why;
    return false;
  }
  bool End() {
    incomplete_ = true;
    return Fail("Unexpected end of input");
  }
  bool Expect(char c) {
    SkipSpace();
    if (pos_ >= in_.size()) return End();
    if (in_[pos_] != c) {
      return Fail(std::string("Expected '") + c + "' at offset " + std::to_string(pos_));
    }
    ++pos_;
    return true;
  }
  // Consumes `c` if it is next.
  bool Take(char c) {
    SkipSpace();
    if (pos_ < in_.size() && in_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool String(std::string* out) {
    if (!Expect('"')) return false;
    out->clear();
    while (true) {
      size_t start = pos_;
      while (pos_ < in_.size() && in_[pos_] != '"' && in_[pos_] != '\\') {
        if (static_cast<unsigned char>(in_[pos_]) < 0x20)
          return Fail("Control character in string");
        ++pos_;
      }
      out->append(in_.substr(start, pos_ - start));
      if (pos_ >= in_.size()) return End();
      if (in_[pos_] == '"') {
        ++pos_;
        return true;
      }
      ++pos_;  // backslash
      if (pos_ >= in_.size()) return End();
      char e = in_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
            uint32_t low = 0;
            if (pos_ + 2 > in_.size()) return End();
            if (in_[pos_] != '\\' || in_[pos_ + 1] != 'u') return Fail("Unpaired surrogate");
            pos_ += 2;
            if (!Hex4(&low)) return false;
            if (low < 0xDC00 || low >= 0xE000) return Fail("Unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return Fail("Unpaired surrogate");
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return Fail("Invalid escape in string");
      }
    }
  }

  // A literal word (true, false, null).
  bool Word(std::string_view* word) {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] >= 'a' && in_[pos_] <= 'z') ++pos_;
    *word = in_.substr(start, pos_ - start);
    if (word->empty()) return pos_ >= in_.size() ? End() : Fail("Expected a value");
    return true;
  }

  // {"T": value} with T one of the DynamoDB types.
  bool Value(AttributeValue* out, int depth) {
    if (depth > kMaxDepth) return Fail("Nesting too deep");
    if (!Expect('{')) return false;
    std::string type;
    if (!String(&type) || !Expect(':')) return false;
    std::string text;
    if (type == "S") {
      if (!String(&text)) return false;
      *out = AttributeValue::S(std::move(text));
    } else if (type == "N") {
      if (!String(&text)) return false;
      Result<std::string> n = NormalizeNumber(text);
      if (!n.ok()) return Fail(n.error().message());
      *out = AttributeValue::N(std::move(n).value());
    } else if (type == "B") {
      if (!String(&text)) return false;
      std::string bytes;
      if (!util::DecodeBase64(text, &bytes)) return Fail("Invalid base64 in B value");
      *out = AttributeValue::B(std::move(bytes));
    } else if (type == "BOOL" || type == "NULL") {
      std::string_view w;
      if (!Word(&w)) return false;
      if (w != "true" && w != "false") return Fail("Expected true or false for " + type);
      if (type == "NULL" && w != "true") return Fail("NULL must be true");
      *out = type == "BOOL" ? AttributeValue::Bool(w == "true") : AttributeValue::Null();
    } else if (type == "M") {
      AttributeMap m;
      if (!Map(&m, depth + 1)) return false;
      *out = AttributeValue::M(std::move(m));
    } else if (type == "L") {
      std::vector<AttributeValue> l;
      if (!Expect('[')) return false;
      if (!Take(']')) {
        do {
          AttributeValue v;
          if (!Value(&v, depth + 1)) return false;
          l.push_back(std::move(v));
        } while (Take(','));
        if (!Expect(']')) return false;
      }
      *out = AttributeValue::L(std::move(l));
    } else if (type == "SS" || type == "NS" || type == "BS") {
      std::vector<std::string> members;
      if (!Expect('[')) return false;
      if (!Take(']')) {
        do {
          if (!String(&text)) return false;
          if (type == "NS") {
            Result<std::string> n = NormalizeNumber(text);
            if (!n.ok()) return Fail(n.error().message());
            members.push_back(std::move(n).value());
          } else if (type == "BS") {
            std::string bytes;
            if (!util::DecodeBase64(text, &bytes)) return Fail("Invalid base64 in BS value");
            members.push_back(std::move(bytes));
          } else {
            members.push_back(std::move(text));
          }
        } while (Take(','));
        if (!Expect(']')) return false;
      }
      if (members.empty()) return Fail("An " + type + " set may not be empty");
      AttributeType t = type == "SS"   ? AttributeType::kSS
                        : type == "NS" ? AttributeType::kNS
                                       : AttributeType::kBS;
      if (!SortSet(t, &members)) return Fail("Input collection contains duplicates");
      *out = t == AttributeType::kSS   ? AttributeValue::SS(std::move(members))
             : t == AttributeType::kNS ? AttributeValue::NS(std::move(members))
                                       : AttributeValue::BS(std::move(members));
    } else {
      return Fail("Unknown attribute type: " + type);
    }
    return Expect('}');
  }

  bool Map(AttributeMap* m, int depth) {
    if (!Expect('{')) return false;
    if (Take('}')) return true;
    do {
      std::string name;
      if (!String(&name) || !Expect(':')) return false;
      if (name.empty()) return Fail("Empty attribute name");
      AttributeValue v;
      if (!Value(&v, depth)) return false;
      if (!m->emplace(std::move(name), std::move(v)).second)
        return Fail("Duplicate attribute name");
    } while (Take(','));
    return Expect('}');
  }

 private:
  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > in_.size()) return End();
    for (int i = 0; i < 4; ++i) {
      char c = in_[pos_++];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return Fail("Invalid \\u escape");
      *cp = *cp * 16 + d;
    }
    return true;
  }
  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string* error_;
  bool incomplete_ = false;
};

void AppendValue(std::string* out, const AttributeValue& v) {
  out->append("{\"");
  out->append(AttributeTypeName(v.type()));
  out->append("\":");
  switch (v.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
      util::AppendJsonString(out, v.scalar());
      break;
    case AttributeType::kB:
      out->push_back('"');
      util::AppendBase64(out, v.scalar());
      out->push_back('"');
      break;
    case AttributeType::kBool:
      out->append(v.boolean() ? "true" : "false");
      break;
    case AttributeType::kNull:
      out->append("true");
      break;
    case AttributeType::kM:
      AppendDynamoDbJsonMap(out, v.map());
      break;
    case AttributeType::kL: {
      out->push_back('[');
      bool first = true;
      for (const AttributeValue& e : v.list()) {
        if (!first) out->push_back(',');
        first = false;
        AppendValue(out, e);
      }
      out->push_back(']');
      break;
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      out->push_back('[');
      bool first = true;
      for (const std::string& m : v.set()) {
        if (!first) out->push_back(',');
        first = false;
        if (v.type() == AttributeType::kBS) {
          out->push_back('"');
          util::AppendBase64(out, m);
          out->push_back('"');
        } else {
          util::AppendJsonString(out, m);
        }
      }
      out->push_back(']');
      break;
    }
  }
  out->push_back('}');
}

}  // namespace

ParseOutcome ParseDynamoDbJsonLine(std::string_view line, Item* item, std::string* error) {
  error->clear();
  item->clear();
  Parser p(line, error);
  if (p.AtEnd()) return ParseOutcome::kNothing;
  bool seen_item = false;
  bool ok = p.Expect('{');
  if (ok && !p.Take('}')) {
    do {
      std::string member;
      ok = p.String(&member) && p.Expect(':');
      if (!ok) break;
      if (member != "Item" || seen_item) {
        ok = p.Fail("Unexpected member: " + member);
        break;
      }
      seen_item = true;
      ok = p.Map(item, 1);
    } while (ok && p.Take(','));
    ok = ok && p.Expect('}');
  }
  if (ok && !p.AtEnd()) ok = p.Fail("Unexpected text after the item");
  if (ok && !seen_item) ok = p.Fail("The record has no Item member");
  if (ok) return ParseOutcome::kItem;
  return p.incomplete() ? ParseOutcome::kIncomplete : ParseOutcome::kError;
}

void AppendDynamoDbJsonMap(std::string* out, const Item& item) {
  out->push_back('{');
  bool first = true;
  for (const auto& [name, value] : item) {
    if (!first) out->push_back(',');
    first = false;
    util::AppendJsonString(out, name);
    out->push_back(':');
    AppendValue(out, value);
  }
  out->push_back('}');
}

void AppendDynamoDbJsonItem(std::string* out, const Item& item) {
  out->append("{\"Item\":");
  AppendDynamoDbJsonMap(out, item);
  out->push_back('}');
}

}  // namespace ddb
