#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// PostgreSQL 15's string library, kConcatValues .. kToHex (see scalar_function.h for each one's
/// arguments). Positions and lengths count UTF-8 characters, not bytes. NULL rules as in PostgreSQL:
/// concat skips NULL arguments and concat_ws NULL values (but not a NULL separator); every other
/// function is NULL when any argument is. Results that would pass PostgreSQL's 1 GB field limit, as
/// repeat('x', 2000000000) would, fail with 54000 before anything is allocated.
Vector evaluateTextFunction(ScalarFunction function, std::span<const Vector* const> arguments, size_t rows);

/// The result type of a string library function (and of regexp_replace and regexp_match).
LogicalType textFunctionResultType(ScalarFunction function);

/// Appends `value` in lower or upper case as PostgreSQL does under the C locale: ASCII letters change, other
/// bytes pass through (lower('ÉTÉ') is 'Été').
void appendLowerCase(std::string_view value, std::string& out);
void appendUpperCase(std::string_view value, std::string& out);

}  // namespace shoal::engine
