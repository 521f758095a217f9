// ExpressionBinder's binding of date arithmetic with interval literals (date + interval '3' month).

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/status.h"
#include "engine/expression/cast.h"
#include "engine/types/date.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

namespace {

struct IntervalValue {
  int64_t months = 0;
  int64_t days = 0;
  int64_t micros = 0;
};

/// PostgreSQL's INTERVAL_MASK bits of the fields in `interval '3' month`.
constexpr int kMonthField = 1 << 1;
constexpr int kYearField = 1 << 2;
constexpr int kDayField = 1 << 3;
constexpr int kHourField = 1 << 10;
constexpr int kMinuteField = 1 << 11;
constexpr int kSecondField = 1 << 12;

using engine::kMicrosPerDay;
using engine::kMicrosPerSecond;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// A signed decimal amount: whole units plus millionths (both carry the sign).
struct Amount {
  int64_t whole = 0;
  int64_t millionths = 0;
};

/// Reads [+-]digits[.digits] at `position`; nullopt when there is no number or it is too long.
std::optional<Amount> readAmount(const std::string& text, size_t& position) {
  bool negative = false;
  if (position < text.size() && (text[position] == '-' || text[position] == '+')) {
    negative = text[position++] == '-';
  }
  const size_t digitsStart = position;
  Amount amount;
  while (position < text.size() && isDigit(text[position])) {
    if (amount.whole > 100'000'000'000) return std::nullopt;
    amount.whole = amount.whole * 10 + (text[position++] - '0');
  }
  bool anyDigit = position > digitsStart;
  if (position < text.size() && text[position] == '.') {
    ++position;
    int64_t scale = 100'000;
    while (position < text.size() && isDigit(text[position])) {
      amount.millionths += (text[position++] - '0') * scale;
      scale /= 10;
      anyDigit = true;
    }
  }
  if (!anyDigit) return std::nullopt;
  if (negative) amount = {-amount.whole, -amount.millionths};
  return amount;
}

/// Parses PostgreSQL's common interval spellings: '3 months', '1 year 2 days', '1.5 hours', '90' (seconds, or
/// the field of `interval '3' month`), '1 day 02:03:04.5', '-01:30'; nullopt when malformed.
std::optional<IntervalValue> parseInterval(const std::string& text, int fieldMask) {
  IntervalValue interval;
  size_t position = 0;
  auto skipSpaces = [&] {
    while (position < text.size() && std::isspace(static_cast<unsigned char>(text[position]))) ++position;
  };
  bool any = false;
  while (true) {
    skipSpaces();
    if (position == text.size()) break;
    std::optional<Amount> amount = readAmount(text, position);
    if (!amount) return std::nullopt;
    if (position < text.size() && text[position] == ':') {
      // [-]HH:MM[:SS[.ffffff]]
      if (amount->millionths != 0) return std::nullopt;
      const int64_t sign = text[0] == '-' || amount->whole < 0 ? -1 : 1;
      ++position;
      std::optional<Amount> minutes = readAmount(text, position);
      if (!minutes || minutes->whole < 0 || minutes->millionths != 0) return std::nullopt;
      Amount seconds;
      if (position < text.size() && text[position] == ':') {
        ++position;
        auto read = readAmount(text, position);
        if (!read || read->whole < 0) return std::nullopt;
        seconds = *read;
      }
      interval.micros +=
          sign * (((std::abs(amount->whole) * 60 + minutes->whole) * 60 + seconds.whole) * kMicrosPerSecond +
                  seconds.millionths);
      any = true;
      continue;
    }
    skipSpaces();
    size_t unitStart = position;
    while (position < text.size() && std::isalpha(static_cast<unsigned char>(text[position]))) ++position;
    std::string unit = text.substr(unitStart, position - unitStart);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit.empty()) {
      // A bare number counts the smallest field the type names (interval '3' month, '90' day to hour), or
      // seconds.
      unit = "second";
      for (auto [mask, name] : {std::pair{kSecondField, "second"},
                                {kMinuteField, "minute"},
                                {kHourField, "hour"},
                                {kDayField, "day"},
                                {kMonthField, "month"},
                                {kYearField, "year"}}) {
        if (fieldMask & mask) {
          unit = name;
          break;
        }
      }
    }
    // A fraction of a unit spills into the next smaller one, as in PostgreSQL (1.5 months: 1 month 15 days).
    auto addDays = [&](int64_t whole, int64_t millionths) {
      interval.days += whole;
      interval.micros += millionths * (kMicrosPerDay / kMicrosPerSecond);
    };
    auto addMicros = [&](int64_t unitMicros) {
      interval.micros += amount->whole * unitMicros + amount->millionths * unitMicros / kMicrosPerSecond;
    };
    if (unit == "year" || unit == "years" || unit == "y" || unit == "yr" || unit == "yrs") {
      interval.months += amount->whole * 12 + amount->millionths * 12 / kMicrosPerSecond;
    } else if (unit == "month" || unit == "months" || unit == "mon" || unit == "mons") {
      interval.months += amount->whole;
      const int64_t dayMillionths = amount->millionths * 30;
      addDays(dayMillionths / kMicrosPerSecond, dayMillionths % kMicrosPerSecond);
    } else if (unit == "week" || unit == "weeks" || unit == "w") {
      const int64_t dayMillionths = amount->millionths * 7;
      addDays(amount->whole * 7 + dayMillionths / kMicrosPerSecond, dayMillionths % kMicrosPerSecond);
    } else if (unit == "day" || unit == "days" || unit == "d") {
      addDays(amount->whole, amount->millionths);
    } else if (unit == "hour" || unit == "hours" || unit == "h" || unit == "hr" || unit == "hrs") {
      addMicros(3600 * kMicrosPerSecond);
    } else if (unit == "minute" || unit == "minutes" || unit == "m" || unit == "min" || unit == "mins") {
      addMicros(60 * kMicrosPerSecond);
    } else if (unit == "second" || unit == "seconds" || unit == "s" || unit == "sec" || unit == "secs") {
      addMicros(kMicrosPerSecond);
    } else if (unit == "millisecond" || unit == "milliseconds" || unit == "ms" || unit == "msec" || unit == "msecs") {
      addMicros(1000);
    } else if (unit == "microsecond" || unit == "microseconds" || unit == "us" || unit == "usec" || unit == "usecs") {
      addMicros(1);
    } else {
      return std::nullopt;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return interval;
}

}  // namespace

ExpressionPtr ExpressionBinder::bindIntervalArithmetic(const pg_query::Node& node) {
  const auto& expr = node.a_expr();
  std::string op = lastName(expr.name());
  auto isInterval = [](const pg_query::Node& side) {
    return side.has_type_cast() && lastName(side.type_cast().type_name().names()) == "interval";
  };
  if ((op != "+" && op != "-") || !expr.has_lexpr() || !expr.has_rexpr()) return nullptr;
  bool leftInterval = isInterval(expr.lexpr());
  bool rightInterval = isInterval(expr.rexpr());
  if (leftInterval == rightInterval || (leftInterval && op == "-")) return nullptr;
  const auto& cast = (leftInterval ? expr.lexpr() : expr.rexpr()).type_cast();
  int location = cast.location();
  if (!cast.arg().has_a_const() || !cast.arg().a_const().has_sval()) {
    fail(SqlState::kFeatureNotSupported, location, "only interval literals are supported");
  }
  // The first modifier is the fields (a mask), a second one the seconds' precision.
  int fieldMask = 0;
  const auto& modifiers = cast.type_name().typmods();
  if (!modifiers.empty() && modifiers[0].has_a_const() && modifiers[0].a_const().has_ival()) {
    fieldMask = modifiers[0].a_const().ival().ival();
  }
  constexpr int kFullRange = 0x7FFF;  // INTERVAL_FULL_RANGE: no fields named
  if (fieldMask == kFullRange) fieldMask = 0;
  std::string text = cast.arg().a_const().sval().sval();
  auto interval = parseInterval(text, fieldMask);
  if (!interval) {
    fail(SqlState::kInvalidDatetimeFormat, cast.arg().a_const().location(),
         fmt::format("invalid input syntax for type interval: \"{}\"", text));
  }
  ExpressionPtr date = bind(leftInterval ? expr.rexpr() : expr.lexpr());
  if (isUnknown(date)) date = coerce(std::move(date), LogicalType::date(), expr.location());
  if (!date->type().isDateTime()) {
    fail(SqlState::kUndefinedFunction, expr.location(),
         fmt::format("operator does not exist: {} {} interval", date->type().toString(), op));
  }
  int64_t sign = op == "-" ? -1 : 1;
  // date + interval is a timestamp, as in PostgreSQL; the optimizer compares a date column with such a
  // constant as dates again (constant_folder.cpp).
  if (date->type().id() == TypeId::kDate) date = coerce(std::move(date), LogicalType::timestamp(), expr.location());
  const LogicalType type = date->type();
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(date));
  for (int64_t part : {interval->months, interval->days, interval->micros}) {
    arguments.push_back(std::make_unique<ConstantExpression>(Value::bigInt(sign * part)));
  }
  arguments.push_back(std::make_unique<ConstantExpression>(Value::varchar(timeZoneSetting())));
  return functionOf(ScalarFunction::kTimestampAddInterval, type, std::move(arguments));
}

}  // namespace shoal::sql
