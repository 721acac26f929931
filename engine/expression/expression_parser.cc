#include "engine/expression/expression_parser.h"

#include <cctype>
#include <climits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "util/ascii.h"

namespace ddb::expr {

std::string_view CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "=";
    case CompareOp::kNe:
      return "<>";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

namespace {

enum class Tok {
  kName,      // [a-zA-Z][a-zA-Z0-9_]*: attribute names, function names, keywords
  kNameRef,   // #[a-zA-Z0-9_]+
  kValueRef,  // :[a-zA-Z0-9_]+
  kNumber,    // [0-9]+ (list indexes)
  kPunct,     // ( ) [ ] , . = <> < <= > >= + -
  kUnknown,   // any other character: always a syntax error
  kEof,
};

struct Token {
  Tok kind;
  std::string_view text;
  size_t begin;  // byte offsets into the expression
  size_t end;
};

bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; }

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    size_t start = i;
    Tok kind;
    if (IsAlpha(c)) {
      while (i < s.size() && IsWordChar(s[i])) ++i;
      kind = Tok::kName;
    } else if ((c == '#' || c == ':') && i + 1 < s.size() && IsWordChar(s[i + 1])) {
      ++i;
      while (i < s.size() && IsWordChar(s[i])) ++i;
      kind = c == '#' ? Tok::kNameRef : Tok::kValueRef;
    } else if (IsDigit(c)) {
      while (i < s.size() && IsDigit(s[i])) ++i;
      kind = Tok::kNumber;
    } else if (c == '<' && i + 1 < s.size() && (s[i + 1] == '>' || s[i + 1] == '=')) {
      i += 2;
      kind = Tok::kPunct;
    } else if (c == '>' && i + 1 < s.size() && s[i + 1] == '=') {
      i += 2;
      kind = Tok::kPunct;
    } else if (std::string_view("()[],.=<>+-").find(c) != std::string_view::npos) {
      ++i;
      kind = Tok::kPunct;
    } else {
      // One whole UTF-8 character, so that the message stays valid UTF-8.
      ++i;
      while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
      kind = Tok::kUnknown;
    }
    tokens.push_back({kind, s.substr(start, i - start), start, i});
  }
  tokens.push_back({Tok::kEof, "<EOF>", s.size(), s.size()});
  return tokens;
}

enum class Grammar { kCondition, kUpdate, kProjection };

// Alternatives are tried with backtracking; a failed parse reports the furthest token any
// alternative could not accept, which is the token the service names in its message.
class Parser {
 public:
  Parser(std::string_view text, std::string_view kind, Grammar grammar)
      : text_(text), kind_(kind), grammar_(grammar), tokens_(Tokenize(text)) {}

  bool ParseConditionExpression(Condition* out) { return ParseOr(out) && ExpectEof(); }

  bool ParseUpdateExpression(ParsedUpdate* out) {
    bool seen[4] = {false, false, false, false};
    do {
      const Token& t = Peek();
      int clause = -1;
      static constexpr std::string_view kClauses[] = {"SET", "REMOVE", "ADD", "DELETE"};
      if (t.kind == Tok::kName) {
        for (int i = 0; i < 4; ++i) {
          if (util::EqualsIgnoreCase(t.text, kClauses[i])) clause = i;
        }
      }
      if (clause < 0) return Fail();
      ++pos_;
      if (seen[clause] && out->duplicate_section.empty()) {
        out->duplicate_section = std::string(kClauses[clause]);
      }
      seen[clause] = true;
      do {
        UpdateAction action;
        action.kind = static_cast<UpdateAction::Kind>(clause);
        if (!ParseUpdateAction(&action)) return false;
        out->actions.push_back(std::move(action));
      } while (AcceptPunct(","));
    } while (Peek().kind != Tok::kEof);
    return true;
  }

  bool ParseProjectionExpression(ParsedProjection* out) {
    do {
      Operand path;
      if (!ParsePath(&path)) return false;
      out->push_back(std::move(path));
    } while (AcceptPunct(","));
    return ExpectEof();
  }

  // "Syntax error; token: "<tok>", near: "<prev tok .. next tok>"", the service's format.
  Error SyntaxError() const {
    size_t bad = std::min(furthest_, tokens_.size() - 1);
    const Token& t = tokens_[bad];
    size_t begin = bad > 0 ? tokens_[bad - 1].begin : t.begin;
    size_t end = t.end;
    if (t.kind == Tok::kEof) {
      end = bad > 0 ? tokens_[bad - 1].end : t.end;
    } else if (tokens_[bad + 1].kind != Tok::kEof) {
      end = tokens_[bad + 1].end;
    }
    std::string message = "Invalid " + std::string(kind_) + ": Syntax error; token: \"" +
                          std::string(t.text) + "\", near: \"" +
                          std::string(text_.substr(begin, end - begin)) + "\"";
    return Error::Validation(std::move(message));
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }

  bool Fail() {
    if (pos_ > furthest_) furthest_ = pos_;
    return false;
  }

  bool IsPunct(const Token& t, std::string_view p) const {
    return t.kind == Tok::kPunct && t.text == p;
  }

  bool AcceptPunct(std::string_view p) {
    if (!IsPunct(Peek(), p)) return false;
    ++pos_;
    return true;
  }

  bool ExpectPunct(std::string_view p) { return AcceptPunct(p) || Fail(); }

  bool ExpectEof() { return Peek().kind == Tok::kEof || Fail(); }

  bool IsKeyword(const Token& t, std::string_view word) const {
    return t.kind == Tok::kName && util::EqualsIgnoreCase(t.text, word);
  }

  // Words the grammar reserves for itself; they cannot start a path.
  bool IsGrammarKeyword(const Token& t) const {
    if (t.kind != Tok::kName) return false;
    switch (grammar_) {
      case Grammar::kCondition:
        return IsKeyword(t, "AND") || IsKeyword(t, "OR") || IsKeyword(t, "NOT") ||
               IsKeyword(t, "BETWEEN") || IsKeyword(t, "IN");
      case Grammar::kUpdate:
        return IsKeyword(t, "SET") || IsKeyword(t, "REMOVE") || IsKeyword(t, "ADD") ||
               IsKeyword(t, "DELETE");
      case Grammar::kProjection:
        return false;
    }
    return false;
  }

  bool ParseOr(Condition* out) {
    if (!ParseAnd(out)) return false;
    while (IsKeyword(Peek(), "OR")) {
      ++pos_;
      Condition rhs;
      if (!ParseAnd(&rhs)) return false;
      Condition both;
      both.kind = Condition::Kind::kOr;
      both.children.push_back(std::move(*out));
      both.children.push_back(std::move(rhs));
      *out = std::move(both);
    }
    return true;
  }

  bool ParseAnd(Condition* out) {
    if (!ParseNot(out)) return false;
    while (IsKeyword(Peek(), "AND")) {
      ++pos_;
      Condition rhs;
      if (!ParseNot(&rhs)) return false;
      Condition both;
      both.kind = Condition::Kind::kAnd;
      both.children.push_back(std::move(*out));
      both.children.push_back(std::move(rhs));
      *out = std::move(both);
    }
    return true;
  }

  bool ParseNot(Condition* out) {
    if (IsKeyword(Peek(), "NOT")) {
      ++pos_;
      Condition child;
      if (!ParseNot(&child)) return false;
      out->kind = Condition::Kind::kNot;
      out->children.push_back(std::move(child));
      return true;
    }
    return ParsePrimary(out);
  }

  bool StartsComparison(const Token& t) const {
    return IsPunct(t, "=") || IsPunct(t, "<>") || IsPunct(t, "<") || IsPunct(t, "<=") ||
           IsPunct(t, ">") || IsPunct(t, ">=") || IsKeyword(t, "BETWEEN") || IsKeyword(t, "IN");
  }

  bool ParsePrimary(Condition* out) {
    // "(" may open a parenthesised condition or a parenthesised operand ("(a) = :v"); try
    // the condition first and fall back to the comparison.
    if (IsPunct(Peek(), "(")) {
      size_t saved = pos_;
      ++pos_;
      Condition inner;
      if (ParseOr(&inner) && ExpectPunct(")")) {
        if (!StartsComparison(Peek())) {
          ++inner.parens;
          *out = std::move(inner);
          return true;
        }
        Fail();
      }
      pos_ = saved;
    }
    Operand lhs;
    if (!ParseOperand(&lhs)) return false;
    const Token& t = Peek();
    if (t.kind == Tok::kPunct && StartsComparison(t)) {
      static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
          {"=", CompareOp::kEq},  {"<>", CompareOp::kNe}, {"<", CompareOp::kLt},
          {"<=", CompareOp::kLe}, {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
      for (const auto& [text, op] : kOps) {
        if (t.text == text) out->op = op;
      }
      ++pos_;
      Operand rhs;
      if (!ParseOperand(&rhs)) return false;
      out->kind = Condition::Kind::kCompare;
      out->operands.push_back(std::move(lhs));
      out->operands.push_back(std::move(rhs));
      return true;
    }
    if (IsKeyword(t, "BETWEEN")) {
      ++pos_;
      Operand lower, upper;
      if (!ParseOperand(&lower)) return false;
      if (!IsKeyword(Peek(), "AND")) return Fail();
      ++pos_;
      if (!ParseOperand(&upper)) return false;
      out->kind = Condition::Kind::kBetween;
      out->operands.push_back(std::move(lhs));
      out->operands.push_back(std::move(lower));
      out->operands.push_back(std::move(upper));
      return true;
    }
    if (IsKeyword(t, "IN")) {
      ++pos_;
      if (!ExpectPunct("(")) return false;
      out->kind = Condition::Kind::kIn;
      out->operands.push_back(std::move(lhs));
      do {
        Operand item;
        if (!ParseOperand(&item)) return false;
        out->operands.push_back(std::move(item));
      } while (AcceptPunct(","));
      return ExpectPunct(")");
    }
    if (lhs.kind == Operand::Kind::kFunction) {
      out->kind = Condition::Kind::kFunction;
      out->operands.push_back(std::move(lhs));
      return true;
    }
    return Fail();
  }

  bool ParseOperand(Operand* out) {
    const Token& t = Peek();
    if (IsPunct(t, "(")) {
      ++pos_;
      if (!ParseOperand(out) || !ExpectPunct(")")) return false;
      ++out->parens;
      return true;
    }
    if (t.kind == Tok::kValueRef) {
      out->kind = Operand::Kind::kValue;
      out->text = std::string(t.text);
      ++pos_;
      return true;
    }
    if (t.kind == Tok::kName && IsPunct(Peek(1), "(") && !IsGrammarKeyword(t)) {
      out->kind = Operand::Kind::kFunction;
      out->text = std::string(t.text);
      pos_ += 2;
      if (AcceptPunct(")")) return true;
      do {
        Operand arg;
        if (!ParseOperand(&arg)) return false;
        out->args.push_back(std::move(arg));
      } while (AcceptPunct(","));
      return ExpectPunct(")");
    }
    return ParsePath(out);
  }

  bool ParsePathElement(Operand* out) {
    const Token& t = Peek();
    if (t.kind == Tok::kName && !IsGrammarKeyword(t)) {
      out->path.push_back({PathToken::Kind::kName, std::string(t.text), -1});
    } else if (t.kind == Tok::kNameRef) {
      out->path.push_back({PathToken::Kind::kNameRef, std::string(t.text), -1});
    } else {
      return Fail();
    }
    ++pos_;
    return true;
  }

  bool ParsePath(Operand* out) {
    out->kind = Operand::Kind::kPath;
    if (!ParsePathElement(out)) return false;
    while (true) {
      if (AcceptPunct(".")) {
        if (!ParsePathElement(out)) return false;
      } else if (AcceptPunct("[")) {
        const Token& t = Peek();
        if (t.kind != Tok::kNumber) return Fail();
        long long index = 0;
        for (char c : t.text) {
          index = index * 10 + (c - '0');
          if (index > INT_MAX) return Fail();
        }
        ++pos_;
        out->path.push_back({PathToken::Kind::kIndex, "", static_cast<int>(index)});
        if (!ExpectPunct("]")) return false;
      } else {
        return true;
      }
    }
  }

  bool ParseUpdateAction(UpdateAction* action) {
    if (!ParsePath(&action->target)) return false;
    switch (action->kind) {
      case UpdateAction::Kind::kSet:
        if (!ExpectPunct("=")) return false;
        return ParseSetValue(action);
      case UpdateAction::Kind::kRemove:
        return true;
      case UpdateAction::Kind::kAdd:
      case UpdateAction::Kind::kDelete:
        if (Peek().kind != Tok::kValueRef) return Fail();
        action->value.kind = Operand::Kind::kValue;
        action->value.text = std::string(Peek().text);
        ++pos_;
        return true;
    }
    return Fail();
  }

  // value | value + value | value - value, optionally in one pair of parentheses.
  bool ParseSetValue(UpdateAction* action) {
    if (IsPunct(Peek(), "(")) {
      size_t saved = pos_;
      ++pos_;
      UpdateAction inner;
      if (ParseSetValue(&inner) && inner.arith != 0 && ExpectPunct(")")) {
        action->value = std::move(inner.value);
        action->arith = inner.arith;
        action->value2 = std::move(inner.value2);
        return true;
      }
      pos_ = saved;
    }
    if (!ParseOperand(&action->value)) return false;
    if (IsPunct(Peek(), "+") || IsPunct(Peek(), "-")) {
      action->arith = Peek().text[0];
      ++pos_;
      return ParseOperand(&action->value2);
    }
    return true;
  }

  std::string_view text_;
  std::string_view kind_;
  Grammar grammar_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  size_t furthest_ = 0;
};

Error EmptyError(std::string_view kind) {
  return Error::Validation("Invalid " + std::string(kind) + ": The expression can not be empty;");
}

// The cache holds successes and failures alike, so a client repeating a bad request does not
// make us re-parse it either. It is bounded: when full it is simply emptied, which is cheap
// and keeps the steady state of a workload with a few distinct expressions.
constexpr size_t kMaxCacheEntries = 4096;
// Texts longer than the service's 4 KB expression limit come only from translated legacy
// conditions (a ScanFilter's IN may list 27,500 values): parsed each time, never kept, so
// that the cache's memory stays bounded by entries x 4 KB.
constexpr size_t kMaxCachedText = 4096;

using CachedTree =
    std::variant<std::shared_ptr<const Condition>, std::shared_ptr<const ParsedUpdate>,
                 std::shared_ptr<const ParsedProjection>, Error>;

struct ParseCache {
  std::mutex mu;
  std::unordered_map<std::string, CachedTree> entries;
};

ParseCache& Cache() {
  static ParseCache* cache = new ParseCache();  // never destroyed: used until exit
  return *cache;
}

// Written into a per-thread buffer that keeps its capacity: a cache hit allocates nothing.
// Parses checked by different functions are cached apart: the check's address is in the key.
template <typename Check>
const std::string& CacheKey(Grammar grammar, Check check, std::string_view kind,
                            std::string_view text) {
  thread_local std::string key;
  key.clear();
  key.push_back(static_cast<char>('0' + static_cast<int>(grammar)));
  key.append(reinterpret_cast<const char*>(&check), sizeof check);
  key.append(kind);
  key.push_back('\0');
  key.append(text);
  return key;
}

template <typename Tree, typename ParseFn>
Result<std::shared_ptr<const Tree>> CachedParse(Grammar grammar, std::string_view kind,
                                                std::string_view text, ParseFn parse,
                                                Status (*check)(const Tree&,
                                                                std::string_view) = nullptr) {
  const std::string& key = CacheKey(grammar, check, kind, text);
  ParseCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) {
      if (const Error* e = std::get_if<Error>(&it->second)) return *e;
      return std::get<std::shared_ptr<const Tree>>(it->second);
    }
  }
  CachedTree entry = Error::Internal("unset");
  if (text.empty()) {
    entry = EmptyError(kind);
  } else {
    Parser parser(text, kind, grammar);
    auto tree = std::make_shared<Tree>();
    if (parse(parser, tree.get())) {
      Status checked = check != nullptr ? check(*tree, kind) : Status::Ok();
      if (checked.ok()) {
        entry = std::shared_ptr<const Tree>(std::move(tree));
      } else {
        entry = checked.error();
      }
    } else {
      entry = parser.SyntaxError();
    }
  }
  if (text.size() <= kMaxCachedText) {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (cache.entries.size() >= kMaxCacheEntries) cache.entries.clear();
    cache.entries.emplace(key, entry);  // a copy: key is the thread's buffer
  }
  if (const Error* e = std::get_if<Error>(&entry)) return *e;
  return std::get<std::shared_ptr<const Tree>>(entry);
}

}  // namespace

Result<std::shared_ptr<const Condition>> ParseCondition(std::string_view text,
                                                        std::string_view kind, TreeCheck check) {
  return CachedParse<Condition>(
      Grammar::kCondition, kind, text,
      [](Parser& p, Condition* c) { return p.ParseConditionExpression(c); }, check);
}

Result<std::shared_ptr<const ParsedUpdate>> ParseUpdate(std::string_view text) {
  return CachedParse<ParsedUpdate>(
      Grammar::kUpdate, "UpdateExpression", text,
      [](Parser& p, ParsedUpdate* u) { return p.ParseUpdateExpression(u); });
}

Result<std::shared_ptr<const ParsedProjection>> ParseProjection(std::string_view text) {
  return CachedParse<ParsedProjection>(
      Grammar::kProjection, "ProjectionExpression", text,
      [](Parser& p, ParsedProjection* proj) { return p.ParseProjectionExpression(proj); });
}

size_t ParseCacheSize() {
  std::lock_guard<std::mutex> lock(Cache().mu);
  return Cache().entries.size();
}

void ClearParseCache() {
  std::lock_guard<std::mutex> lock(Cache().mu);
  Cache().entries.clear();
}

}  // namespace ddb::expr
