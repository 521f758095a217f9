#pragma once

#include "engine/expression/expression.h"

namespace shoal::engine {

/// True when evaluating `expression` can never raise an error, on any row: column
/// references, constants, comparisons, three-valued logic, NULL tests, casts to text,
/// LIKE and the string functions that cannot fail. Arithmetic, numeric casts, substring
/// and date arithmetic can fail (overflow, bad length, date out of range).
///
/// A filter may evaluate an infallible condition on rows an earlier condition already
/// rejected; a fallible one must see only the rows that passed, so that PostgreSQL's
/// guard idiom `x <> 0 AND 1 / x > 1` never divides by zero.
bool isInfallible(const Expression& expression);

}  // namespace shoal::engine
