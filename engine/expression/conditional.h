#pragma once

#include "engine/expression/expression.h"
#include "engine/vector/chunk.h"

namespace shoal::engine {

class ExpressionEvaluator;

// CASE and coalesce are lazy, as in PostgreSQL: an argument is evaluated only on
// the rows that still need it, so `CASE WHEN x <> 0 THEN 1 / x ELSE 0 END` never
// divides by zero and a branch no row takes never runs. Each argument runs on a
// sub-chunk holding just those rows (and just the columns it reads), and its
// values are scattered back into the result.

/// CASE WHEN cond1 THEN value1 ... ELSE else END, with `function`'s arguments
/// [cond1, value1, ..., condN, valueN, else]: each row takes the value of its first
/// TRUE condition (NULL is not TRUE), or the else. A condition runs only on the rows
/// no earlier condition took.
Vector evaluateCase(const ExpressionEvaluator& evaluator, const FunctionExpression& function, const Chunk& input);

/// coalesce(a, b, ...): each row's first non-NULL argument, NULL when all are.
/// An argument runs only on the rows every earlier argument left NULL.
Vector evaluateCoalesce(const ExpressionEvaluator& evaluator, const FunctionExpression& function, const Chunk& input);

/// The right operand of `left AND right` (dominant FALSE) or `left OR right` (dominant TRUE),
/// evaluated only on the rows whose `left` value does not decide the result on its own; the
/// rows it decides hold `dominant`. For right operands that can fail: `x <> 0 AND 1 / x > 1`
/// never divides by zero.
Vector evaluateUndecidedOperand(const ExpressionEvaluator& evaluator, const Expression& right, const Chunk& input,
                                const Vector& left, bool dominant);

}  // namespace shoal::engine
