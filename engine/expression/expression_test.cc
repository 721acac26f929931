#include "engine/expression/expression.h"

#include <gtest/gtest.h>

#include <thread>

#include "ddb/number.h"
#include "engine/expression/expression_parser.h"
#include "engine/expression/reserved_words.h"

namespace ddb {
namespace {

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(std::string_view n) { return AttributeValue::N(NormalizeNumber(n).value()); }
AttributeValue B(std::string b) { return AttributeValue::B(std::move(b)); }
AttributeValue L(std::vector<AttributeValue> l) { return AttributeValue::L(std::move(l)); }
AttributeValue M(AttributeMap m) { return AttributeValue::M(std::move(m)); }
AttributeValue SS(std::vector<std::string> v) {
  SortSet(AttributeType::kSS, &v);
  return AttributeValue::SS(std::move(v));
}
AttributeValue NS(std::vector<std::string> v) {
  for (auto& n : v) n = NormalizeNumber(n).value();
  SortSet(AttributeType::kNS, &v);
  return AttributeValue::NS(std::move(v));
}
AttributeValue BS(std::vector<std::string> v) {
  SortSet(AttributeType::kBS, &v);
  return AttributeValue::BS(std::move(v));
}

// A request's placeholders.
struct Request {
  std::map<std::string, std::string> names;
  Item values;
  Placeholders p;
  Request(std::map<std::string, std::string> n = {}, Item v = {})
      : names(std::move(n)), values(std::move(v)) {
    p.names = &names;
    p.values = &values;
  }
  // Placeholders point into the object itself, so a copy must re-point them.
  Request(const Request& o) : Request(o.names, o.values) {}
};

// The error message of compiling "text" as a ConditionExpression, or "" when it compiles.
std::string ConditionError(std::string_view text, Request r = Request()) {
  auto c = CompileCondition(text, "ConditionExpression", &r.p);
  return c.ok() ? "" : c.error().message();
}

// The item every evaluation test reads.
Item TestItem() {
  return Item{
      {"s", S("hello")},
      {"s2", S("hello")},
      {"n", N("10")},
      {"n2", N("1e1")},
      {"b", B(std::string("\x01\xff", 2))},
      {"t", AttributeValue::Bool(true)},
      {"z", AttributeValue::Null()},
      {"ss", SS({"a", "b"})},
      {"ns", NS({"1", "2.5"})},
      {"bs", BS({"x", "y"})},
      {"l", L({S("a"), N("1"), M({{"k", S("v")}})})},
      {"m", M({{"a", M({{"b", L({N("1"), N("2")})}})}, {"e", S("")}})},
      {"empty_l", L({})},
  };
}

Item TestValues() {
  return Item{
      {":s", S("hello")},
      {":h", S("he")},
      {":x", S("x")},
      {":n", N("10")},
      {":n5", N("5")},
      {":n20", N("20")},
      {":one", N("1")},
      {":two", N("2")},
      {":b", B(std::string("\x01", 1))},
      {":bff", B(std::string("\x01\xff", 2))},
      {":t", AttributeValue::Bool(true)},
      {":f", AttributeValue::Bool(false)},
      {":null", AttributeValue::Null()},
      {":ss", SS({"b", "a"})},
      {":ns", NS({"2.50", "1"})},
      {":l3", L({S("a"), N("1"), M({{"k", S("v")}})})},
      {":m", M({{"k", S("v")}})},
      {":tS", S("S")},
      {":tN", S("N")},
      {":tB", S("B")},
      {":tBOOL", S("BOOL")},
      {":tNULL", S("NULL")},
      {":tSS", S("SS")},
      {":tNS", S("NS")},
      {":tBS", S("BS")},
      {":tL", S("L")},
      {":tM", S("M")},
      {":a", S("a")},
      {":v", S("v")},
  };
}

bool Eval(std::string_view text, const Item* item) {
  Request r({{"#s", "s"}, {"#dot", "a.b"}}, TestValues());
  auto c = CompileCondition(text, "ConditionExpression", &r.p);
  EXPECT_TRUE(c.ok()) << text << ": " << c.error().message();
  if (!c.ok()) return false;
  return EvaluateCondition(**c, item);
}

// An IN of many constants looks its left-hand side up in a set of them (InConstants): the
// answers must be the comparisons', for every type, on the list and off it.
TEST(Evaluate, InOverManyConstantsAgreesWithComparisons) {
  const std::vector<AttributeValue> constants = {S("a"),
                                                 S(""),
                                                 S("10"),
                                                 N("10"),
                                                 N("-0.5"),
                                                 N("1e3"),
                                                 B(std::string("\x01", 1)),
                                                 B(std::string("\x00\xff", 2)),
                                                 AttributeValue::Bool(true),
                                                 AttributeValue::Null(),
                                                 SS({"a", "b"}),
                                                 NS({"1", "2.5"}),
                                                 BS({"x"}),
                                                 L({S("a"), N("1")}),
                                                 M({{"k", S("v")}}),
                                                 S("z"),
                                                 N("7"),
                                                 L({})};
  std::vector<AttributeValue> probes = constants;
  for (AttributeValue v :
       {S("b"), N("11"), N("1000.0"), B(std::string("\x02", 1)), AttributeValue::Bool(false),
        SS({"a"}), NS({"2.5", "1.0"}), L({N("1"), S("a")}), M({{"k", S("w")}}), M({})}) {
    probes.push_back(v);
  }
  Item values;
  std::string in = "x IN (", any;
  for (size_t i = 0; i < constants.size(); ++i) {
    const std::string ref = ":c" + std::to_string(i);
    values.emplace(ref, constants[i]);
    in += (i ? ", " : "") + ref;
    any += (i ? " OR x = " : "x = ") + ref;
  }
  in += ")";
  for (const AttributeValue& probe : probes) {
    Request r({}, values);
    auto c_in = CompileCondition(in, "ConditionExpression", &r.p);
    Request r2({}, values);
    auto c_any = CompileCondition(any, "ConditionExpression", &r2.p);
    ASSERT_TRUE(c_in.ok() && c_any.ok());
    const Item item{{"x", probe}};
    const bool listed = std::find(constants.begin(), constants.end(), probe) != constants.end();
    EXPECT_EQ(EvaluateCondition(**c_in, &item), listed) << AttributeTypeName(probe.type());
    EXPECT_EQ(EvaluateCondition(**c_any, &item), listed) << AttributeTypeName(probe.type());
  }
}

TEST(Reserved, Words) {
  EXPECT_TRUE(IsReservedWord("STATUS"));
  EXPECT_TRUE(IsReservedWord("status"));
  EXPECT_TRUE(IsReservedWord("Name"));
  EXPECT_TRUE(IsReservedWord("ABORT"));
  EXPECT_TRUE(IsReservedWord("ZONE"));
  EXPECT_TRUE(IsReservedWord("size"));
  EXPECT_FALSE(IsReservedWord("status1"));
  EXPECT_FALSE(IsReservedWord("pk"));
  EXPECT_FALSE(IsReservedWord(""));
}

TEST(Reserved, InExpressions) {
  EXPECT_EQ(ConditionError("status = :s", Request({}, {{":s", S("x")}})),
            "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: status");
  EXPECT_EQ(ConditionError("a.Name = :s", Request({}, {{":s", S("x")}})),
            "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: Name");
  EXPECT_EQ(ConditionError("#status = :s", Request({{"#status", "status"}}, {{":s", S("x")}})), "");
  Request r;
  auto p = CompileProjection("a, COUNT", &r.p);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: COUNT");
}

struct SyntaxCase {
  std::string text;
  std::string message;
};

TEST(ExprParse, SyntaxErrors) {
  const SyntaxCase cases[] = {
      {"", "Invalid ConditionExpression: The expression can not be empty;"},
      {"foo", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"foo\""},
      {"a = ", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""},
      {"a == :v", "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"== :v\""},
      {"_a = :v", "Invalid ConditionExpression: Syntax error; token: \"_\", near: \"_a\""},
      {"a = :v b", "Invalid ConditionExpression: Syntax error; token: \"b\", near: \":v b\""},
      {"a[-1] = :v", "Invalid ConditionExpression: Syntax error; token: \"-\", near: \"[-1\""},
      {"a[:v] = :v", "Invalid ConditionExpression: Syntax error; token: \":v\", near: \"[:v]\""},
      {"a.1 = :v", "Invalid ConditionExpression: Syntax error; token: \"1\", near: \".1 =\""},
      {"(a = :v", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":v\""},
      {"a = :v AND", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\""},
      {"a BETWEEN :v", "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":v\""},
      {"a IN :v", "Invalid ConditionExpression: Syntax error; token: \":v\", near: \"IN :v\""},
      {"a = #", "Invalid ConditionExpression: Syntax error; token: \"#\", near: \"= #\""},
      {"a = a + :v", "Invalid ConditionExpression: Syntax error; token: \"+\", near: \"a + :v\""},
      {"a = :v !", "Invalid ConditionExpression: Syntax error; token: \"!\", near: \":v !\""},
  };
  for (const auto& c : cases) EXPECT_EQ(ConditionError(c.text), c.message) << c.text;
}

TEST(ExprParse, ValidForms) {
  Request r({{"#a", "a"}, {"#b", "b"}}, {{":v", S("x")}, {":w", S("y")}});
  const char* valid[] = {
      "a = :v",
      "#a.#b[3].c = :v",
      "a.b[2].c <> :v",
      "(a = :v)",
      "(a) = :v",
      "NOT a = :v",
      "not (a = :v) and b = :v or c < :w",
      "a BETWEEN :v AND :w",
      "a between :v and :w",
      "a IN (:v, :w, b)",
      "attribute_exists(a) AND attribute_not_exists(#b)",
      "size(a) > :w",
      ":v < size(a)",
      "begins_with(a, :v)",
      "contains(a, :v)",
      "attribute_type(a, :v) OR (a = :v AND (b = :w OR c = :w))",
      "a=:v",
      "  a   =   :v  ",
      "a_1 = :v",
  };
  for (const char* text : valid) {
    r.p.used_names.clear();
    auto c = CompileCondition(text, "FilterExpression", &r.p);
    if (std::string_view(text).find("attribute_type") != std::string_view::npos) {
      // :v is "x", not a type name.
      ASSERT_FALSE(c.ok());
      continue;
    }
    EXPECT_TRUE(c.ok()) << text << ": " << c.error().message();
  }
}

TEST(ExprParse, Precedence) {
  Item item = {{"a", N("1")}, {"b", N("2")}};
  Request r({}, {{":one", N("1")}, {":two", N("2")}, {":three", N("3")}});
  auto eval = [&](std::string_view text) {
    auto c = CompileCondition(text, "ConditionExpression", &r.p);
    EXPECT_TRUE(c.ok()) << c.error().message();
    return EvaluateCondition(**c, &item);
  };
  // OR binds loosest: true OR (false AND false).
  EXPECT_TRUE(eval("a = :one OR a = :two AND b = :three"));
  EXPECT_FALSE(eval("(a = :one OR a = :two) AND b = :three"));
  // NOT binds tightest: (NOT false) AND true.
  EXPECT_TRUE(eval("NOT a = :two AND b = :two"));
  EXPECT_FALSE(eval("NOT (a = :one AND b = :two)"));
  EXPECT_TRUE(eval("NOT NOT a = :one"));
}

TEST(ExprParse, CacheIsUsedAndBounded) {
  expr::ClearParseCache();
  Request r({}, {{":v", S("x")}});
  ASSERT_TRUE(CompileCondition("cache_test = :v", "ConditionExpression", &r.p).ok());
  size_t size = expr::ParseCacheSize();
  EXPECT_GE(size, 1u);
  ASSERT_TRUE(CompileCondition("cache_test = :v", "ConditionExpression", &r.p).ok());
  EXPECT_EQ(expr::ParseCacheSize(), size);
  // The same text under another kind is a different entry (its messages differ).
  auto bad = CompileCondition("cache_test = ", "FilterExpression", &r.p);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("Invalid FilterExpression"), std::string::npos);
  // Concurrent use is safe.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        Request req({}, {{":v", S("x")}});
        std::string text = "a" + std::to_string((i + t) % 50) + " = :v";
        auto c = CompileCondition(text, "ConditionExpression", &req.p);
        EXPECT_TRUE(c.ok());
      }
    });
  }
  for (auto& t : threads) t.join();
}

struct StaticErrorCase {
  std::string text;
  std::string message;  // without "Invalid ConditionExpression: "
};

TEST(ExprCondition, StaticErrors) {
  const StaticErrorCase cases[] = {
      {"foo(a)", "Invalid function name; function: foo"},
      {"if_not_exists(a, :s) = :s",
       "The function is not allowed in a condition expression; function: if_not_exists"},
      {"list_append(a, :l3) = :l3",
       "The function is not allowed in a condition expression; function: list_append"},
      {"size(a)",
       "The function is not allowed to be used this way in an expression; function: size"},
      {"attribute_exists(a) = :t",
       "The function is not allowed to be used this way in an expression; function: "
       "attribute_exists"},
      {"attribute_exists(a, b)",
       "Incorrect number of operands for operator or function; operator or function: "
       "attribute_exists, number of operands: 2"},
      {"contains(a)",
       "Incorrect number of operands for operator or function; operator or function: contains, "
       "number of operands: 1"},
      {"attribute_exists(:s)",
       "Operator or function requires a document path; operator or function: attribute_exists"},
      {"attribute_not_exists(:s)",
       "Operator or function requires a document path; operator or function: "
       "attribute_not_exists"},
      {"begins_with(a, :n)",
       "Incorrect operand type for operator or function; operator or function: begins_with, "
       "operand type: N"},
      {"size(:n) > :n",
       "Incorrect operand type for operator or function; operator or function: size, operand "
       "type: N"},
      {"size(:t) > :n",
       "Incorrect operand type for operator or function; operator or function: size, operand "
       "type: BOOL"},
      {"attribute_type(a, :n)",
       "Incorrect operand type for operator or function; operator or function: attribute_type, "
       "operand type: N"},
      {"attribute_type(a, :s)",
       "Invalid attribute type name found; type: hello, valid types: "
       "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
      {"a < :t",
       "Incorrect operand type for operator or function; operator or function: <, operand "
       "type: BOOL"},
      {"a >= :ss",
       "Incorrect operand type for operator or function; operator or function: >=, operand "
       "type: SS"},
      {"a BETWEEN :l3 AND :l3",
       "Incorrect operand type for operator or function; operator or function: BETWEEN, "
       "operand type: L"},
      {"a BETWEEN :n AND :s",
       "The BETWEEN operator requires same data type for lower and upper bounds; lower bound "
       "operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {S:hello}"},
      {"a BETWEEN :n20 AND :n5",
       "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
       "lower bound operand: AttributeValue: {N:20}, upper bound operand: AttributeValue: {N:5}"},
      {"a = a",
       "The first operand must be distinct from the remaining operands for this operator or "
       "function; operator: =, first operand: [a]"},
      {"contains(a.b[1], a.b[1])",
       "The first operand must be distinct from the remaining operands for this operator or "
       "function; operator: contains, first operand: [a, b, [1]]"},
      {"((a = :s))", "The expression has redundant parentheses;"},
      {"((a)) = :s", "The expression has redundant parentheses;"},
      {"a = :undefined",
       "An expression attribute value used in expression is not defined; attribute value: "
       ":undefined"},
      {"#undefined = :s",
       "An expression attribute name used in the document path is not defined; attribute name: "
       "#undefined"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ConditionError(c.text, Request({}, TestValues())),
              "Invalid ConditionExpression: " + c.message)
        << c.text;
  }
  // The valid type names, and a = b between different paths, compile.
  for (const char* t :
       {":tS", ":tN", ":tB", ":tBOOL", ":tNULL", ":tSS", ":tNS", ":tBS", ":tL", ":tM"}) {
    EXPECT_EQ(
        ConditionError("attribute_type(a, " + std::string(t) + ")", Request({}, TestValues())), "");
  }
  EXPECT_EQ(ConditionError("a = b"), "");
}

TEST(ExprCondition, PathDepthAndInLimit) {
  std::string path = "a";
  for (int i = 1; i < 32; ++i) path += ".b";
  Request r({}, {{":v", S("x")}});
  EXPECT_EQ(ConditionError(path + " = :v", r), "");
  EXPECT_EQ(ConditionError(path + ".c = :v", Request({}, {{":v", S("x")}})),
            "Invalid ConditionExpression: The document path has too many nesting levels; "
            "nesting levels: 33");
  std::string in = "a IN (:v";
  for (int i = 1; i < 100; ++i) in += ", :v";
  EXPECT_EQ(ConditionError(in + ")", Request({}, {{":v", S("x")}})), "");
  EXPECT_EQ(ConditionError(in + ", :v)", Request({}, {{":v", S("x")}})),
            "Invalid ConditionExpression: The IN operator is provided with too many operands; "
            "number of operands: 101");
}

struct EvalCase {
  std::string text;
  bool expected;
};

TEST(ExprCondition, EvaluateEveryOperatorOnEveryType) {
  Item item = TestItem();
  const EvalCase cases[] = {
      // = and <> on every type; numbers by value.
      {"s = :s", true},
      {"s = :x", false},
      {"n = :n", true},
      {"n2 = :n", true},
      {"b = :bff", true},
      {"b = :b", false},
      {"t = :t", true},
      {"t = :f", false},
      {"z = :null", true},
      {"ss = :ss", true},
      {"ns = :ns", true},
      {"l = :l3", true},
      {"m.a.b[0] = :one", true},
      {"s = :n", false},  // different types: false, not an error
      {"s <> :n", true},
      {"s <> :s", false},
      {"absent = :s", false},
      {"absent <> :s", true},
      {"s = s2", true},
      {"n = n2", true},
      // Ordering on N, S, B; false on other types and across types.
      {"n < :n20", true},
      {"n <= :n", true},
      {"n > :n5", true},
      {"n >= :n20", false},
      {"s > :h", true},
      {"s < :h", false},
      {"s < :x", true},
      {"b > :b", true},
      {"b < :b", false},
      {"s < :n", false},
      {"s > :n", false},
      {"absent < :n", false},
      {"t < z", false},
      {"ss > ns", false},
      {"l < m", false},
      // BETWEEN is inclusive.
      {"n BETWEEN :n5 AND :n20", true},
      {"n BETWEEN :n AND :n", true},
      {"n BETWEEN :one AND :n5", false},
      {"s BETWEEN :h AND :x", true},
      {"s BETWEEN :n5 AND :n20", false},
      {"absent BETWEEN :n5 AND :n20", false},
      // IN.
      {"n IN (:one, :n)", true},
      {"n IN (:one, :two)", false},
      {"s IN (:n, s2)", true},
      {"absent IN (:n)", false},
      // Functions.
      {"attribute_exists(s)", true},
      {"attribute_exists(absent)", false},
      {"attribute_exists(m.a.b[1])", true},
      {"attribute_exists(m.a.b[2])", false},
      {"attribute_exists(l[2].k)", true},
      {"attribute_exists(s.x)", false},
      {"attribute_not_exists(absent)", true},
      {"attribute_not_exists(s)", false},
      {"attribute_type(s, :tS)", true},
      {"attribute_type(n, :tN)", true},
      {"attribute_type(b, :tB)", true},
      {"attribute_type(t, :tBOOL)", true},
      {"attribute_type(z, :tNULL)", true},
      {"attribute_type(ss, :tSS)", true},
      {"attribute_type(ns, :tNS)", true},
      {"attribute_type(bs, :tBS)", true},
      {"attribute_type(l, :tL)", true},
      {"attribute_type(m, :tM)", true},
      {"attribute_type(s, :tN)", false},
      {"attribute_type(absent, :tS)", false},
      {"begins_with(s, :h)", true},
      {"begins_with(s, :s)", true},
      {"begins_with(s, :x)", false},
      {"begins_with(b, :b)", true},
      {"begins_with(s, :b)", false},
      {"begins_with(n, :h)", false},
      {"begins_with(absent, :h)", false},
      {"contains(s, :h)", true},
      {"contains(s, :x)", false},
      {"contains(b, :b)", true},
      {"contains(ss, :a)", true},
      {"contains(ss, :x)", false},
      {"contains(ns, :two)", false},
      {"contains(ns, :one)", true},
      {"contains(bs, :b)", false},
      {"contains(l, :a)", true},
      {"contains(l, :one)", true},
      {"contains(l, :m)", true},
      {"contains(l, :x)", false},
      {"contains(m, :a)", false},
      {"contains(n, :n)", false},
      {"contains(absent, :a)", false},
      {"contains(s, s2)", true},
      // size.
      {"size(s) = :n5", true},
      {"size(b) = :two", true},
      {"size(ss) = :two", true},
      {"size(ns) = :two", true},
      {"size(l) > :two", true},
      {"size(m) = :two", true},
      {"size(empty_l) < :one", true},
      {"size(m.e) < :one", true},
      {"size(n) = :two", false},
      {"size(absent) < :one", false},
      {"size(:s) = :n5", true},
      // Placeholders in paths; a #name with a dot is one attribute.
      {"#s = :s", true},
      {"attribute_exists(#dot)", false},
      // Combinations.
      {"s = :s AND n = :n", true},
      {"s = :x OR n = :n", true},
      {"NOT s = :x", true},
      {"NOT (s = :s AND n = :n)", false},
  };
  for (const auto& c : cases) EXPECT_EQ(Eval(c.text, &item), c.expected) << c.text;
}

TEST(ExprCondition, MissingItem) {
  EXPECT_FALSE(Eval("attribute_exists(s)", nullptr));
  EXPECT_TRUE(Eval("attribute_not_exists(s)", nullptr));
  EXPECT_FALSE(Eval("s = :s", nullptr));
  EXPECT_TRUE(Eval("s <> :s", nullptr));
  EXPECT_FALSE(Eval("size(s) > :one", nullptr));
}

TEST(ExprCondition, ResolvePath) {
  Item item = TestItem();
  const AttributeValue* v = ResolvePath(item, {{"m", -1}, {"a", -1}, {"b", -1}, {"", 1}});
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(*v, N("2"));
  EXPECT_EQ(ResolvePath(item, {{"m", -1}, {"", 0}}), nullptr);
  EXPECT_EQ(ResolvePath(item, {{"l", -1}, {"k", -1}}), nullptr);
  EXPECT_EQ(ResolvePath(item, {{"l", -1}, {"", 3}}), nullptr);
  EXPECT_EQ(ResolvePath(item, {}), nullptr);
}

TEST(ExprPlaceholders, UnusedAreReported) {
  Request r({{"#b", "b"}, {"#a", "a"}, {"#used", "u"}}, {{":v", S("x")}, {":w", S("y")}});
  ASSERT_TRUE(CompileCondition("#used = :v", "ConditionExpression", &r.p).ok());
  Status s = CheckAllPlaceholdersUsed(r.p);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}");
  ASSERT_TRUE(CompileCondition("#a = :v AND #b = :v", "ConditionExpression", &r.p).ok());
  s = CheckAllPlaceholdersUsed(r.p);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}");
  // Usage accumulates over all expressions of a request.
  ASSERT_TRUE(CompileProjection("#a, x", &r.p).ok());
  ASSERT_TRUE(CompileCondition("a = :w", "FilterExpression", &r.p).ok());
  EXPECT_TRUE(CheckAllPlaceholdersUsed(r.p).ok());
  // No maps at all.
  Placeholders none;
  EXPECT_TRUE(CheckAllPlaceholdersUsed(none).ok());
  auto c = CompileCondition("#a = :v", "ConditionExpression", &none);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(),
            "Invalid ConditionExpression: An expression attribute name used in the document path "
            "is not defined; attribute name: #a");
}

TEST(Projection, CompileAndApply) {
  Request r(std::map<std::string, std::string>{{"#m", "m"}, {"#dot", "x.y"}});
  auto p = CompileProjection("s, #m.a.b[1], l[2], l[0], absent, #dot", &r.p);
  ASSERT_TRUE(p.ok()) << p.error().message();
  Item item = TestItem();
  item["x.y"] = N("7");
  Item out = ApplyProjection(*p, item);
  Item expected = {
      {"s", S("hello")},
      {"m", M({{"a", M({{"b", L({N("2")})}})}})},
      {"l", L({S("a"), M({{"k", S("v")}})})},
      {"x.y", N("7")},
  };
  EXPECT_EQ(out, expected);
  // Sub-paths that match nothing leave nothing behind.
  auto q = CompileProjection("m.zz, l[7], s.q, m.a.b[0]", &r.p);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(ApplyProjection(*q, item), (Item{{"m", M({{"a", M({{"b", L({N("1")})}})}})}}));
}

TEST(Projection, Errors) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "Invalid ProjectionExpression: The expression can not be empty;"},
      {"a, a",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a]"},
      // Names alone (a hash map, not the pairwise loop): the first path that repeats an
      // earlier one, with that one's first appearance.
      {"x, b, a, c, b, a",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [b], path two: [b]"},
      {"b, a, a, b",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a]"},
      {"a, a.b",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a], path two: [a, b]"},
      {"a.b[1].c, a.b",
       "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
       "rewrite one of these paths; path one: [a, b, [1], c], path two: [a, b]"},
      {"a.b, a[1]",
       "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
       "rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
      {"a,", "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\""},
      {"a b", "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\""},
      {"#nope",
       "Invalid ProjectionExpression: An expression attribute name used in the document "
       "path is not defined; attribute name: #nope"},
  };
  for (const auto& c : cases) {
    Request r;
    auto p = CompileProjection(c.text, &r.p);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.error().message(), c.message) << c.text;
  }
  Request r;
  EXPECT_TRUE(CompileProjection("a.b, a.c, a.d[1], a.d[2], b[0][1]", &r.p).ok());
}

// Table with hash key "pk" (S) and range key "sk" (N).
Result<KeyCondition> Key(std::string_view text, Item values,
                         std::map<std::string, std::string> names = {},
                         AttributeType range_type = AttributeType::kN) {
  static const std::string kRange = "sk";
  Request r(std::move(names), std::move(values));
  return CompileKeyCondition(text, "pk", AttributeType::kS, &kRange, range_type, &r.p);
}

TEST(KeyCondition, Valid) {
  Item v = {{":p", S("x")}, {":a", N("1")}, {":b", N("5")}};
  auto k = Key("pk = :p", v);
  ASSERT_TRUE(k.ok()) << k.error().message();
  EXPECT_EQ(k->hash_name, "pk");
  EXPECT_EQ(k->hash_value, S("x"));
  EXPECT_FALSE(k->sort_op.has_value());

  struct Case {
    std::string text;
    KeyCondition::Op op;
  };
  const Case cases[] = {
      {"pk = :p AND sk = :a", KeyCondition::Op::kEq},
      {"sk < :a AND pk = :p", KeyCondition::Op::kLt},
      {"pk = :p AND sk <= :a", KeyCondition::Op::kLe},
      {"pk = :p AND :a < sk", KeyCondition::Op::kGt},  // flipped
      {"pk = :p AND :a >= sk", KeyCondition::Op::kLe},
      {"(pk = :p) AND (sk > :a)", KeyCondition::Op::kGt},
      {"(pk = :p AND sk >= :a)", KeyCondition::Op::kGe},
      {":p = pk AND sk BETWEEN :a AND :b", KeyCondition::Op::kBetween},
      {"#k = :p AND #r BETWEEN :a AND :b", KeyCondition::Op::kBetween},
  };
  for (const auto& c : cases) {
    auto kc = Key(c.text, v, {{"#k", "pk"}, {"#r", "sk"}});
    ASSERT_TRUE(kc.ok()) << c.text << ": " << kc.error().message();
    EXPECT_EQ(kc->sort_op, c.op) << c.text;
    EXPECT_EQ(kc->sort_name, "sk");
    EXPECT_EQ(kc->sort_value, N("1")) << c.text;
  }
  auto between = Key("pk = :p AND sk BETWEEN :a AND :b", v);
  ASSERT_TRUE(between.ok());
  EXPECT_EQ(between->sort_value2, N("5"));
  auto begins = Key("pk = :p AND begins_with(sk, :s)", {{":p", S("x")}, {":s", S("ab")}}, {},
                    AttributeType::kS);
  ASSERT_TRUE(begins.ok()) << begins.error().message();
  EXPECT_EQ(begins->sort_op, KeyCondition::Op::kBeginsWith);
  EXPECT_EQ(begins->sort_value, S("ab"));
}

TEST(KeyCondition, Errors) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "Invalid KeyConditionExpression: The expression can not be empty;"},
      {"pk = :p OR sk = :a",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR"},
      {"pk = :p AND NOT sk = :a",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: NOT"},
      {"pk = :p AND sk IN (:a)",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: IN"},
      {"pk = :p AND sk <> :a",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: <>"},
      {"pk = :p AND attribute_exists(sk)",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: "
       "attribute_exists"},
      {"pk = :p AND contains(sk, :a)",
       "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: contains"},
      {"pk = :p AND :a BETWEEN sk AND :b",
       "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: BETWEEN "
       "operator must have the key "
       "attribute as its first operand"},
      {"pk = :p AND begins_with(:s, sk)",
       "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: begins_with "
       "operator must have the key "
       "attribute as its first operand"},
      {"pk = :p AND size(sk) > :a",
       "Invalid KeyConditionExpression: KeyConditionExpressions cannot contain nested operations"},
      {"pk = :p AND sk.x > :a",
       "Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on nested "
       "attributes"},
      {"pk = :p AND sk > pk",
       "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: Multiple "
       "attribute names used in one "
       "condition"},
      {"pk = :p AND :a > :b",
       "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: No key "
       "attribute specified"},
      {"pk = :p AND sk > :a AND sk < :b",
       "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition "
       "per key"},
      {"pk = :p AND sk > :a AND x < :b", "Conditions can be of length 1 or 2 only"},
      {"sk = :a", "Query condition missed key schema element: pk"},
      {"x = :p", "Query condition missed key schema element: pk"},
      {"pk = :p AND x = :a", "Query condition missed key schema element: sk"},
      {"pk > :p", "Query key condition not supported"},
      {"begins_with(pk, :p)", "Query key condition not supported"},
      {"pk = :a",
       "One or more parameter values were invalid: Condition parameter type does not "
       "match schema type"},
      {"pk = :p AND sk = :p",
       "One or more parameter values were invalid: Condition parameter type does not match "
       "schema type"},
      {"pk = :p AND begins_with(sk, :a)",
       "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
       "operator or function: begins_with, operand type: N"},
      {"pk = :p AND begins_with(sk, :s)",
       "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
       "operator or function: begins_with, operand type: N"},
      {"pk = :p AND sk BETWEEN :b AND :a",
       "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater "
       "than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound "
       "operand: AttributeValue: {N:1}"},
      {"pk = :p AND sk = :nope",
       "Invalid KeyConditionExpression: An expression attribute value used in expression is not "
       "defined; attribute value: :nope"},
      {"pk = :p AND",
       "Invalid KeyConditionExpression: Syntax error; token: \"<EOF>\", near: "
       "\"AND\""},
  };
  Item v = {{":p", S("x")}, {":a", N("1")}, {":b", N("5")}, {":s", S("y")}};
  for (const auto& c : cases) {
    auto k = Key(c.text, v);
    ASSERT_FALSE(k.ok()) << c.text;
    EXPECT_EQ(k.error().message(), c.message) << c.text;
  }
  // A hash-only table.
  Request r({}, v);
  auto hash_only = [&](std::string_view text) {
    auto k = CompileKeyCondition(text, "pk", AttributeType::kS, nullptr, AttributeType::kS, &r.p);
    return k.ok() ? std::string() : k.error().message();
  };
  EXPECT_EQ(hash_only("pk = :p"), "");
  EXPECT_EQ(hash_only("pk = :p AND sk = :a"), "Query key condition not supported");
  EXPECT_EQ(hash_only("x = :p"), "Query condition missed key schema element: pk");
  EXPECT_EQ(hash_only("pk < :p"), "Query key condition not supported");
}

// A translated legacy condition may pass the 4 KB expression limit (an IN of thousands of
// values): it compiles without the operator and IN-operand counts, and is not kept in the
// parse cache, whose memory stays bounded by its entries x 4 KB.
TEST(ExprParse, LongLegacyConditionCompilesAndIsNotCached) {
  expr::ClearParseCache();
  Request r({}, {{":v", N("7")}});
  std::string text = "a IN (:v";
  for (int i = 0; i < 1500; ++i) text += ", :v";
  text += ")";
  ASSERT_GT(text.size(), 4096u);
  EXPECT_FALSE(CompileCondition(text, "FilterExpression", &r.p).ok());  // over 100 operands
  const size_t before = expr::ParseCacheSize();
  auto c = CompileCondition(text, "FilterExpression", &r.p, /*legacy=*/true);
  ASSERT_TRUE(c.ok()) << c.error().message();
  Item item = {{"a", N("7")}};
  EXPECT_TRUE(EvaluateCondition(**c, &item));
  EXPECT_EQ(expr::ParseCacheSize(), before);
}

}  // namespace
}  // namespace ddb
