#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// text || text, or bytea || bytea (`type`: the result's).
Vector evaluateConcat(const Vector& left, const Vector& right, const LogicalType& type = LogicalType::text());

/// replace(text, from, to): every occurrence of `from`, left to right, replaced by `to`; an empty
/// `from` leaves the text as it is. NULL when any argument is.
Vector evaluateReplace(const Vector& text, const Vector& from, const Vector& to);

/// kAssignString: `text` into a column of `type` (varchar(n) or char(n)): what passes n characters must be
/// spaces, which go; otherwise 22001 "value too long for type ...". char(n) keeps no trailing spaces.
Vector evaluateAssignString(const Vector& text, const LogicalType& type);

/// lower, upper (ASCII letters, as under the C locale; other bytes pass through) and char_length (UTF-8 characters).
Vector evaluateStringFunction(ScalarFunction function, const Vector& input);

/// substring(text, start [, length]) as TEXT, PostgreSQL's semantics: positions count
/// UTF-8 characters from 1, a start before 1 shortens the length by the difference
/// (substring('hello', 0, 3) is 'he'), and a negative length fails with 22011.
/// `length` is null for the two-argument form, which takes the rest of the string.
Vector evaluateSubstring(const Vector& text, const Vector& start, const Vector* length);

}  // namespace shoal::engine
