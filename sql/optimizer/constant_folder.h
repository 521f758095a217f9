#pragma once

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Evaluates every subexpression that reads no column and no parameter once,
/// at plan time (date '1998-12-01' - interval '90' day becomes a date), and
/// simplifies AND/OR with constant operands. A subexpression whose evaluation
/// fails (1/0) is left for execution, which reports the error only if a row
/// reaches it.
void foldConstants(LogicalOperator& root);

engine::ExpressionPtr foldConstants(const engine::Expression& expression);

}  // namespace shoal::sql
