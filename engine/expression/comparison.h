#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// Evaluates = <> < <= > >= on two vectors of one common type, giving BOOLEAN.
/// Strings compare byte-wise (C collation). Doubles order NaN above every
/// other value and equal to itself, as PostgreSQL does. DECIMALs must share a scale.
Vector evaluateComparison(ScalarFunction function, const Vector& left, const Vector& right);

/// `column op constant` for every row of `column`, with `constant` a one-row vector of the
/// same physical type (and, for DECIMAL, the same scale): the common filter shape, compared
/// against one value instead of a vector of copies of it.
Vector evaluateComparisonWithConstant(ScalarFunction function, const Vector& column, const Vector& constant);

}  // namespace shoal::engine
