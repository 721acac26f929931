#include "engine/partiql/partiql_parser.h"

#include <gtest/gtest.h>

namespace ddb::partiql {
namespace {

Statement MustParse(std::string_view text, const std::vector<AttributeValue>& params = {}) {
  Result<Statement> st = Parse(text, params);
  EXPECT_TRUE(st.ok()) << text << ": " << (st.ok() ? "" : st.error().message());
  return st.ok() ? st.value() : Statement();
}

TEST(PartiqlParser, InsertValueTuple) {
  Statement st = MustParse(
      "insert into \"My-Table\" value {'a': 'it''s', 'n': -1.50, 's': <<'y', 'x'>>, "
      "'l': [true, null], 'm': {'k': ?}}",
      {AttributeValue::N("7")});
  EXPECT_EQ(st.kind, Statement::Kind::kInsert);
  EXPECT_EQ(st.table, "My-Table");
  EXPECT_EQ(st.item.at("a"), AttributeValue::S("it's"));
  EXPECT_EQ(st.item.at("n"), AttributeValue::N("-1.5"));
  EXPECT_EQ(st.item.at("s"), AttributeValue::SS({"x", "y"}));
  EXPECT_EQ(st.item.at("l"),
            AttributeValue::L({AttributeValue::Bool(true), AttributeValue::Null()}));
  EXPECT_EQ(st.item.at("m"), AttributeValue::M({{"k", AttributeValue::N("7")}}));
}

TEST(PartiqlParser, SelectWithIndexWhereAndOrder) {
  Statement st = MustParse(
      "SELECT a, b.c[2] FROM t.\"idx\" WHERE a = 1 AND (b > 2 OR NOT c IS MISSING) "
      "AND d BETWEEN 1 AND 5 AND e IN [1, 2] ORDER BY a DESC");
  EXPECT_EQ(st.index, "idx");
  ASSERT_EQ(st.projection.size(), 2u);
  EXPECT_EQ(st.projection[1].size(), 3u);
  EXPECT_EQ(st.projection[1][2].index, 2);
  ASSERT_TRUE(st.where.has_value());
  EXPECT_EQ(st.where->kind, Expr::Kind::kAnd);
  EXPECT_TRUE(st.descending);
}

TEST(PartiqlParser, UpdateAndDeleteReturning) {
  Statement up =
      MustParse("UPDATE t SET a = a + 1, b = 'x' REMOVE c WHERE k = 'v' RETURNING MODIFIED OLD *");
  EXPECT_EQ(up.sets.size(), 2u);
  EXPECT_EQ(up.removes.size(), 1u);
  EXPECT_EQ(up.returning, ReturnValues::kUpdatedOld);
  Statement del = MustParse("DELETE FROM t WHERE k = 'v' RETURNING ALL OLD *");
  EXPECT_EQ(del.returning, ReturnValues::kAllOld);
}

TEST(PartiqlParser, Errors) {
  for (const char* bad : {"", "SELEC * FROM t", "SELECT * FROM", "SELECT * FROM t WHERE",
                          "INSERT INTO t VALUE {'a': 1, 'a': 2}", "SELECT * FROM t WHERE a = 'x",
                          "DELETE FROM t WHERE k = 1 RETURNING ALL NEW *", "SELECT * FROM t;"}) {
    Result<Statement> st = Parse(bad, {});
    EXPECT_FALSE(st.ok()) << bad;
    if (!st.ok()) EXPECT_EQ(st.error().code(), ErrorCode::kValidation) << bad;
  }
  // Deep nesting is refused, not recursed into without bound.
  std::string calls = "SELECT * FROM t WHERE a = ";
  for (int i = 0; i < 3000; ++i) calls += "f(";
  calls += "b" + std::string(3000, ')');
  for (const std::string& deep :
       {"SELECT * FROM t WHERE " + std::string(5000, '(') + "a = 1" + std::string(5000, ')'),
        "INSERT INTO t VALUE {'a': " + std::string(5000, '[') + std::string(5000, ']') + "}",
        calls}) {
    EXPECT_FALSE(Parse(deep, {}).ok()) << deep.substr(0, 40);
  }
  std::string nots = "SELECT * FROM t WHERE ";
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_FALSE(Parse(nots + "a = 1", {}).ok());
  Result<Statement> extra = Parse("SELECT * FROM t", {AttributeValue::S("x")});
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error().message(), "Number of parameters in request and statement don't match.");
}

TEST(PartiqlParser, FromPath) {
  auto message = [](std::string_view text) {
    Result<Statement> st = Parse(text, {});
    return st.ok() ? std::string("ok") : st.error().message();
  };
  EXPECT_EQ(message("SELECT * FROM t.i.x"),
            "A path may contain at most 2 components in the FROM clause");
  EXPECT_EQ(message("SELECT * FROM \"\" WHERE k = 1"), "Path component cannot be an empty string");
  EXPECT_EQ(message("SELECT * FROM t.\"\""), "Path component cannot be an empty string");
  EXPECT_EQ(message("INSERT INTO t.i VALUE {'k': 1}"),
            "FROM clause may only contain a single table name in data manipulation statements");
  EXPECT_EQ(MustParse("UPDATE t.i SET a = 1 WHERE k = 1").index, "i");
  EXPECT_EQ(MustParse("DELETE FROM t.i WHERE k = 1").index, "i");
}

}  // namespace
}  // namespace ddb::partiql
