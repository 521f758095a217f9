#pragma once

#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// The array functions and operators (kArrayConstruct .. kCompareAll), with PostgreSQL 15's NULL rules:
/// - ARRAY[...] is never NULL (its elements may be);
/// - array_to_string is NULL for a NULL array or delimiter, and skips NULL elements unless given a
///   null string;
/// - array_length, array_lower and array_upper are NULL for an empty array or a dimension other than 1;
/// - array[i] is NULL out of range; || treats a NULL array as empty;
/// - x op ANY (array) is true when some comparison is true, else NULL when one is NULL, else false
///   (false for an empty array); ALL is the dual (true for an empty array).
/// Arrays are catalog-sized: these work a row at a time on decoded elements. The record functions
/// (kRecordConstruct, kRecordField), whose values are encoded as text arrays, run here too.
Vector evaluateArrayFunction(ScalarFunction function, std::span<const Vector* const> arguments,
                             const LogicalType& resultType);

}  // namespace shoal::engine
