// Evaluation helpers shared by conditions and updates.
// Thread safety: pure functions.
#pragma once

#include "ddb/attribute_value.h"
#include "engine/expression/expression_ast.h"

namespace ddb::expr {

// The value of a resolved condition operand (path, :value or size()) in "item" (null when
// the item does not exist); null when absent. A computed value (size) is stored in
// *scratch, which must outlive the returned pointer.
const AttributeValue* EvaluateOperand(const Operand& op, const Item* item, AttributeValue* scratch);

}  // namespace ddb::expr
