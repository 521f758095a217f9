#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// text || text.
Vector evaluateConcat(const Vector& left, const Vector& right);

/// lower, upper (ASCII letters; other bytes pass through) and char_length (UTF-8 characters).
Vector evaluateStringFunction(ScalarFunction function, const Vector& input);

}  // namespace shoal::engine
