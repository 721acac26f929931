#include <gtest/gtest.h>

#include "ddb/number.h"
#include "engine/expression/expression.h"

namespace ddb {
namespace {

AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }
AttributeValue N(std::string_view n) { return AttributeValue::N(NormalizeNumber(n).value()); }
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

Item Values() {
  return Item{
      {":s", S("str")},
      {":one", N("1")},
      {":two", N("2")},
      {":big", N("9E+125")},
      {":l", L({S("x"), S("y")})},
      {":l2", L({N("7")})},
      {":empty", L({})},
      {":ss", SS({"b", "c"})},
      {":ns", NS({"1", "10"})},
      {":m", M({{"k", S("v")}})},
      {":t", AttributeValue::Bool(true)},
      {":null", AttributeValue::Null()},
      {":b", AttributeValue::B("bytes")},
      {":bs", AttributeValue::BS({"a"})},
  };
}

std::string CompileError(std::string_view text) {
  std::map<std::string, std::string> names = {{"#a", "a"}, {"#a2", "a"}};
  Item values = Values();
  Placeholders p{&names, &values};
  auto u = CompileUpdate(text, &p);
  return u.ok() ? "" : u.error().message();
}

// Applies "text" to "item"; returns the error message or "".
std::string Apply(std::string_view text, Item* item,
                  std::map<std::string, std::string> names = {}) {
  Item values = Values();
  Placeholders p{&names, &values};
  auto u = CompileUpdate(text, &p);
  if (!u.ok()) {
    ADD_FAILURE() << text << ": " << u.error().message();
    return u.error().message();
  }
  Status s = ApplyUpdate(**u, item);
  return s.ok() ? "" : s.error().message();
}

TEST(UpdateCompile, Errors) {
  struct Case {
    std::string text;
    std::string message;  // without "Invalid UpdateExpression: " (and the envelope, below)
  };
  const Case cases[] = {
      {"", "The expression can not be empty;"},
      {"a = :s", "Syntax error; token: \"a\", near: \"a =\""},
      {"SET a :s", "Syntax error; token: \":s\", near: \"a :s\""},
      {"SET _123 = :s", "Syntax error; token: \"_\", near: \"SET _123\""},
      {"SET :a = :s", "Syntax error; token: \":a\", near: \"SET :a =\""},
      {"SET a = :s + :one + :two", "Syntax error; token: \"+\", near: \":one + :two\""},
      {"SET a = if_not_exists(a, :one + :two)",
       "Syntax error; token: \"+\", near: \":one + :two\""},
      {"SET a[:one] = :s", "Syntax error; token: \":one\", near: \"[:one]\""},
      {"HELLO a = :s", "Syntax error; token: \"HELLO\", near: \"HELLO a\""},
      {"SET a = :s,", "Syntax error; token: \"<EOF>\", near: \",\""},
      {"ADD a b", "Syntax error; token: \"b\", near: \"a b\""},
      {"SET a = remove", "Syntax error; token: \"remove\", near: \"= remove\""},
      {"SET status = :s", "Attribute name is a reserved keyword; reserved keyword: status"},
      {"REMOVE a.Value", "Attribute name is a reserved keyword; reserved keyword: Value"},
      {"SET a = f(b, c)", "Invalid function name; function: f"},
      {"SET a = LIST_APPEND(:l, :l)", "Invalid function name; function: LIST_APPEND"},
      {"SET a = size(b)", "The function is not allowed in an update expression; function: size"},
      {"SET a = :s SET b = :s",
       "The \"SET\" section can only be used once in an update expression;"},
      {"SET a = :s REMOVE b SET c = :s",
       "The \"SET\" section can only be used once in an update expression;"},
      {"REMOVE a remove b",
       "The \"REMOVE\" section can only be used once in an update expression;"},
      {"SET a = :nope",
       "An expression attribute value used in expression is not defined; attribute value: :nope"},
      {"SET #nope = :s",
       "An expression attribute name used in the document path is not defined; attribute name: "
       "#nope"},
      {"SET a = :s REMOVE a",
       "Two document paths overlap with each other; must remove or rewrite one of these paths; "
       "path one: [a], path two: [a]"},
      {"SET a = :s, a.b = :s",
       "Two document paths overlap with each other; must remove or rewrite one of these paths; "
       "path one: [a], path two: [a, b]"},
      {"SET #a = :s, #a2 = :s",
       "Two document paths overlap with each other; must remove or rewrite one of these paths; "
       "path one: [a], path two: [a]"},
      {"SET a[1][1] = :s, a[1] = :s",
       "Two document paths overlap with each other; must remove or rewrite one of these paths; "
       "path one: [a, [1], [1]], path two: [a, [1]]"},
      {"SET a.b = :s, a[1] = :s",
       "Two document paths conflict with each other; must remove or rewrite one of these paths; "
       "path one: [a, b], path two: [a, [1]]"},
      {"ADD a :s",
       "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
      {"ADD a :l",
       "Incorrect operand type for operator or function; operator: ADD, operand type: LIST"},
      {"ADD a :m",
       "Incorrect operand type for operator or function; operator: ADD, operand type: MAP"},
      {"ADD a :t",
       "Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"},
      {"DELETE a :one",
       "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
      {"DELETE a :b",
       "Incorrect operand type for operator or function; operator: DELETE, operand type: BINARY"},
      {"SET a = list_append(:l)",
       "Incorrect number of operands for operator or function; operator or function: "
       "list_append, number of operands: 1"},
      {"SET a = if_not_exists(a, :s, :s)",
       "Incorrect number of operands for operator or function; operator or function: "
       "if_not_exists, number of operands: 3"},
      {"SET a = if_not_exists(:s, :s)",
       "Operator or function requires a document path; operator or function: if_not_exists"},
      {"SET a = list_append(:l, :s)",
       "Incorrect operand type for operator or function; operator or function: list_append, "
       "operand type: S"},
      {"SET a = list_append(list_append(:l, :l), :l)",
       "The function is not allowed to be used this way in an expression; function: "
       "list_append"},
      {"SET a = :s + :one",
       "Incorrect operand type for operator or function; operator or function: +, operand type: "
       "S"},
      {"SET a = :one - :l",
       "Incorrect operand type for operator or function; operator or function: -, operand type: "
       "L"},
  };
  for (const auto& c : cases) {
    // Bare: protocol/service_envelope.cc wraps them where the service does.
    EXPECT_EQ(CompileError(c.text), "Invalid UpdateExpression: " + c.message) << c.text;
  }
  const char* valid[] = {
      "SET a = :s",
      "set a = :s",
      "sEt a=:s",
      "SET a = :s, b = :one REMOVE c ADD d :one DELETE e :ss",
      "DELETE e :ss ADD d :one REMOVE c SET a = :s",
      "SET a.b = :s, a.c.d = :s, b.x = :s REMOVE a.x, b.y",
      "SET a = if_not_exists(a, :one) + :two",
      "SET a = (:one + :two)",
      "SET a = list_append(if_not_exists(a, :empty), :l)",
      "SET a[1] = :s, a[2] = :s",
      "SET a = a",
      "SET #a = :s",
      "REMOVE a[1], a[2]",
      "SET Alpha_Numeric_123 = :s",
  };
  for (const char* text : valid) EXPECT_EQ(CompileError(text), "") << text;
}

TEST(UpdateCompile, UpdatedPaths) {
  Item values = Values();
  std::map<std::string, std::string> names = {{"#x", "x.y"}};
  Placeholders p{&names, &values};
  auto u = CompileUpdate("SET a.b[1] = :s REMOVE #x ADD c :one", &p);
  ASSERT_TRUE(u.ok());
  std::vector<DocumentPath> paths = UpdatedPaths(**u);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0].size(), 3u);
  EXPECT_EQ(paths[0][0].name, "a");
  EXPECT_EQ(paths[0][2].index, 1);
  EXPECT_EQ(paths[1][0].name, "x.y");
  EXPECT_EQ(paths[2][0].name, "c");
  EXPECT_EQ(p.used_names, std::set<std::string>({"#x"}));
  EXPECT_EQ(p.used_values, std::set<std::string>({":s", ":one"}));
}

// UpdateItem's size rule charges the statement and each action (write_path.cc).
TEST(UpdateCompile, ActionsCost) {
  Item values = Values();
  std::map<std::string, std::string> names = {{"#long_alias", "a"}};
  auto cost = [&](std::string_view text) {
    Placeholders p{&names, &values};
    auto u = CompileUpdate(text, &p);
    EXPECT_TRUE(u.ok()) << text;
    return u.ok() ? UpdateActionsCost(**u) : 0;
  };
  EXPECT_EQ(cost("SET a = :s"), 3u + 19);
  EXPECT_EQ(cost("SET #long_alias = :s"), 3u + 19);
  EXPECT_EQ(cost("SET a = :s, b = :big"), 3u + 19 + 19);
  EXPECT_EQ(cost("SET a = :s REMOVE r"), 3u + 19 + 2);
  EXPECT_EQ(cost("SET a.b.c = :s"), 3u + 19);
  EXPECT_EQ(cost("SET a[0] = :s"), 3u + 19 + 1);
  EXPECT_EQ(cost("ADD n :one DELETE s :ss"), 3u + 19 + 19);
}

struct ApplyCase {
  std::string text;
  Item before;
  Item after;
};

TEST(UpdateApply, Semantics) {
  const ApplyCase cases[] = {
      // SET top level, copy, overwrite with another type.
      {"SET a = :s", {}, {{"a", S("str")}}},
      {"SET b = a", {{"a", N("1")}}, {{"a", N("1")}, {"b", N("1")}}},
      {"SET a = a", {{"a", N("1")}}, {{"a", N("1")}}},
      {"SET a = :one", {{"a", S("x")}}, {{"a", N("1")}}},
      // Right-hand sides read the old item.
      {"SET a = b, b = a", {{"a", N("1")}, {"b", N("2")}}, {{"a", N("2")}, {"b", N("1")}}},
      {"REMOVE a SET b = a", {{"a", S("x")}}, {{"b", S("x")}}},
      // Arithmetic.
      {"SET a = a + :one", {{"a", N("1.5")}}, {{"a", N("2.5")}}},
      {"SET a = :one - a", {{"a", N("3")}}, {{"a", N("-2")}}},
      {"SET b = :one + :two", {}, {{"b", N("3")}}},
      {"SET a = if_not_exists(a, :one) + :two", {}, {{"a", N("3")}}},
      {"SET a = if_not_exists(a, :one) + :two", {{"a", N("10")}}, {{"a", N("12")}}},
      // if_not_exists.
      {"SET a = if_not_exists(a, :s)", {}, {{"a", S("str")}}},
      {"SET a = if_not_exists(a, :s)", {{"a", N("1")}}, {{"a", N("1")}}},
      {"SET b = if_not_exists(a.x, :s)",
       {{"a", M({{"x", N("1")}})}},
       {{"a", M({{"x", N("1")}})}, {"b", N("1")}}},
      // list_append.
      {"SET a = list_append(a, :l)", {{"a", L({N("1")})}}, {{"a", L({N("1"), S("x"), S("y")})}}},
      {"SET a = list_append(:l, a)", {{"a", L({N("1")})}}, {{"a", L({S("x"), S("y"), N("1")})}}},
      {"SET a = list_append(if_not_exists(a, :empty), :l2)", {}, {{"a", L({N("7")})}}},
      {"SET a = list_append(:empty, :empty)", {}, {{"a", L({})}}},
      // Nested SET.
      {"SET m.b = :s", {{"m", M({{"a", N("1")}})}}, {{"m", M({{"a", N("1")}, {"b", S("str")}})}}},
      {"SET m.a = :s", {{"m", M({{"a", N("1")}})}}, {{"m", M({{"a", S("str")}})}}},
      {"SET l[1].k = :s", {{"l", L({N("0"), M({})})}}, {{"l", L({N("0"), M({{"k", S("str")}})})}}},
      {"SET l[0] = :s", {{"l", L({N("0"), N("1")})}}, {{"l", L({S("str"), N("1")})}}},
      // SET past the end appends, several in index order.
      {"SET l[7] = :s", {{"l", L({N("0")})}}, {{"l", L({N("0"), S("str")})}}},
      {"SET l[84] = :one, l[37] = :two, l[17] = :s",
       {{"l", L({N("0")})}},
       {{"l", L({N("0"), S("str"), N("2"), N("1")})}}},
      {"SET l[2] = :one, l[1] = :two", {{"l", L({N("0")})}}, {{"l", L({N("0"), N("2"), N("1")})}}},
      // REMOVE.
      {"REMOVE a", {{"a", N("1")}, {"b", N("2")}}, {{"b", N("2")}}},
      {"REMOVE absent", {{"a", N("1")}}, {{"a", N("1")}}},
      {"REMOVE m.a", {{"m", M({{"a", N("1")}})}}, {{"m", M({})}}},
      {"REMOVE m.zz", {{"m", M({{"a", N("1")}})}}, {{"m", M({{"a", N("1")}})}}},
      {"REMOVE l[0]", {{"l", L({N("1")})}}, {{"l", L({})}}},
      {"REMOVE l[1]", {{"l", L({N("0"), N("1"), N("2")})}}, {{"l", L({N("0"), N("2")})}}},
      {"REMOVE l[9]", {{"l", L({N("0")})}}, {{"l", L({N("0")})}}},
      // Several indexes of one REMOVE refer to the original list.
      {"REMOVE l[1], l[3]",
       {{"l", L({N("0"), N("1"), N("2"), N("3"), N("4")})}},
       {{"l", L({N("0"), N("2"), N("4")})}}},
      {"REMOVE l[3], l[1]",
       {{"l", L({N("0"), N("1"), N("2"), N("3"), N("4")})}},
       {{"l", L({N("0"), N("2"), N("4")})}}},
      {"REMOVE l[1] SET l[3] = :one",
       {{"l", L({N("2"), N("3"), N("4"), N("5"), N("6"), N("7")})}},
       {{"l", L({N("2"), N("4"), N("1"), N("6"), N("7")})}}},
      {"SET l[3] = :one REMOVE l[1]",
       {{"l", L({N("2"), N("3"), N("4"), N("5"), N("6"), N("7")})}},
       {{"l", L({N("2"), N("4"), N("1"), N("6"), N("7")})}}},
      {"REMOVE a.c[1].x.y[1], a.c[1].q",
       {{"a", M({{"c", L({S("hi"),
                          M({{"x", M({{"y", L({N("3"), N("5"), N("7")})}})}, {"q", N("2")}})})}})}},
       {{"a", M({{"c", L({S("hi"), M({{"x", M({{"y", L({N("3"), N("7")})}})}})})}})}}},
      // ADD numbers and sets, creating the attribute when absent.
      {"ADD a :one", {}, {{"a", N("1")}}},
      {"ADD a :one", {{"a", N("41")}}, {{"a", N("42")}}},
      {"ADD a :ss", {}, {{"a", SS({"b", "c"})}}},
      {"ADD a :ss", {{"a", SS({"a", "b"})}}, {{"a", SS({"a", "b", "c"})}}},
      {"ADD a :ns", {{"a", NS({"2", "10"})}}, {{"a", NS({"1", "2", "10"})}}},
      {"ADD m.n :one", {{"m", M({})}}, {{"m", M({{"n", N("1")}})}}},
      // DELETE.
      {"DELETE a :ss", {{"a", SS({"a", "b", "c"})}}, {{"a", SS({"a"})}}},
      {"DELETE a :ss", {{"a", SS({"b"})}}, {}},
      {"DELETE a :ss", {{"a", SS({"x"})}}, {{"a", SS({"x"})}}},
      {"DELETE a :ss", {}, {}},
      {"DELETE a :ns", {{"a", NS({"1", "2", "10"})}}, {{"a", NS({"2"})}}},
      // Clauses together.
      {"SET a.b = :s, a.c.d = :two, b.x = :one REMOVE a.x, b.y",
       {{"a", M({{"x", N("3")}, {"c", M({})}})}, {"b", M({{"x", N("1")}, {"y", N("2")}})}},
       {{"a", M({{"b", S("str")}, {"c", M({{"d", N("2")}})}})}, {"b", M({{"x", N("1")}})}}},
  };
  for (const auto& c : cases) {
    Item item = c.before;
    EXPECT_EQ(Apply(c.text, &item), "") << c.text;
    EXPECT_EQ(item, c.after) << c.text;
  }
}

TEST(UpdateApply, RunTimeErrors) {
  const std::string kInvalidPath =
      "The document path provided in the update expression is invalid for update";
  const std::string kBadType = "An operand in the update expression has an incorrect data type";
  const std::string kMissing =
      "The provided expression refers to an attribute that does not exist in the item";
  const ApplyCase cases[] = {
      {"SET a.c = :s", {{"a", S("x")}}, {}},
      {"SET b.c = :s", {{"b", L({})}}, {}},
      {"SET c.c = :s", {}, {}},
      {"SET a.b.c = :s", {{"a", M({})}}, {}},
      {"SET a[0] = :s", {{"a", S("x")}}, {}},
      {"SET b[0] = :s", {}, {}},
      {"REMOVE a.c", {{"a", S("x")}}, {}},
      {"REMOVE c.c", {}, {}},
      {"REMOVE a[0]", {{"a", M({})}}, {}},
      {"ADD a.b :one", {}, {}},
  };
  for (const auto& c : cases) {
    Item item = c.before;
    EXPECT_EQ(Apply(c.text, &item), kInvalidPath) << c.text;
  }
  const ApplyCase bad_types[] = {
      {"SET a = b + :one", {{"b", S("x")}}, {}},
      {"SET a = list_append(b, :l)", {{"b", N("1")}}, {}},
      {"SET a = list_append(:l, b)", {{"b", SS({"x"})}}, {}},
      {"ADD a :one", {{"a", S("x")}}, {}},
      {"ADD a :ss", {{"a", NS({"1"})}}, {}},
      {"ADD a :ss", {{"a", L({})}}, {}},
      {"ADD a :one", {{"a", SS({"x"})}}, {}},
      {"DELETE a :ss", {{"a", S("x")}}, {}},
      {"DELETE a :ns", {{"a", SS({"1"})}}, {}},
  };
  for (const auto& c : bad_types) {
    Item item = c.before;
    EXPECT_EQ(Apply(c.text, &item), kBadType) << c.text;
  }
  const ApplyCase missing[] = {
      {"SET c = z", {}, {}},
      {"SET x = :one, y = x", {}, {}},
      {"SET a = b + :one", {}, {}},
      {"SET a = list_append(b, :l)", {}, {}},
  };
  for (const auto& c : missing) {
    Item item = c.before;
    EXPECT_EQ(Apply(c.text, &item), kMissing) << c.text;
  }
  Item item = {{"a", N("9E+125")}};
  EXPECT_EQ(Apply("ADD a :big", &item),
            "Number overflow. Attempting to store a number with magnitude larger than supported "
            "range");
  EXPECT_EQ(Apply("SET a = a + :big", &item),
            "Number overflow. Attempting to store a number with magnitude larger than supported "
            "range");
}

TEST(UpdateApply, IsRepeatable) {
  Item values = Values();
  Placeholders p{nullptr, &values};
  auto u = CompileUpdate("ADD n :one SET l = list_append(l, :l2)", &p);
  ASSERT_TRUE(u.ok());
  Item original = {{"n", N("1")}, {"l", L({})}};
  Item first = original, second = original;
  ASSERT_TRUE(ApplyUpdate(**u, &first).ok());
  ASSERT_TRUE(ApplyUpdate(**u, &second).ok());
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, (Item{{"n", N("2")}, {"l", L({N("7")})}}));
}

}  // namespace
}  // namespace ddb
