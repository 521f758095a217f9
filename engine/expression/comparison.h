#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// Evaluates = <> < <= > >= on two vectors of one common type, giving BOOLEAN.
/// Strings compare byte-wise (C collation). Doubles order NaN above every
/// other value and equal to itself, as PostgreSQL does. DECIMALs must share a scale.
Vector evaluateComparison(ScalarFunction function, const Vector& left, const Vector& right);

}  // namespace shoal::engine
