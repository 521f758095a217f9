#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// Evaluates +, -, *, / or % on two vectors of equal size.
///
/// INTEGER, BIGINT and DOUBLE: both operands have the result type. DECIMAL:
/// for + - %, both operands have the result's scale; for *, the result scale is
/// the sum of the operand scales; for /, the quotient is rounded half away
/// from zero at the result scale. Overflow fails with 22003, division by zero
/// with 22012, as PostgreSQL does.
Vector evaluateArithmetic(ScalarFunction function, const Vector& left, const Vector& right,
                          const LogicalType& resultType);

/// Unary minus.
Vector evaluateNegate(const Vector& input);

/// AVG's result from the sums and counts of partial aggregates (ScalarFunction::kAverageOfSum).
Vector evaluateAverageOfSum(const Vector& sums, const Vector& counts, const LogicalType& resultType);

}  // namespace shoal::engine
