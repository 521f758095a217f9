#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/types/value.h"

namespace shoal::engine {

// PostgreSQL's text formats, out and in. Output functions append to `out`;
// input functions fail with 22P02 (bad syntax) or 22003/22008 (out of range),
// naming the type and the offending text as PostgreSQL does.

void appendDecimalText(int128_t unscaled, int scale, std::string& out);
/// Shortest text that reads back to the same double, in PostgreSQL's layout
/// (plain below 1e15, otherwise 1.5e+16), plus Infinity, -Infinity and NaN.
void appendDoubleText(double value, std::string& out);
/// The same for a real (float4): the shortest text that reads back to the same float, plain below 1e6.
void appendRealText(float value, std::string& out);
/// ISO 8601, YYYY-MM-DD.
void appendDateText(int32_t daysSinceEpoch, std::string& out);

bool parseBoolean(std::string_view text);
int16_t parseSmallInt(std::string_view text);
int32_t parseInteger(std::string_view text);
int64_t parseBigInt(std::string_view text);
/// Returns the unscaled value at `scale`, rounding half away from zero.
int128_t parseDecimal(std::string_view text, int precision, int scale);
double parseDouble(std::string_view text);
/// float4in: 22P02 for bad syntax, 22003 naming the text when it is beyond float's range (or a non-zero
/// value too small for it).
float parseReal(std::string_view text);
/// A double precision value as a real (dtof): rounded to the nearest float; 22003 "value out of range:
/// overflow" (or underflow) when a finite non-zero value leaves float's range.
float realFromDouble(double value);
/// Accepts YYYY-MM-DD, with optional surrounding spaces.
int32_t parseDate(std::string_view text);

/// CHAR(n) keeps its values without trailing spaces.
inline std::string_view stripTrailingSpaces(std::string_view text) {
  size_t end = text.find_last_not_of(' ');
  return end == std::string_view::npos ? std::string_view() : text.substr(0, end + 1);
}

class TimeZone;

/// Parses the text of a value of `type` (the cast from text, and pgwire's text parameters). A timestamptz
/// without a zone in its text is local time in `zone` (nullptr: UTC).
Value parseValue(std::string_view text, const LogicalType& type, const TimeZone* zone = nullptr);

/// Infers the type of a numeric literal as PostgreSQL does: integer if it fits,
/// then bigint, then numeric with the literal's own precision and scale.
Value parseNumericLiteral(std::string_view text);

}  // namespace shoal::engine
