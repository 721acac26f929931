// Hand-written: PartiQL for DynamoDB is a small subset of PartiQL, and no library for it is
// packaged in Debian (the reference implementation is on the JVM).
#include "engine/partiql/partiql_parser.h"

#include <cctype>
#include <cstdlib>

#include "ddb/number.h"
#include "util/ascii.h"

namespace ddb::partiql {
namespace {

struct Token {
  enum class Kind : uint8_t { kEnd, kWord, kQuotedName, kString, kNumber, kPunct };
  Kind kind = Kind::kEnd;
  std::string text;  // words as written; quoted names and strings unescaped
};

Error Malformed(const std::string& detail) {
  return Error::Validation("Statement wasn't well formed, can't be processed: " + detail);
}

Result<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    if (c == '\'' || c == '"') {  // 'string' or "name"; a doubled quote is the quote itself
      t.kind = c == '\'' ? Token::Kind::kString : Token::Kind::kQuotedName;
      ++i;
      while (true) {
        if (i >= s.size()) return Malformed("unterminated quoted text");
        if (s[i] == c) {
          if (i + 1 < s.size() && s[i + 1] == c) {
            t.text.push_back(c);
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text.push_back(s[i++]);
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      t.kind = Token::Kind::kNumber;
      while (i < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
              ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
        t.text.push_back(s[i++]);
      }
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Token::Kind::kWord;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
        t.text.push_back(s[i++]);
      }
    } else {
      t.kind = Token::Kind::kPunct;
      static constexpr std::string_view kTwo[] = {"<<", ">>", "<=", ">=", "<>", "!="};
      for (std::string_view two : kTwo) {
        if (s.substr(i, 2) == two) t.text = std::string(two);
      }
      if (t.text.empty()) {
        if (std::string_view("()[]{},.:?*=<>+-").find(c) == std::string_view::npos) {
          return Malformed("unexpected character '" + std::string(1, c) + "'");
        }
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  out.push_back(Token{});
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::vector<AttributeValue>& parameters)
      : tokens_(std::move(tokens)), parameters_(parameters) {}

  Result<Statement> ParseStatement() {
    Statement st;
    if (AcceptWord("SELECT")) {
      st.kind = Statement::Kind::kSelect;
      DDB_RETURN_IF_ERROR(ParseSelect(&st));
    } else if (AcceptWord("INSERT")) {
      st.kind = Statement::Kind::kInsert;
      DDB_RETURN_IF_ERROR(ParseInsert(&st));
    } else if (AcceptWord("UPDATE")) {
      st.kind = Statement::Kind::kUpdate;
      DDB_RETURN_IF_ERROR(ParseUpdate(&st));
    } else if (AcceptWord("DELETE")) {
      st.kind = Statement::Kind::kDelete;
      DDB_RETURN_IF_ERROR(ParseDelete(&st));
    } else if (AcceptWord("EXISTS")) {
      st.kind = Statement::Kind::kExists;
      DDB_RETURN_IF_ERROR(ExpectPunct("("));
      DDB_RETURN_IF_ERROR(ExpectWord("SELECT"));
      DDB_RETURN_IF_ERROR(ParseSelect(&st));
      DDB_RETURN_IF_ERROR(ExpectPunct(")"));
    } else {
      return Malformed("Expected data manipulation");  // the service's words
    }
    if (Peek().kind != Token::Kind::kEnd) return Unexpected();
    if (next_parameter_ != parameters_.size()) return ParameterCountError();
    return st;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool IsWord(std::string_view w, size_t ahead = 0) const {
    return Peek(ahead).kind == Token::Kind::kWord && util::EqualsIgnoreCase(Peek(ahead).text, w);
  }
  bool IsPunct(std::string_view p, size_t ahead = 0) const {
    return Peek(ahead).kind == Token::Kind::kPunct && Peek(ahead).text == p;
  }
  bool AcceptWord(std::string_view w) {
    if (!IsWord(w)) return false;
    ++pos_;
    return true;
  }
  bool AcceptPunct(std::string_view p) {
    if (!IsPunct(p)) return false;
    ++pos_;
    return true;
  }
  Error Unexpected() const {
    const Token& t = Peek();
    if (t.kind == Token::Kind::kEnd) return Malformed("unexpected end of statement");
    return Malformed("unexpected token '" + t.text + "'");
  }
  Status ExpectWord(std::string_view w) {
    if (AcceptWord(w)) return Status::Ok();
    return Malformed("expected " + std::string(w));
  }
  Status ExpectPunct(std::string_view p) {
    if (AcceptPunct(p)) return Status::Ok();
    return Malformed("expected '" + std::string(p) + "'");
  }
  static Error ParameterCountError() {
    return Error::Validation("Number of parameters in request and statement don't match.");
  }

  Result<std::string> Name() {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kWord && t.kind != Token::Kind::kQuotedName) {
      return Malformed("expected an identifier");
    }
    ++pos_;
    return t.text;
  }

  // table [. index]: the service's words for a longer path or an empty component, which it
  // reports before it looks the table up.
  Status ParseTableRef(Statement* st) {
    std::vector<std::string> components;
    do {
      DDB_ASSIGN_OR_RETURN(std::string name, Name());
      components.push_back(std::move(name));
    } while (AcceptPunct("."));
    if (components.size() > 2) {
      return Error::Validation("A path may contain at most 2 components in the FROM clause");
    }
    for (const std::string& c : components) {
      if (c.empty()) return Error::Validation("Path component cannot be an empty string");
    }
    st->table = std::move(components[0]);
    if (components.size() == 2) st->index = std::move(components[1]);
    return Status::Ok();
  }

  // name ( . name | [ n ] )*
  Result<DocumentPath> Path() {
    DocumentPath path;
    DDB_ASSIGN_OR_RETURN(std::string first, Name());
    path.push_back(PathElement{std::move(first), -1});
    while (true) {
      if (AcceptPunct(".")) {
        DDB_ASSIGN_OR_RETURN(std::string name, Name());
        path.push_back(PathElement{std::move(name), -1});
      } else if (IsPunct("[") && Peek(1).kind == Token::Kind::kNumber) {
        ++pos_;
        const std::string digits = Peek().text;
        ++pos_;
        DDB_RETURN_IF_ERROR(ExpectPunct("]"));
        if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
          return Malformed("invalid list index " + digits);
        }
        path.push_back(PathElement{"", std::atoi(digits.c_str())});
      } else {
        return path;
      }
    }
  }

  bool AtValue() const {
    const Token& t = Peek();
    return t.kind == Token::Kind::kString || t.kind == Token::Kind::kNumber || IsPunct("?") ||
           IsPunct("[") || IsPunct("{") || IsPunct("<<") || IsPunct("-") || IsWord("TRUE") ||
           IsWord("FALSE") || IsWord("NULL");
  }

  Result<AttributeValue> Value() {
    DepthGuard guard(&depth_);
    if (guard.exceeded()) return TooDeep();
    const Token& t = Peek();
    if (t.kind == Token::Kind::kString) {
      ++pos_;
      return AttributeValue::S(t.text);
    }
    if (t.kind == Token::Kind::kNumber || IsPunct("-")) {
      std::string text;
      if (AcceptPunct("-")) {
        if (Peek().kind != Token::Kind::kNumber) return Unexpected();
        text = "-";
      }
      text += Peek().text;
      ++pos_;
      Result<std::string> n = NormalizeNumber(text);
      if (!n.ok()) return Malformed("invalid number " + text);
      return AttributeValue::N(std::move(n.value()));
    }
    if (AcceptPunct("?")) {
      if (next_parameter_ >= parameters_.size()) return ParameterCountError();
      return parameters_[next_parameter_++];
    }
    if (AcceptWord("TRUE")) return AttributeValue::Bool(true);
    if (AcceptWord("FALSE")) return AttributeValue::Bool(false);
    if (AcceptWord("NULL")) return AttributeValue::Null();
    if (AcceptPunct("[")) {
      std::vector<AttributeValue> list;
      if (!AcceptPunct("]")) {
        do {
          DDB_ASSIGN_OR_RETURN(AttributeValue v, Value());
          list.push_back(std::move(v));
        } while (AcceptPunct(","));
        DDB_RETURN_IF_ERROR(ExpectPunct("]"));
      }
      return AttributeValue::L(std::move(list));
    }
    if (IsPunct("{")) {
      DDB_ASSIGN_OR_RETURN(AttributeMap map, Tuple());
      return AttributeValue::M(std::move(map));
    }
    if (AcceptPunct("<<")) return Set();
    return Unexpected();
  }

  // {'name': value, ...}
  Result<AttributeMap> Tuple() {
    DDB_RETURN_IF_ERROR(ExpectPunct("{"));
    AttributeMap map;
    if (AcceptPunct("}")) return map;
    do {
      const Token& t = Peek();
      if (t.kind != Token::Kind::kString && t.kind != Token::Kind::kQuotedName) {
        return Malformed("expected a quoted attribute name in a tuple");
      }
      std::string name = t.text;
      ++pos_;
      DDB_RETURN_IF_ERROR(ExpectPunct(":"));
      DDB_ASSIGN_OR_RETURN(AttributeValue v, Value());
      if (!map.emplace(name, std::move(v)).second) {
        return Malformed("duplicate attribute name '" + name + "' in a tuple");
      }
    } while (AcceptPunct(","));
    DDB_RETURN_IF_ERROR(ExpectPunct("}"));
    return map;
  }

  // <<v, ...>>: every member S, N or B alike.
  Result<AttributeValue> Set() {
    std::vector<AttributeValue> members;
    if (!AcceptPunct(">>")) {
      do {
        DDB_ASSIGN_OR_RETURN(AttributeValue v, Value());
        members.push_back(std::move(v));
      } while (AcceptPunct(","));
      DDB_RETURN_IF_ERROR(ExpectPunct(">>"));
    }
    if (members.empty()) return Error::Validation("An empty set is not allowed");
    const AttributeType type = members[0].type();
    std::vector<std::string> texts;
    for (const AttributeValue& m : members) {
      if (m.type() != type || !m.is_scalar_key_type()) {
        return Malformed("set members must all be strings, all numbers or all binary");
      }
      texts.push_back(m.scalar());
    }
    const AttributeType set_type = type == AttributeType::kS   ? AttributeType::kSS
                                   : type == AttributeType::kN ? AttributeType::kNS
                                                               : AttributeType::kBS;
    if (!SortSet(set_type, &texts))
      return Error::Validation("Input collection contains duplicates");
    if (set_type == AttributeType::kSS) return AttributeValue::SS(std::move(texts));
    if (set_type == AttributeType::kNS) return AttributeValue::NS(std::move(texts));
    return AttributeValue::BS(std::move(texts));
  }

  // An operand: a value, a function call, or a path.
  Result<Expr> Operand() {
    DepthGuard guard(&depth_);
    if (guard.exceeded()) return TooDeep();
    Expr e;
    if (AtValue()) {
      e.kind = Expr::Kind::kValue;
      DDB_ASSIGN_OR_RETURN(e.value, Value());
      return e;
    }
    if (Peek().kind == Token::Kind::kWord && IsPunct("(", 1)) {
      e.kind = Expr::Kind::kFunction;
      e.op = Peek().text;
      e.op = util::AsciiLowerCopy(e.op);
      pos_ += 2;
      if (!AcceptPunct(")")) {
        do {
          DDB_ASSIGN_OR_RETURN(Expr arg, Additive());
          e.args.push_back(std::move(arg));
        } while (AcceptPunct(","));
        DDB_RETURN_IF_ERROR(ExpectPunct(")"));
      }
      return e;
    }
    e.kind = Expr::Kind::kPath;
    DDB_ASSIGN_OR_RETURN(e.path, Path());
    return e;
  }

  Result<Expr> Additive() {
    DDB_ASSIGN_OR_RETURN(Expr left, Operand());
    while (IsPunct("+") || IsPunct("-")) {
      Expr e;
      e.kind = IsPunct("+") ? Expr::Kind::kAdd : Expr::Kind::kSub;
      ++pos_;
      DDB_ASSIGN_OR_RETURN(Expr right, Operand());
      e.args.push_back(std::move(left));
      e.args.push_back(std::move(right));
      left = std::move(e);
    }
    return left;
  }

  Result<Expr> Or() {
    DDB_ASSIGN_OR_RETURN(Expr left, And());
    while (AcceptWord("OR")) {
      DDB_ASSIGN_OR_RETURN(Expr right, And());
      left = Binary(Expr::Kind::kOr, std::move(left), std::move(right));
    }
    return left;
  }
  Result<Expr> And() {
    DDB_ASSIGN_OR_RETURN(Expr left, Not());
    while (AcceptWord("AND")) {
      DDB_ASSIGN_OR_RETURN(Expr right, Not());
      left = Binary(Expr::Kind::kAnd, std::move(left), std::move(right));
    }
    return left;
  }
  Result<Expr> Not() {
    DepthGuard guard(&depth_);
    if (guard.exceeded()) return TooDeep();
    if (AcceptWord("NOT")) {
      DDB_ASSIGN_OR_RETURN(Expr inner, Not());
      Expr e;
      e.kind = Expr::Kind::kNot;
      e.args.push_back(std::move(inner));
      return e;
    }
    return Predicate();
  }
  static Expr Binary(Expr::Kind kind, Expr a, Expr b) {
    Expr e;
    e.kind = kind;
    e.args.push_back(std::move(a));
    e.args.push_back(std::move(b));
    return e;
  }

  Result<Expr> Predicate() {
    if (IsPunct("(")) {
      // A parenthesised condition (operands are never parenthesised on their own here).
      ++pos_;
      DDB_ASSIGN_OR_RETURN(Expr inner, Or());
      DDB_RETURN_IF_ERROR(ExpectPunct(")"));
      return inner;
    }
    DDB_ASSIGN_OR_RETURN(Expr subject, Additive());
    static constexpr std::string_view kCompare[] = {"=", "<>", "!=", "<=", ">=", "<", ">"};
    for (std::string_view op : kCompare) {
      if (AcceptPunct(op)) {
        DDB_ASSIGN_OR_RETURN(Expr right, Additive());
        Expr e = Binary(Expr::Kind::kCompare, std::move(subject), std::move(right));
        e.op = op == "!=" ? "<>" : std::string(op);
        return e;
      }
    }
    const bool negated = IsWord("NOT") && (IsWord("BETWEEN", 1) || IsWord("IN", 1));
    if (negated) ++pos_;
    if (AcceptWord("BETWEEN")) {
      DDB_ASSIGN_OR_RETURN(Expr low, Additive());
      DDB_RETURN_IF_ERROR(ExpectWord("AND"));
      DDB_ASSIGN_OR_RETURN(Expr high, Additive());
      Expr e;
      e.kind = Expr::Kind::kBetween;
      e.args = {std::move(subject), std::move(low), std::move(high)};
      return Negate(std::move(e), negated);
    }
    if (AcceptWord("IN")) {
      Expr e;
      e.kind = Expr::Kind::kIn;
      e.args.push_back(std::move(subject));
      const bool bracket = AcceptPunct("[");
      if (!bracket) DDB_RETURN_IF_ERROR(ExpectPunct("("));
      do {
        DDB_ASSIGN_OR_RETURN(Expr candidate, Additive());
        e.args.push_back(std::move(candidate));
      } while (AcceptPunct(","));
      DDB_RETURN_IF_ERROR(ExpectPunct(bracket ? "]" : ")"));
      return Negate(std::move(e), negated);
    }
    if (AcceptWord("IS")) {
      Expr e;
      e.negated = AcceptWord("NOT");
      if (AcceptWord("MISSING")) {
        e.kind = Expr::Kind::kMissing;
      } else if (AcceptWord("NULL")) {
        e.kind = Expr::Kind::kNull;
      } else {
        return Malformed("expected MISSING or NULL after IS");
      }
      e.args.push_back(std::move(subject));
      return e;
    }
    if (subject.kind == Expr::Kind::kFunction) return subject;  // begins_with(a, 'x') etc.
    return Unexpected();
  }
  static Expr Negate(Expr e, bool negated) {
    if (!negated) return e;
    Expr n;
    n.kind = Expr::Kind::kNot;
    n.args.push_back(std::move(e));
    return n;
  }

  Status ParseSelect(Statement* st) {
    if (!AcceptPunct("*")) {
      do {
        DDB_ASSIGN_OR_RETURN(DocumentPath p, Path());
        st->projection.push_back(std::move(p));
      } while (AcceptPunct(","));
    }
    DDB_RETURN_IF_ERROR(ExpectWord("FROM"));
    DDB_RETURN_IF_ERROR(ParseTableRef(st));
    if (AcceptWord("WHERE")) {
      DDB_ASSIGN_OR_RETURN(Expr where, Or());
      st->where = std::move(where);
    }
    if (AcceptWord("ORDER")) {
      DDB_RETURN_IF_ERROR(ExpectWord("BY"));
      DDB_ASSIGN_OR_RETURN(DocumentPath p, Path());
      st->order_by = std::move(p);
      if (AcceptWord("DESC")) {
        st->descending = true;
      } else {
        AcceptWord("ASC");
      }
    }
    return Status::Ok();
  }

  Status ParseInsert(Statement* st) {
    DDB_RETURN_IF_ERROR(ExpectWord("INTO"));
    DDB_RETURN_IF_ERROR(ParseTableRef(st));
    if (st->index) {
      return Error::Validation(
          "FROM clause may only contain a single table name in data manipulation statements");
    }
    DDB_RETURN_IF_ERROR(ExpectWord("VALUE"));
    DDB_ASSIGN_OR_RETURN(st->item, Tuple());
    return Status::Ok();
  }

  Status ParseUpdate(Statement* st) {
    DDB_RETURN_IF_ERROR(ParseTableRef(st));  // an index is refused once the table is known
    bool any = false;
    while (true) {
      if (AcceptWord("SET")) {
        do {
          SetAction action;
          DDB_ASSIGN_OR_RETURN(action.path, Path());
          DDB_RETURN_IF_ERROR(ExpectPunct("="));
          DDB_ASSIGN_OR_RETURN(action.value, Additive());
          st->sets.push_back(std::move(action));
        } while (AcceptPunct(","));
        any = true;
      } else if (AcceptWord("REMOVE")) {
        do {
          DDB_ASSIGN_OR_RETURN(DocumentPath p, Path());
          st->removes.push_back(std::move(p));
        } while (AcceptPunct(","));
        any = true;
      } else {
        break;
      }
    }
    if (!any) return Malformed("expected SET or REMOVE");
    DDB_RETURN_IF_ERROR(ExpectWord("WHERE"));
    DDB_ASSIGN_OR_RETURN(Expr where, Or());
    st->where = std::move(where);
    return ParseReturning(st, /*delete_only=*/false);
  }

  Status ParseDelete(Statement* st) {
    DDB_RETURN_IF_ERROR(ExpectWord("FROM"));
    DDB_RETURN_IF_ERROR(ParseTableRef(st));  // an index is refused once the table is known
    DDB_RETURN_IF_ERROR(ExpectWord("WHERE"));
    DDB_ASSIGN_OR_RETURN(Expr where, Or());
    st->where = std::move(where);
    return ParseReturning(st, /*delete_only=*/true);
  }

  // RETURNING (ALL | MODIFIED) (OLD | NEW) *
  Status ParseReturning(Statement* st, bool delete_only) {
    if (!AcceptWord("RETURNING")) return Status::Ok();
    const bool all = AcceptWord("ALL");
    if (!all) DDB_RETURN_IF_ERROR(ExpectWord("MODIFIED"));
    const bool old = AcceptWord("OLD");
    if (!old) DDB_RETURN_IF_ERROR(ExpectWord("NEW"));
    DDB_RETURN_IF_ERROR(ExpectPunct("*"));
    if (delete_only && !(all && old)) {
      // The service's words, naming the clause as written (upper case).
      return Error::Validation(std::string("Invalid returning clause: RETURNING ") +
                               (all ? "ALL" : "MODIFIED") + (old ? " OLD" : " NEW") +
                               " *. Only RETURNING ALL OLD * is allowed in DELETE statements.");
    }
    st->returning = all ? (old ? ReturnValues::kAllOld : ReturnValues::kAllNew)
                        : (old ? ReturnValues::kUpdatedOld : ReturnValues::kUpdatedNew);
    return Status::Ok();
  }

  // Nesting (parentheses, NOT, lists, tuples, sets, function calls) is bounded, so that a
  // hostile statement cannot exhaust the stack; DynamoDB's own values nest at most 32 deep.
  static constexpr int kMaxDepth = 64;
  class DepthGuard {
   public:
    explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
    ~DepthGuard() { --*depth_; }
    bool exceeded() const { return *depth_ > kMaxDepth; }

   private:
    int* depth_;
  };
  static Error TooDeep() { return Malformed("the statement nests too deeply"); }

  std::vector<Token> tokens_;
  const std::vector<AttributeValue>& parameters_;
  size_t pos_ = 0;
  size_t next_parameter_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters) {
  DDB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  Parser parser(std::move(tokens), parameters);
  return parser.ParseStatement();
}

}  // namespace ddb::partiql
