#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

// PostgreSQL 15's mathematical functions over the types the binder resolved (math_function_binding.cpp):
// integers (abs), numeric (abs, sign, ceil, floor, round, trunc) and double precision (all of them).
// Errors are PostgreSQL's: 22003 for overflow, 2201E for logarithms of zero or negatives, 2201F for
// square roots of negatives and undefined powers.

/// abs, sign, ceil, floor, sqrt, cbrt, exp, ln and log10 of one argument, into `resultType`.
Vector evaluateMathFunction(ScalarFunction function, const Vector& value, const LogicalType& resultType);

/// round(x [, digits]) and trunc(x [, digits]): numeric to `digits` fractional digits (negative: to tens,
/// hundreds...), rounding half away from zero; a double with no digits, to the nearest even integer (rint).
Vector evaluateRounding(ScalarFunction function, const Vector& value, int digits, const LogicalType& resultType);

/// power(x, y) over doubles.
Vector evaluatePower(const Vector& base, const Vector& exponent);

}  // namespace shoal::engine
