#include "engine/types/text_format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/types/bytea_text.h"
#include "engine/types/date.h"
#include "engine/types/decimal.h"
#include "engine/types/interval.h"
#include "engine/types/json_text.h"
#include "engine/types/jsonb_text.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"
#include "engine/types/uuid_value.h"

namespace shoal::engine {
namespace {

std::string_view trimSpaces(std::string_view text) {
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return text;
}

[[noreturn]] void failSyntax(std::string_view typeName, std::string_view text) {
  SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "invalid input syntax for type {}: \"{}\"", typeName, text);
}

// PostgreSQL reports unreadable dates as invalid_datetime_format, not invalid_text_representation.
[[noreturn]] void failDateSyntax(std::string_view text) {
  SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid input syntax for type date: \"{}\"", text);
}

template <class Int>
Int parseInteger(std::string_view original, std::string_view typeName) {
  std::string_view text = trimSpaces(original);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) {
    failSyntax(typeName, original);
  }
  // Accumulate as a negative number so that the minimum value parses too.
  Int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      failSyntax(typeName, original);
    }
    if (__builtin_mul_overflow(value, Int{10}, &value) || __builtin_sub_overflow(value, Int(c - '0'), &value)) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value \"{}\" is out of range for type {}", original,
                      typeName);
    }
  }
  if (!negative) {
    if (value == std::numeric_limits<Int>::min()) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value \"{}\" is out of range for type {}", original,
                      typeName);
    }
    value = -value;
  }
  return value;
}

/// The digits of a decimal literal, split at the point, with its exponent.
struct DecimalParts {
  bool negative = false;
  std::string digits;      // all significant digits, integer part then fraction
  int fractionDigits = 0;  // how many of `digits` follow the point, after the exponent
};

DecimalParts splitDecimal(std::string_view original, std::string_view typeName) {
  std::string_view text = trimSpaces(original);
  DecimalParts parts;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    parts.negative = text.front() == '-';
    text.remove_prefix(1);
  }
  bool seenPoint = false;
  bool seenDigit = false;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      parts.digits += c;
      seenDigit = true;
      parts.fractionDigits += seenPoint ? 1 : 0;
    } else if (c == '.' && !seenPoint) {
      seenPoint = true;
    } else {
      break;
    }
  }
  if (!seenDigit) {
    failSyntax(typeName, original);
  }
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') {
      failSyntax(typeName, original);
    }
    int exponent = 0;
    std::string_view exponentText = text.substr(i + 1);
    if (!exponentText.empty() && exponentText.front() == '+') exponentText.remove_prefix(1);
    auto [end, error] = std::from_chars(exponentText.data(), exponentText.data() + exponentText.size(), exponent);
    if (error != std::errc() || end != exponentText.data() + exponentText.size() || exponentText.empty()) {
      failSyntax(typeName, original);
    }
    if (exponent > 1000 || exponent < -1000) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value \"{}\" is out of range for type {}", original,
                      typeName);
    }
    parts.fractionDigits -= exponent;
    if (parts.fractionDigits < 0) {
      parts.digits.append(static_cast<size_t>(-parts.fractionDigits), '0');
      parts.fractionDigits = 0;
    }
  }
  // Drop leading zeros of the integer part; they carry no precision.
  size_t integerDigits = parts.digits.size() - std::min<size_t>(parts.digits.size(), parts.fractionDigits);
  size_t leadingZeros = 0;
  while (leadingZeros < integerDigits && parts.digits[leadingZeros] == '0') ++leadingZeros;
  parts.digits.erase(0, leadingZeros);
  return parts;
}

}  // namespace

void appendDecimalText(int128_t unscaled, int scale, std::string& out) {
  char buffer[48];
  char* end = buffer + sizeof(buffer);
  char* cursor = end;
  bool negative = unscaled < 0;
  // Work with the magnitude as unsigned so that the minimum value formats too.
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(unscaled) : unscaled;
  int written = 0;
  do {
    *--cursor = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
    ++written;
    if (written == scale) {
      if (magnitude == 0) {
        *--cursor = '0';
      }
    }
  } while (magnitude != 0 || written < scale);
  std::string_view digits(cursor, end - cursor);
  if (negative) {
    out += '-';
  }
  if (scale == 0) {
    out += digits;
    return;
  }
  if (digits.size() == static_cast<size_t>(scale)) {
    out += '0';
  }
  out += digits.substr(0, digits.size() - scale);
  out += '.';
  out += digits.substr(digits.size() - scale);
}

namespace {

/// float8out and float4out: the shortest round-trip digits of `value`, in plain notation for decimal exponents in
/// [-4, plainBelowExponent), else scientific with a two-digit exponent.
template <class Float>
void appendFloatingText(Float value, int plainBelowExponent, std::string& out) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (value == 0) {
    out += std::signbit(value) ? "-0" : "0";
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view scientific(buffer, result.ptr - buffer);
  size_t ePosition = scientific.find('e');
  int exponent = std::atoi(std::string(scientific.substr(ePosition + 1)).c_str());
  if (exponent < -4 || exponent >= plainBelowExponent) {
    out += scientific;
    return;
  }
  std::string_view mantissa = scientific.substr(0, ePosition);
  bool negative = mantissa.front() == '-';
  if (negative) {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  // digits d0 d1 d2 ... with value d0.d1d2... * 10^exponent
  int pointPosition = exponent + 1;  // digits before the point
  if (pointPosition <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-pointPosition), '0');
    out += digits;
  } else if (static_cast<size_t>(pointPosition) >= digits.size()) {
    out += digits;
    out.append(pointPosition - digits.size(), '0');
  } else {
    out += digits.substr(0, pointPosition);
    out += '.';
    out += digits.substr(pointPosition);
  }
}

}  // namespace

void appendDoubleText(double value, std::string& out) {
  appendFloatingText(value, 15, out);  // DBL_DIG
}

void appendRealText(float value, std::string& out) {
  appendFloatingText(value, 6, out);  // FLT_DIG
}

void appendDateText(int32_t daysSinceEpoch, std::string& out) {
  if (isInfiniteDate(daysSinceEpoch)) {
    out += daysSinceEpoch == kDateInfinity ? "infinity" : "-infinity";
    return;
  }
  CivilDate date = civilFromDays(daysSinceEpoch);
  if (date.year <= 0) {
    // PostgreSQL has no year 0: 1 BC is year 0 of the proleptic calendar.
    out += fmt::format("{:04}-{:02}-{:02} BC", 1 - date.year, date.month, date.day);
    return;
  }
  out += fmt::format("{:04}-{:02}-{:02}", date.year, date.month, date.day);
}

bool parseBoolean(std::string_view original) {
  std::string text(trimSpaces(original));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  // PostgreSQL accepts any unique prefix of these words.
  auto isPrefixOf = [&](std::string_view word) { return !text.empty() && word.substr(0, text.size()) == text; };
  if (isPrefixOf("true") || isPrefixOf("yes") || text == "on" || text == "1") return true;
  if (isPrefixOf("false") || isPrefixOf("no") || text == "off" || text == "of" || text == "0") return false;
  failSyntax("boolean", original);
}

int16_t parseSmallInt(std::string_view text) {
  return parseInteger<int16_t>(text, "smallint");
}

int32_t parseInteger(std::string_view text) {
  return parseInteger<int32_t>(text, "integer");
}

int64_t parseBigInt(std::string_view text) {
  return parseInteger<int64_t>(text, "bigint");
}

int128_t parseDecimal(std::string_view text, int precision, int scale) {
  DecimalParts parts = splitDecimal(text, "numeric");
  // Keep at most `scale` fraction digits, remembering the first dropped one for rounding.
  int dropped = parts.fractionDigits - scale;
  bool roundUp = false;
  if (dropped > 0 && static_cast<size_t>(dropped) > parts.digits.size()) {
    // Smaller than half a unit of the last place kept ('1e-20' at scale 10): zeros before the digits are dropped
    // first.
    parts.digits.clear();
  } else if (dropped > 0) {
    roundUp = parts.digits[parts.digits.size() - dropped] >= '5';
    parts.digits.resize(parts.digits.size() - dropped);
  } else {
    parts.digits.append(static_cast<size_t>(-dropped), '0');
  }
  int integerDigits = static_cast<int>(parts.digits.size()) - scale;
  if (integerDigits > precision - scale && integerDigits > 0) {
    // Leading zeros were removed, so this many integer digits cannot fit.
    throw ShoalError(
        Status(SqlState::kNumericValueOutOfRange, "numeric field overflow")
            .withDetail(fmt::format("A field with precision {}, scale {} must round to an absolute value less than "
                                    "10^{}.",
                                    precision, scale, precision - scale)));
  }
  int128_t value = 0;
  for (char c : parts.digits) {
    value = value * 10 + (c - '0');
  }
  if (roundUp) {
    ++value;
    if (!fitsPrecision(value, precision)) {
      throw ShoalError(Status(SqlState::kNumericValueOutOfRange, "numeric field overflow"));
    }
  }
  return parts.negative ? -value : value;
}

namespace {

/// float8in and float4in: NaN, the infinities, or the digits read as a value of `Float`; 22P02 for bad syntax,
/// 22003 naming the text when it is beyond the type's range (or a non-zero value that rounds to zero).
template <class Float>
Float parseFloating(std::string_view original, std::string_view typeName) {
  std::string text(trimSpaces(original));
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "nan") return std::numeric_limits<Float>::quiet_NaN();
  if (lower == "infinity" || lower == "+infinity" || lower == "inf" || lower == "+inf") {
    return std::numeric_limits<Float>::infinity();
  }
  if (lower == "-infinity" || lower == "-inf") return -std::numeric_limits<Float>::infinity();
  Float value = 0;
  const char* begin = text.data();
  if (!text.empty() && text.front() == '+') ++begin;
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (text.empty() || end != text.data() + text.size()) failSyntax(typeName, original);
  if (error == std::errc::result_out_of_range) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "\"{}\" is out of range for type {}", original, typeName);
  }
  return value;
}

}  // namespace

double parseDouble(std::string_view original) {
  return parseFloating<double>(original, "double precision");
}

float parseReal(std::string_view original) {
  return parseFloating<float>(original, "real");
}

float realFromDouble(double value) {
  const auto real = static_cast<float>(value);
  if (std::isinf(real) && !std::isinf(value)) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: overflow");
  }
  if (real == 0 && value != 0) SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: underflow");
  return real;
}

namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// Reads 1-2 digits at `pos` (advancing it); -1 when there is none.
int readSmallNumber(std::string_view text, size_t& pos) {
  int value = -1;
  for (int digits = 0; digits < 2 && pos < text.size() && isDigit(text[pos]); ++digits, ++pos) {
    value = (value < 0 ? 0 : value * 10) + (text[pos] - '0');
  }
  return value;
}

/// What may follow a date in a date's text, as PostgreSQL's date input reads it and then ignores: a time
/// (HH:MM[:SS[.frac]]), a time zone (+HH[:MM[:SS]], -HHMM, Z, UTC, GMT), and the era (BC or AD). pgjdbc
/// sends dates as '1995-03-15 +00'. Sets `beforeChrist` for BC; fails as PostgreSQL does.
void readDateSuffix(std::string_view original, std::string_view rest, bool& beforeChrist) {
  size_t pos = 0;
  auto syntax = [&] { failDateSyntax(original); };
  auto outOfRange = [&] {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", original);
  };
  auto readZone = [&] {  // at a '+' or '-'
    ++pos;
    int hours = readSmallNumber(rest, pos);
    if (hours < 0) syntax();
    for (int part = 0; part < 2 && pos < rest.size() && (rest[pos] == ':' || isDigit(rest[pos])); ++part) {
      if (rest[pos] == ':') ++pos;
      if (readSmallNumber(rest, pos) < 0) syntax();
    }
    if (hours > 15) {
      SHOAL_USER_FAIL(SqlState::kInvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"{}\"",
                      original);
    }
  };
  while (pos < rest.size()) {
    const char c = rest[pos];
    if (c == ' ' || c == 'T' || c == 't') {
      ++pos;
    } else if (isDigit(c)) {
      int hour = readSmallNumber(rest, pos);
      if (pos >= rest.size() || rest[pos] != ':') syntax();
      ++pos;
      int minute = readSmallNumber(rest, pos);
      int second = 0;
      if (minute < 0) syntax();
      if (pos < rest.size() && rest[pos] == ':') {
        ++pos;
        second = readSmallNumber(rest, pos);
        if (second < 0) syntax();
        if (pos < rest.size() && rest[pos] == '.') {
          ++pos;
          while (pos < rest.size() && isDigit(rest[pos])) ++pos;
        }
      }
      if (hour > 24 || minute > 59 || second > 60 || (hour == 24 && (minute > 0 || second > 0))) outOfRange();
    } else if (c == '+' || c == '-') {
      readZone();
    } else {
      size_t wordEnd = pos;
      while (wordEnd < rest.size() && std::isalpha(static_cast<unsigned char>(rest[wordEnd]))) ++wordEnd;
      std::string word(rest.substr(pos, wordEnd - pos));
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (word == "bc") {
        beforeChrist = true;
      } else if (word != "ad" && word != "z" && word != "utc" && word != "gmt") {
        syntax();
      }
      pos = wordEnd;
    }
  }
}

}  // namespace

int32_t parseDate(std::string_view original) {
  std::string_view text = trimSpaces(original);
  if (text.size() <= 9) {  // the special words date_in knows without the current time
    std::string word(text);
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    if (word == "infinity") return kDateInfinity;
    if (word == "-infinity") return kDateMinusInfinity;
    if (word == "epoch") return 0;
  }
  // "YYYY-MM-DD BC": PostgreSQL has no year 0, so 1 BC is proleptic year 0.
  bool beforeChrist = false;
  int year = 0;
  unsigned month = 0;
  unsigned day = 0;
  const char* cursor = text.data();
  const char* end = text.data() + text.size();
  auto readNumber = [&](auto& target, size_t minDigits) {
    const char* start = cursor;
    auto [next, error] = std::from_chars(cursor, end, target);
    if (error != std::errc() || static_cast<size_t>(next - start) < minDigits) {
      failDateSyntax(original);
    }
    cursor = next;
  };
  auto expectDash = [&] {
    if (cursor == end || *cursor != '-') failDateSyntax(original);
    ++cursor;
  };
  readNumber(year, 4);
  expectDash();
  readNumber(month, 1);
  expectDash();
  readNumber(day, 1);
  if (cursor != end) {
    if (*cursor != ' ' && *cursor != 'T' && *cursor != 't' && *cursor != '+') {
      failDateSyntax(original);
    }
    readDateSuffix(original, std::string_view(cursor, static_cast<size_t>(end - cursor)), beforeChrist);
  }
  constexpr int kMinBcYear = 4713;   // PostgreSQL's earliest date is 4713-11-24 BC
  constexpr int kMaxYear = 5874897;  // and its latest is in 5874897 AD
  if (year < 1 || (beforeChrist && year > kMinBcYear) || year > kMaxYear) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range: \"{}\"", original);
  }
  if (beforeChrist) year = 1 - year;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", original);
  }
  return daysFromCivil(CivilDate{year, month, day});
}

Value parseValue(std::string_view text, const LogicalType& type, const TimeZone* zone) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return Value::boolean(parseBoolean(text));
    case TypeId::kSmallInt:
      return Value::smallInt(parseSmallInt(text));
    case TypeId::kInteger:
      return Value::integer(parseInteger(text));
    case TypeId::kBigInt:
      return Value::bigInt(parseBigInt(text));
    case TypeId::kDecimal:
      return Value::decimal(type, parseDecimal(text, type.precision(), type.scale()));
    case TypeId::kDouble:
      return type.isReal() ? Value::ofDouble(type, parseReal(text)) : Value::doublePrecision(parseDouble(text));
    case TypeId::kDate:
      return Value::date(parseDate(text));
    case TypeId::kTimestamp:
      return Value::ofInt64(type, roundToFractionalDigits(parseTimestamp(text), type));
    case TypeId::kTimestampTz:
      return Value::ofInt64(type,
                            roundToFractionalDigits(parseTimestampTz(text, zone ? *zone : TimeZone::utc()), type));
    case TypeId::kTime:
      return Value::ofInt64(type, roundToFractionalDigits(parseTime(text), type));
    case TypeId::kInterval:
      return Value::interval(packInterval(parseInterval(text)));
    case TypeId::kUuid:
      return Value::uuid(parseUuid(text));
    case TypeId::kBytea:
      return Value::bytea(parseBytea(text));
    case TypeId::kVarchar:
      if (type.maxLength() > 0 && text.size() > type.maxLength()) {
        SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character varying({})",
                        type.maxLength());
      }
      if (type.isJsonb()) return Value::varchar(jsonbFromText(text), type);
      if (type.isJson()) requireValidJson(text);
      return Value::varchar(std::string(text), type);
    case TypeId::kChar: {
      // Trailing spaces are insignificant in CHAR(n); what remains must fit.
      std::string_view stripped = stripTrailingSpaces(text);
      if (stripped.size() > type.maxLength()) {
        SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character({})",
                        type.maxLength());
      }
      return Value::varchar(std::string(stripped), type);
    }
    case TypeId::kUnknown:
      return Value::unknownLiteral(std::string(text));
    case TypeId::kArray:
      return Value::array(type, parseArrayText(text, type, zone));
    case TypeId::kRecord:
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "input of anonymous composite types is not implemented");
  }
  return Value::null(type);
}

Value parseNumericLiteral(std::string_view text) {
  // The grammar folds a minus sign into the literal ("-2147483648"): it is still an integer, as in PostgreSQL.
  std::string_view digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
  bool allDigits =
      !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (allDigits) {
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) {
      if (value <= std::numeric_limits<int32_t>::max() && value >= std::numeric_limits<int32_t>::min()) {
        return Value::integer(static_cast<int32_t>(value));
      }
      return Value::bigInt(value);
    }
  }
  DecimalParts parts = splitDecimal(text, "numeric");
  int scale = parts.fractionDigits;
  int precision = std::max<int>(static_cast<int>(parts.digits.size()), scale);
  precision = std::max(precision, 1);
  if (precision > LogicalType::kMaxDecimalPrecision) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "numeric literal {} has more than {} digits", text,
                    LogicalType::kMaxDecimalPrecision);
  }
  LogicalType type = LogicalType::decimal(precision, scale);
  return Value::decimal(type, parseDecimal(text, precision, scale));
}

}  // namespace shoal::engine
