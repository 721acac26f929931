// The compile stage shared by every expression kind: checks on a parse tree that need no
// item (reserved words, placeholders, path depth, overlapping paths) and the resolution of
// #name / :value placeholders into a private copy of the tree, recording which placeholders
// were used. Also defines the compiled forms behind the opaque types of expression.h.
// Thread safety: pure functions over their arguments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "engine/expression/expression.h"
#include "engine/expression/expression_ast.h"

namespace ddb {

class CompiledCondition {
 public:
  expr::Condition root;
};

class CompiledUpdate {
 public:
  std::vector<expr::UpdateAction> actions;
};

namespace expr {

// "Invalid <kind>: <message>" as kValidation.
Error InvalidExpression(std::string_view kind, std::string_view message);

// "[a, b, [1]]": the service's rendering of a path in messages.
std::string PathString(const DocumentPath& path);

// The first unquoted name (in text order) that is a reserved word: "Attribute name is a
// reserved keyword; reserved keyword: <word>" (the word as written).
Status CheckReservedWords(const Operand& operand, std::string_view kind);
// Paths deeper than kMaxPathDepth: "The document path has too many nesting levels;
// nesting levels: <n>".
Status CheckPathDepth(const Operand& operand, std::string_view kind);
// Replaces #refs in paths (recursively through function arguments) and records them as
// used. Error: "An expression attribute name used in the document path is not defined;
// attribute name: #x".
Status ResolveNames(Operand* operand, std::string_view kind, Placeholders* placeholders);
// Replaces :refs by their values and records them as used. Error: "An expression attribute
// value used in expression is not defined; attribute value: :x".
Status ResolveValues(Operand* operand, std::string_view kind, Placeholders* placeholders);

// Rejects two paths where one is a prefix of the other ("Two document paths overlap with
// each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]")
// or that use a name and an index at the same position ("Two document paths conflict with
// each other; ..."). Paths are checked in order; "path one" is the earlier.
Status CheckPathOverlaps(const std::vector<const DocumentPath*>& paths, std::string_view kind);

// Renders a constant as the service does in BETWEEN messages: "{S:abc}", "{N:1}".
std::string ConstantString(const AttributeValue& value);

}  // namespace expr
}  // namespace ddb
