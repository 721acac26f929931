#include "engine/import_export/ion_text.h"

#include "ddb/number.h"
#include "util/base64.h"
#include "util/hex.h"

namespace ddb {
namespace {

constexpr int kMaxDepth = 32;

bool IdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IdentifierPart(char c) { return IdentifierStart(c) || (c >= '0' && c <= '9'); }

class IonParser {
 public:
  IonParser(std::string_view text, std::string* error) : in_(text), error_(error) {}
  bool incomplete() const { return incomplete_; }

  bool Fail(const std::string& why) {
    if (error_->empty()) *error_ = why;
    return false;
  }
  bool End() {
    incomplete_ = true;
    return Fail("Unexpected end of input");
  }

  // White space and comments.
  bool SkipSpace() {
    while (pos_ < in_.size()) {
      char c = in_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '/') {
        while (pos_ < in_.size() && in_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '*') {
        size_t close = in_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return End();
        pos_ = close + 2;
      } else {
        break;
      }
    }
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= in_.size();
  }
  bool Take(char c) {
    if (!SkipSpace()) return false;
    if (pos_ < in_.size() && in_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Expect(char c) {
    if (!SkipSpace()) return false;
    if (pos_ >= in_.size()) return End();
    if (in_[pos_] != c) {
      return Fail(std::string("Expected '") + c + "' at offset " + std::to_string(pos_));
    }
    ++pos_;
    return true;
  }

  // A quoted string or symbol body after its opening quote `q`.
  bool Quoted(char q, std::string* out) {
    out->clear();
    while (true) {
      if (pos_ >= in_.size()) return End();
      char c = in_[pos_++];
      if (c == q) return true;
      if (c == '\n' && q == '"') return Fail("Newline in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= in_.size()) return End();
      char e = in_[pos_++];
      switch (e) {
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case '0':
          out->push_back('\0');
          break;
        case 'a':
          out->push_back('\a');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'v':
          out->push_back('\v');
          break;
        case '"':
        case '\'':
        case '\\':
        case '/':
        case '?':
          out->push_back(e);
          break;
        case '\n':
          break;  // an escaped newline continues the string
        case 'x':
        case 'u':
        case 'U': {
          int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (pos_ + digits > in_.size()) return End();
          uint32_t cp = 0;
          for (int i = 0; i < digits; ++i) {
            char h = in_[pos_++];
            int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
            if (d < 0) return Fail("Invalid escape");
            cp = cp * 16 + d;
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return Fail("Invalid escape in string");
      }
    }
  }

  // A bare identifier.
  std::string_view Identifier() {
    size_t start = pos_;
    if (pos_ < in_.size() && IdentifierStart(in_[pos_])) {
      ++pos_;
      while (pos_ < in_.size() && IdentifierPart(in_[pos_])) ++pos_;
    }
    return in_.substr(start, pos_ - start);
  }

  // A field name: identifier, 'symbol' or "string".
  bool FieldName(std::string* name) {
    if (!SkipSpace()) return false;
    if (pos_ >= in_.size()) return End();
    char c = in_[pos_];
    if (c == '\'' || c == '"') {
      ++pos_;
      return Quoted(c, name);
    }
    std::string_view id = Identifier();
    if (id.empty()) return Fail("Expected a field name at offset " + std::to_string(pos_));
    *name = std::string(id);
    return true;
  }

  // Annotations `a::b::` before a value; the set annotations are kept.
  bool Annotations(std::string* annotation) {
    annotation->clear();
    while (true) {
      if (!SkipSpace()) return false;
      size_t save = pos_;
      std::string sym;
      if (pos_ < in_.size() && in_[pos_] == '\'') {
        ++pos_;
        if (!Quoted('\'', &sym)) return false;
      } else {
        sym = std::string(Identifier());
      }
      if (sym.empty() || !SkipSpace()) {
        pos_ = save;
        return true;
      }
      if (pos_ + 1 < in_.size() && in_[pos_] == ':' && in_[pos_ + 1] == ':') {
        pos_ += 2;
        *annotation = sym;
        continue;
      }
      pos_ = save;
      return true;
    }
  }

  // A number (int, decimal, float) as normalised DynamoDB text.
  bool Number(std::string* out) {
    size_t start = pos_;
    while (pos_ < in_.size()) {
      char c = in_[pos_];
      if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'd' || c == 'D' ||
          c == 'e' || c == 'E' || c == '_') {
        ++pos_;
      } else {
        break;
      }
    }
    std::string text;
    for (char c : in_.substr(start, pos_ - start)) {
      if (c == '_') continue;
      text.push_back(c == 'd' || c == 'D' ? 'e' : c);
    }
    if (!text.empty() && text.back() == '.') text.pop_back();
    if (text.empty()) return Fail("Expected a number");
    Result<std::string> n = NormalizeNumber(text);
    if (!n.ok()) return Fail(n.error().message());
    *out = std::move(n).value();
    return true;
  }

  bool Blob(std::string* out) {
    // After "{{".
    size_t close = in_.find("}}", pos_);
    if (close == std::string_view::npos) return End();
    std::string text;
    for (char c : in_.substr(pos_, close - pos_)) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') text.push_back(c);
    }
    pos_ = close + 2;
    if (!util::DecodeBase64(text, out)) return Fail("Invalid base64 in a blob");
    return true;
  }

  bool Value(AttributeValue* out, int depth) {
    if (depth > kMaxDepth) return Fail("Nesting too deep");
    std::string annotation;
    if (!Annotations(&annotation)) return false;
    if (!SkipSpace()) return false;
    if (pos_ >= in_.size()) return End();
    if (annotation == "$dynamodb_SS" || annotation == "$dynamodb_NS" ||
        annotation == "$dynamodb_BS") {
      return Set(annotation, out);
    }
    char c = in_[pos_];
    if (c == '"') {
      ++pos_;
      std::string s;
      if (!Quoted('"', &s)) return false;
      *out = AttributeValue::S(std::move(s));
      return true;
    }
    if (c == '\'' && in_.substr(pos_, 3) == "'''") {
      std::string s, part;  // long strings: adjacent '''...''' segments concatenate
      while (SkipSpace() && in_.substr(pos_, 3) == "'''") {
        size_t close = in_.find("'''", pos_ + 3);
        if (close == std::string_view::npos) return End();
        s.append(in_.substr(pos_ + 3, close - pos_ - 3));
        pos_ = close + 3;
      }
      *out = AttributeValue::S(std::move(s));
      return true;
    }
    if (c == '{' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '{') {
      pos_ += 2;
      std::string b;
      if (!Blob(&b)) return false;
      *out = AttributeValue::B(std::move(b));
      return true;
    }
    if (c == '{') {
      AttributeMap m;
      if (!Struct(&m, depth + 1)) return false;
      *out = AttributeValue::M(std::move(m));
      return true;
    }
    if (c == '[') {
      ++pos_;
      std::vector<AttributeValue> l;
      if (!Take(']')) {
        do {
          if (Take(']')) return Done(out, std::move(l));  // a trailing comma
          AttributeValue v;
          if (!Value(&v, depth + 1)) return false;
          l.push_back(std::move(v));
        } while (Take(','));
        if (!Expect(']')) return false;
      }
      return Done(out, std::move(l));
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
      std::string n;
      if (!Number(&n)) return false;
      *out = AttributeValue::N(std::move(n));
      return true;
    }
    std::string_view word = Identifier();
    if (word == "true" || word == "false") {
      *out = AttributeValue::Bool(word == "true");
      return true;
    }
    if (word == "null") {
      if (pos_ < in_.size() && in_[pos_] == '.') {  // null.string, null.struct, ...
        ++pos_;
        Identifier();
      }
      *out = AttributeValue::Null();
      return true;
    }
    if (word.empty() && pos_ >= in_.size()) return End();
    return Fail("Unsupported Ion value at offset " + std::to_string(pos_));
  }

  bool Done(AttributeValue* out, std::vector<AttributeValue> l) {
    *out = AttributeValue::L(std::move(l));
    return true;
  }

  bool Set(const std::string& annotation, AttributeValue* out) {
    if (!Expect('[')) return false;
    std::vector<std::string> members;
    const bool ss = annotation == "$dynamodb_SS", ns = annotation == "$dynamodb_NS";
    if (!Take(']')) {
      do {
        if (!SkipSpace()) return false;
        if (pos_ >= in_.size()) return End();
        std::string m;
        if (ss) {
          if (!Expect('"') || !Quoted('"', &m)) return false;
        } else if (ns) {
          if (!Number(&m)) return false;
        } else {
          if (!Expect('{') || !Expect('{') || !Blob(&m)) return false;
        }
        members.push_back(std::move(m));
      } while (Take(','));
      if (!Expect(']')) return false;
    }
    if (members.empty()) return Fail("An empty set is not allowed");
    AttributeType t = ss ? AttributeType::kSS : ns ? AttributeType::kNS : AttributeType::kBS;
    if (!SortSet(t, &members)) return Fail("Input collection contains duplicates");
    *out = ss   ? AttributeValue::SS(std::move(members))
           : ns ? AttributeValue::NS(std::move(members))
                : AttributeValue::BS(std::move(members));
    return true;
  }

  bool Struct(AttributeMap* m, int depth) {
    if (!Expect('{')) return false;
    if (Take('}')) return true;
    do {
      if (Take('}')) return true;  // a trailing comma
      std::string name;
      if (!FieldName(&name) || !Expect(':')) return false;
      if (name.empty()) return Fail("Empty attribute name");
      AttributeValue v;
      if (!Value(&v, depth)) return false;
      if (!m->emplace(std::move(name), std::move(v)).second)
        return Fail("Duplicate attribute name");
    } while (Take(','));
    return Expect('}');
  }

  // Skips `$ion_1_0` version markers; false when the text ends (or an error).
  bool SkipVersionMarkers() {
    while (SkipSpace() && pos_ < in_.size()) {
      size_t save = pos_;
      std::string_view id = Identifier();
      if (id.substr(0, 5) == "$ion_") continue;
      pos_ = save;
      return true;
    }
    return false;
  }

 private:
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

void AppendIonString(std::string* out, std::string_view text, char quote) {
  out->push_back(quote);
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (ch == '\n') {
      out->append("\\n");
    } else if (ch == '\r') {
      out->append("\\r");
    } else if (ch == '\t') {
      out->append("\\t");
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\x");
      out->push_back(util::kHexDigits[c >> 4]);
      out->push_back(util::kHexDigits[c & 15]);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back(quote);
}

void AppendFieldName(std::string* out, std::string_view name) {
  bool bare = !name.empty() && IdentifierStart(name[0]) && name[0] != '$' && name != "true" &&
              name != "false" && name != "null" && name != "nan";
  for (char c : name) bare = bare && IdentifierPart(c);
  if (bare) {
    out->append(name);
  } else {
    AppendIonString(out, name, '\'');
  }
}

// A decimal: N text with a '.' ("1.5", "103." for an integer), exponent as d.
void AppendIonDecimal(std::string* out, std::string_view n) {
  size_t e = n.find_first_of("eE");
  std::string_view mantissa = n.substr(0, e);
  out->append(mantissa);
  if (mantissa.find('.') == std::string_view::npos) out->push_back('.');
  if (e != std::string_view::npos) {
    out->push_back('d');
    out->append(n.substr(e + 1));
  }
}

void AppendIonBlob(std::string* out, std::string_view bytes) {
  out->append("{{");
  util::AppendBase64(out, bytes);
  out->append("}}");
}

void AppendIonStruct(std::string* out, const AttributeMap& m);

void AppendIonValue(std::string* out, const AttributeValue& v) {
  switch (v.type()) {
    case AttributeType::kS:
      AppendIonString(out, v.scalar(), '"');
      break;
    case AttributeType::kN:
      AppendIonDecimal(out, v.scalar());
      break;
    case AttributeType::kB:
      AppendIonBlob(out, v.scalar());
      break;
    case AttributeType::kBool:
      out->append(v.boolean() ? "true" : "false");
      break;
    case AttributeType::kNull:
      out->append("null");
      break;
    case AttributeType::kM:
      AppendIonStruct(out, v.map());
      break;
    case AttributeType::kL: {
      out->push_back('[');
      bool first = true;
      for (const AttributeValue& e : v.list()) {
        if (!first) out->push_back(',');
        first = false;
        AppendIonValue(out, e);
      }
      out->push_back(']');
      break;
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      out->append(v.type() == AttributeType::kSS   ? "$dynamodb_SS::["
                  : v.type() == AttributeType::kNS ? "$dynamodb_NS::["
                                                   : "$dynamodb_BS::[");
      bool first = true;
      for (const std::string& m : v.set()) {
        if (!first) out->push_back(',');
        first = false;
        if (v.type() == AttributeType::kSS) {
          AppendIonString(out, m, '"');
        } else if (v.type() == AttributeType::kNS) {
          AppendIonDecimal(out, m);
        } else {
          AppendIonBlob(out, m);
        }
      }
      out->push_back(']');
      break;
    }
  }
}

void AppendIonStruct(std::string* out, const AttributeMap& m) {
  out->push_back('{');
  bool first = true;
  for (const auto& [name, value] : m) {
    if (!first) out->push_back(',');
    first = false;
    AppendFieldName(out, name);
    out->push_back(':');
    AppendIonValue(out, value);
  }
  out->push_back('}');
}

}  // namespace

ParseOutcome ParseIonItem(std::string_view text, Item* item, std::string* error) {
  error->clear();
  item->clear();
  IonParser p(text, error);
  if (!p.SkipVersionMarkers()) {
    return p.incomplete() ? ParseOutcome::kIncomplete : ParseOutcome::kNothing;
  }
  bool seen_item = false;
  bool ok = p.Expect('{');
  if (ok && !p.Take('}')) {
    do {
      if (p.Take('}')) goto closed;
      std::string name;
      ok = p.FieldName(&name) && p.Expect(':');
      if (!ok) break;
      if (name != "Item" || seen_item) {
        ok = p.Fail("Unexpected field: " + name);
        break;
      }
      seen_item = true;
      ok = p.Struct(item, 1);
    } while (ok && p.Take(','));
    ok = ok && p.Expect('}');
  }
closed:
  if (ok) {
    // Anything after the item may only be version markers.
    if (p.SkipVersionMarkers()) ok = p.Fail("Unexpected text after the item");
  }
  if (ok && !seen_item) ok = p.Fail("The record has no Item field");
  if (ok) return ParseOutcome::kItem;
  return p.incomplete() ? ParseOutcome::kIncomplete : ParseOutcome::kError;
}

void AppendIonMap(std::string* out, const Item& item) { AppendIonStruct(out, item); }

void AppendIonItem(std::string* out, const Item& item) {
  out->append("$ion_1_0 {Item:");
  AppendIonStruct(out, item);
  out->push_back('}');
}

}  // namespace ddb
