// Parse trees of DynamoDB expressions. The parser (expression_parser.h) builds them with
// placeholders unresolved, so that one tree can be cached by expression text and shared;
// compiling copies a tree and fills in the resolved_* fields (expression_resolve.h).
// Thread safety: plain values; cached trees are shared read-only.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "ddb/attribute_value.h"
#include "engine/expression/expression.h"

namespace ddb::expr {

// DynamoDB rejects document paths nested deeper than this ("The document path has too many
// nesting levels; nesting levels: 33").
inline constexpr size_t kMaxPathDepth = 32;
// Most operators (comparisons, BETWEEN, IN, AND, OR, NOT, functions) in one condition.
inline constexpr size_t kMaxOperators = 300;
// Most operands the IN operator accepts after the left-hand side.
inline constexpr size_t kMaxInOperands = 100;

// One element of a document path as written.
struct PathToken {
  enum class Kind { kName, kNameRef, kIndex };
  Kind kind = Kind::kName;
  std::string text;  // kName: the name; kNameRef: "#ref"
  int index = -1;    // kIndex
};

// A path, a :value or a function call.
struct Operand {
  enum class Kind { kPath, kValue, kFunction };
  Kind kind = Kind::kPath;
  std::vector<PathToken> path;  // kPath, as written
  std::string text;             // kValue: ":ref"; kFunction: the function name
  std::vector<Operand> args;    // kFunction
  int parens = 0;               // how many ( ) directly wrap the operand

  // Filled in by resolution.
  DocumentPath resolved_path;  // kPath
  // kValue: the placeholder's value, shared by every reference to it in the request's
  // expressions (a copy per reference let 200 references to a 1 MB value take 1 GB).
  std::shared_ptr<const AttributeValue> value;
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
std::string_view CompareOpName(CompareOp op);

// The constants after an IN, by value, for a lookup instead of a comparison with each
// (a legacy ScanFilter's IN takes any number: 100,000 values over a page of items were 15 s).
// S, N and B are compared by their text (numbers are normalised); other types one by one.
struct InConstants {
  std::unordered_set<std::string> s, n, b;
  std::vector<std::shared_ptr<const AttributeValue>> others;

  bool Contains(const AttributeValue& v) const;
};

struct Condition {
  enum class Kind { kCompare, kBetween, kIn, kFunction, kAnd, kOr, kNot };
  Kind kind = Kind::kCompare;
  CompareOp op = CompareOp::kEq;  // kCompare
  // kCompare: 2; kBetween: value, lower, upper; kIn: value then the list; kFunction: one
  // Operand of kind kFunction (the call).
  std::vector<Operand> operands;
  std::vector<Condition> children;  // kAnd / kOr: 2; kNot: 1
  int parens = 0;                   // how many ( ) directly wrap the condition
  // kIn whose list is all constants, long enough to be worth it: set when compiled.
  std::shared_ptr<const InConstants> in_constants;
};

struct UpdateAction {
  enum class Kind { kSet, kRemove, kAdd, kDelete };
  Kind kind = Kind::kSet;
  Operand target;  // always a path
  // kSet: value [arith value2]; kAdd / kDelete: value (a :ref).
  Operand value;
  char arith = 0;  // '+', '-', or 0 when the SET has one operand
  Operand value2;
};

struct ParsedUpdate {
  std::vector<UpdateAction> actions;
  // "SET", "REMOVE", ... when a clause appears twice; reported after reserved words and
  // function names, as the service orders its checks.
  std::string duplicate_section;
};

using ParsedProjection = std::vector<Operand>;  // paths

}  // namespace ddb::expr
