#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

/// to_char(number, format) -> TEXT, as PostgreSQL 15's numeric, int4, int8, float4 and float8 to_char
/// (formatting.c's number templates) in the C locale: digits 9 and 0, the decimal point . or D, group
/// separators , and G, the signs S, MI, PL, SG and PR (<angle brackets>), L (the currency symbol, a
/// space), V (shift by 10^n), EEEE (scientific notation), RN/rn (Roman numerals, 1 to 3999), TH/th
/// (ordinal suffix), FM (no padding), "quoted text"; anything else is copied. A value with more integer
/// digits than the template has gets '#' in every digit position. smallint and integer format as
/// int4, bigint as int8, numeric exactly, real and double precision through C's printf as PostgreSQL's
/// do (limited to 6 and 15 significant digits). Template errors are PostgreSQL's 42601; NULL in gives
/// NULL, an empty format gives ''.
Vector evaluateNumberToChar(const Vector& values, const Vector& formats);

}  // namespace shoal::engine
