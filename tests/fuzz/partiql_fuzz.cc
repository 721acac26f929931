// The PartiQL parser (engine/partiql/partiql_parser.h) on any statement text. Byte 0 says how many
// of the fixed `?` parameters the statement is given (0 to 5, so that both matching and mismatching
// counts are reached); the rest is the statement. What the parser builds of values (INSERT's item,
// SET values, WHERE operands) must keep AttributeValue's invariants.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/partiql/partiql_parser.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/value_invariants.h"

namespace {

using ddb::AttributeValue;
using ddb::partiql::Expr;

const std::vector<AttributeValue>& FixedParameters() {
  static const std::vector<AttributeValue> parameters = {
      AttributeValue::S("a"),
      AttributeValue::N("1"),
      AttributeValue::B(std::string("\0\1", 2)),
      AttributeValue::L({AttributeValue::Bool(true), AttributeValue::Null()}),
      AttributeValue::M({{"k", AttributeValue::SS({"x", "y"})}}),
  };
  return parameters;
}

void CheckExpr(const Expr& e) {
  DDB_FUZZ_CHECK(ddb::fuzz::HoldsInvariants(e.value));
  for (const Expr& arg : e.args) CheckExpr(arg);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<AttributeValue>& fixed = FixedParameters();
  std::vector<AttributeValue> parameters(fixed.begin(),
                                         fixed.begin() + data[0] % (fixed.size() + 1));
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto statement = ddb::partiql::Parse(text, parameters);
  if (!statement.ok()) return 0;
  DDB_FUZZ_CHECK(ddb::fuzz::HoldsInvariants(statement->item));
  if (statement->where) CheckExpr(*statement->where);
  for (const ddb::partiql::SetAction& set : statement->sets) CheckExpr(set.value);
  return 0;
}
