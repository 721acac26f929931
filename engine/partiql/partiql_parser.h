// The PartiQL subset DynamoDB accepts (ExecuteStatement and friends), parsed into a small
// tree. Statements:
//   SELECT * | path [, path]* FROM table[.index] [WHERE cond] [ORDER BY path [ASC|DESC]]
//   INSERT INTO table VALUE {'attr': value, ...}
//   UPDATE table[.index] (SET path = value [, ...] | REMOVE path [, ...])+ WHERE cond
//          [RETURNING r]
//   DELETE FROM table[.index] WHERE cond [RETURNING ALL OLD *]
// (UPDATE and DELETE parse an index so that it is refused once the table is known, as the
// service does; INSERT refuses one here.)
// Identifiers are bare (letters, digits, _) or double-quoted; strings are single-quoted;
// values are literals ('s', numbers, TRUE/FALSE, NULL, [list], {'k': v}, <<set>>) or `?`
// parameters, substituted while parsing. Keywords are case-insensitive.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/expression/expression.h"

namespace ddb::partiql {

// A condition or value expression.
struct Expr {
  enum class Kind : uint8_t {
    kPath,
    kValue,
    kCompare,   // op: = <> < <= > >=; args: 2
    kBetween,   // args: subject, low, high
    kIn,        // args: subject, candidates...
    kAnd,       // args: 2
    kOr,        // args: 2
    kNot,       // args: 1
    kMissing,   // IS [NOT] MISSING; negated: NOT; args: 1
    kNull,      // IS [NOT] NULL; negated: NOT; args: 1
    kFunction,  // op: the name; args
    kAdd,       // args: 2
    kSub,       // args: 2
  };
  Kind kind = Kind::kValue;
  std::string op;
  bool negated = false;
  DocumentPath path;
  AttributeValue value;
  std::vector<Expr> args;
};

struct SetAction {
  DocumentPath path;
  Expr value;
};

struct Statement {
  // kExists: EXISTS(SELECT ... WHERE <key> [AND ...]), a transaction's condition check.
  enum class Kind : uint8_t { kSelect, kInsert, kUpdate, kDelete, kExists };
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;
  std::vector<DocumentPath> projection;  // empty: SELECT *
  std::optional<Expr> where;
  std::optional<DocumentPath> order_by;
  bool descending = false;
  Item item;                          // INSERT's VALUE
  std::vector<SetAction> sets;        // UPDATE ... SET
  std::vector<DocumentPath> removes;  // UPDATE ... REMOVE
  ReturnValues returning = ReturnValues::kNone;

  bool is_read() const { return kind == Kind::kSelect; }
};

// Errors (kValidation): "Statement wasn't well formed, can't be processed: ..." for syntax;
// "Number of parameters in request and statement don't match." for `?` counts; the
// service's words for a FROM path of more than two components, an empty component, and an
// INSERT that names an index.
Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters);

}  // namespace ddb::partiql
