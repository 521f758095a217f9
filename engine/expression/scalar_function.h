#pragma once

#include <string_view>

namespace shoal::engine {

/// The built-in scalar functions and operators the evaluator implements. The
/// binder picks one and casts the arguments to the types it expects.
enum class ScalarFunction {
  // Arithmetic: both operands of the result type (DECIMAL: see arithmetic.h).
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kModulo,
  kNegate,
  // Comparisons: both operands of one common type; result BOOLEAN.
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  // Three-valued logic on BOOLEAN.
  kAnd,
  kOr,
  kNot,
  // NULL tests, on any type.
  kIsNull,
  kIsNotNull,
  // Strings.
  kConcat,
  kLower,
  kUpper,
  kCharLength,
  // Dates: date + integer, date - integer, date - date.
  kDateAddDays,
  kDateSubtractDays,
  kDateDifference,
  // Pattern matching: (string, pattern) -> BOOLEAN, PostgreSQL's LIKE (see like_matcher.h).
  kLike,
  kNotLike,
  // Conditionals, lazy: a branch runs only on the rows that take it (see conditional.h).
  // CASE's arguments are [cond1, value1, ..., condN, valueN, else]; values are of the result type.
  kCase,
  // coalesce(a, b, ...): the first non-NULL argument, all of the result type.
  kCoalesce,
  // EXTRACT(field FROM date) -> BIGINT.
  kExtractYear,
  kExtractMonth,
  kExtractDay,
  // substring(string, start [, length]) -> TEXT, 1-based character positions.
  kSubstring,
  // date + n months -> DATE, the day clamped to the end of the target month.
  kDateAddMonths,
  // The final step of a distributed AVG: (sum, count) of the partial aggregates -> AVG's result type,
  // rounded exactly as AVG itself rounds; NULL when the count is 0.
  kAverageOfSum,
  // POSIX regular expressions: (string, pattern) -> BOOLEAN: ~, !~, ~* and !~* (see regex_matcher.h).
  kRegexMatch,
  kRegexNotMatch,
  kRegexMatchInsensitive,
  kRegexNotMatchInsensitive,
  // like_escape(pattern, escape) -> TEXT: LIKE ... ESCAPE's pattern rewritten with '\' as its escape.
  kLikeEscape,
  // Arrays (see array_functions.h). ARRAY[a, b, ...]: the arguments, of the element type, as an array.
  kArrayConstruct,
  // array_to_string(array, delimiter [, null_string]) -> TEXT.
  kArrayToString,
  // array_length(array, dimension), array_lower, array_upper -> INTEGER; cardinality(array) -> INTEGER.
  kArrayLength,
  kArrayLower,
  kArrayUpper,
  kCardinality,
  // array[index] -> the element type, 1-based; NULL out of range.
  kArraySubscript,
  // array || array, array || element, element || array.
  kArrayConcat,
  kArrayAppend,
  kArrayPrepend,
  // value op ANY (array), value op ALL (array): (value, array, op) with op an INTEGER constant holding
  // the comparison's ScalarFunction; the value and the elements share one type.
  kCompareAny,
  kCompareAll,
  // replace(text, from, to) -> TEXT: every occurrence of `from` replaced.
  kReplace,
  // An assignment (INSERT ... SELECT) of text to a varchar(n) or char(n) column -> that type: a value longer than
  // n characters fails with 22001 unless what passes n is spaces, as PostgreSQL assigns; a cast truncates instead.
  kAssignString,
  // quote_ident, quote_literal, quote_nullable (text) and format(text, text...) -> TEXT (quote_functions.h).
  kQuoteIdent,
  kQuoteLiteral,
  kQuoteNullable,
  kFormat,
  // json_build_object(key, value, ...) -> json (json_functions.h).
  kJsonBuildObject,
  // Timestamps (timestamp_functions.h), each with the session's TimeZone as a TEXT constant last:
  // (value, field) -> numeric(20,6), EXTRACT's value scaled by 10^6; field an INTEGER TimestampField constant.
  kTimestampPart,
  // date_trunc: (value, field) -> the value's type.
  kTimestampTrunc,
  // timestamp or timestamptz + interval: (value, interval, the session's TimeZone as a TEXT constant) -> the
  // value's type.
  kTimestampAddInterval,
  // Mathematical functions (math_functions.h), of one argument of the result type's family.
  kAbs,
  kSign,
  kCeil,
  kFloor,
  // round and trunc: (value, digits) with digits an INTEGER constant (0 for double precision).
  kRound,
  kTrunc,
  kSqrt,
  kCbrt,
  kExp,
  kLn,
  kLog10,
  // power(double, double) -> double.
  kPower,
  // PostgreSQL's string library (text_functions.h), over TEXT unless said otherwise.
  // concat(value, ...) and concat_ws(separator, value, ...), the values as TEXT: NULL values are skipped.
  kConcatValues,
  kConcatWithSeparator,
  // lpad and rpad: (text, length INTEGER, fill).
  kLeftPad,
  kRightPad,
  // btrim, ltrim and rtrim: (text, characters to remove).
  kTrimBoth,
  kTrimLeading,
  kTrimTrailing,
  // split_part(text, delimiter, field INTEGER).
  kSplitPart,
  // strpos(text, substring) -> INTEGER, 0 when absent.
  kStrpos,
  kInitcap,
  kReverse,
  kMd5,
  // repeat(text, count INTEGER).
  kRepeat,
  // starts_with(text, prefix) -> BOOLEAN.
  kStartsWith,
  // left and right: (text, count INTEGER).
  kLeft,
  kRight,
  // ascii(text) -> INTEGER; chr(INTEGER) -> TEXT; to_hex(INTEGER or BIGINT) -> TEXT.
  kAscii,
  kChr,
  kToHex,
  // regexp_replace(text, pattern, replacement, flags) -> TEXT and regexp_match(text, pattern, flags) -> TEXT[]
  // (regex_matcher.h).
  kRegexReplace,
  kRegexMatchArray,
  // value IN (c1, c2, ...) over a long list of constants: (value, array constant) -> BOOLEAN, a probe of a hash
  // set of the array's elements (in_set.h); NULL for a NULL value, or for no match when the list holds a NULL.
  kInSet,
  // The final step of stddev and variance of integers or decimals: (count BIGINT, sum, sum of squares,
  // VarianceKind INTEGER constant) -> NUMERIC, exact (numeric_variance.h).
  kNumericVariance,
  // to_char(timestamp or timestamptz, format TEXT, the session's TimeZone as a TEXT constant) -> TEXT
  // (datetime_to_char.h).
  kDateTimeToChar,
  // INTERVAL (interval_functions.h): interval + interval, interval - interval, -interval, and interval * or /
  // double precision.
  kIntervalAdd,
  kIntervalSubtract,
  kIntervalNegate,
  kIntervalMultiply,
  kIntervalDivide,
  // timestamp - timestamp, or timestamptz - timestamptz -> interval (timestamp_mi).
  kTimestampDifference,
  // age(a, b, the session's TimeZone as a TEXT constant) -> interval: years, months and days apart.
  kTimestampAge,
  // justify_hours, justify_days, justify_interval: (interval, IntervalJustification INTEGER constant).
  kIntervalJustify,
  // make_interval(years, months, weeks, days, hours, mins INTEGER, secs DOUBLE PRECISION) -> interval.
  kMakeInterval,
  // EXTRACT(field FROM interval): (interval, TimestampField INTEGER constant) -> numeric(38,6), the value
  // scaled by 10^6 as kTimestampPart's; or -> double precision for date_part.
  kIntervalPart,
  // date_trunc(field, interval): (interval, TimestampField INTEGER constant) -> interval.
  kIntervalTrunc,
  // sum(interval) sums each field apart: (interval, IntervalComponent INTEGER constant) -> BIGINT.
  kIntervalComponent,
  // ... and joins the sums again: (months, days, microseconds as NUMERIC sums) -> interval, 22008 if they do not
  // fit.
  kIntervalFromComponents,
  // make_date(year, month, day INTEGER) -> DATE (datetime_constructors.h).
  kMakeDate,
  // make_timestamp(year, month, day, hour, min INTEGER, sec DOUBLE PRECISION) -> TIMESTAMP; with a seventh TEXT
  // argument, the zone the local time is read in, make_timestamptz -> TIMESTAMPTZ.
  kMakeTimestamp,
  // to_timestamp(seconds since 1970 DOUBLE PRECISION) -> TIMESTAMPTZ.
  kToTimestamp,
  // JSON access (json_functions.h), on json and jsonb alike: json -> key TEXT or index INTEGER -> the same json
  // type; ->> -> TEXT; json #> path TEXT[] -> json, #>> -> TEXT (json_extract_path[_text] are #> and #>>).
  kJsonGet,
  kJsonGetText,
  kJsonPath,
  kJsonPathText,
  // json_typeof(json) / jsonb_typeof(jsonb) -> TEXT.
  kJsonTypeOf,
  // jsonb_cmp(jsonb, jsonb) -> INTEGER (-1, 0, 1): the binder compares jsonb values through it (jsonb_text.h).
  kJsonbCompare,
  // jsonb_sort_key(jsonb) -> BYTEA whose byte order is jsonb's: what ORDER BY of a jsonb sorts on.
  kJsonbSortKey,
  // make_time(hour, min INTEGER, sec DOUBLE PRECISION) -> TIME (datetime_constructors.h).
  kMakeTime,
  // random(seed BIGINT constant, 0 for none) -> DOUBLE PRECISION in [0, 1), drawn per row (random_values.h).
  // Volatile: never folded into a constant.
  kRandom,
  // width_bucket(operand, low, high: all DOUBLE PRECISION or all one DECIMAL type, count INTEGER) -> INTEGER
  // (width_bucket.h).
  kWidthBucket,
  // gen_random_uuid() -> UUID, version 4 from the kernel's random bytes (random_values.h). Volatile.
  kGenRandomUuid,
  // to_date / to_timestamp(text, format TEXT, the session's TimeZone as a TEXT constant, 1 for to_date else 0
  // as an INTEGER constant) -> DATE or TIMESTAMPTZ (datetime_from_char.h).
  kDateTimeFromChar,
  // octet_length(TEXT or BYTEA) -> INTEGER: the bytes of a string, or of a bytea (bytea_functions.h).
  kOctetLength,
  // encode(BYTEA, format TEXT) -> TEXT and decode(TEXT, format TEXT) -> BYTEA: hex, base64 or escape.
  kByteaEncode,
  kByteaDecode,
  // substring(BYTEA, start INTEGER [, count INTEGER]) -> BYTEA, counting bytes.
  kByteaSubstring,
  // to_char(number, format TEXT) -> TEXT, with PostgreSQL's number template patterns (number_to_char.h).
  kNumberToChar,
  // Records (record_type.h): ROW of the fields' texts (TEXT each) -> RECORD, never NULL; and
  // (record, index INTEGER constant) -> TEXT, the field's text, NULL for a NULL record or field.
  kRecordConstruct,
  kRecordField,
  // Integer bit operators (bitwise_functions.h): & | # over two values of the result type, ~ over one,
  // << >> over a value of the result type and an INTEGER count.
  kBitAnd,
  kBitOr,
  kBitXor,
  kBitNot,
  kShiftLeft,
  kShiftRight,
};

/// The highest enumerator: plan decoding rejects anything above it. Keep it last.
inline constexpr ScalarFunction kLastScalarFunction = ScalarFunction::kShiftRight;

/// The SQL spelling: an operator ("+", "AND") or a function name ("lower").
std::string_view scalarFunctionName(ScalarFunction function);

/// The comparison with its operands swapped (a < b is b > a); other functions unchanged.
ScalarFunction mirroredComparison(ScalarFunction comparison);
/// True for functions written as infix or prefix operators.
bool isOperator(ScalarFunction function);
/// True for LIKE, NOT LIKE and the regular expression matches: costly per row.
bool isPatternMatch(ScalarFunction function);
/// True for = <> < <= > >=.
bool isComparison(ScalarFunction function);

/// Whether each evaluation may give another value for the same arguments (random()): not folded.
bool isVolatile(ScalarFunction function);

}  // namespace shoal::engine
