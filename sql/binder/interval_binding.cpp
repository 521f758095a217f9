// ExpressionBinder's binding of date arithmetic with interval literals (date + interval '3' month).

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/status.h"
#include "engine/expression/cast.h"
#include "engine/types/date.h"
#include "engine/types/text_format.h"
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
};

/// PostgreSQL's INTERVAL_MASK bits of the fields in `interval '3' month`.
constexpr int kMonthField = 1 << 1;
constexpr int kYearField = 1 << 2;
constexpr int kDayField = 1 << 3;

/// Parses '90', '3 months', '1 year 2 days' (the units Shoal's dates can add); nullopt when malformed.
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
    size_t start = position;
    if (text[position] == '-' || text[position] == '+') ++position;
    while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) ++position;
    if (position == start || (position == start + 1 && !std::isdigit(static_cast<unsigned char>(text[start])))) {
      return std::nullopt;
    }
    int64_t amount = std::stoll(text.substr(start, position - start));
    skipSpaces();
    size_t unitStart = position;
    while (position < text.size() && std::isalpha(static_cast<unsigned char>(text[position]))) ++position;
    std::string unit = text.substr(unitStart, position - unitStart);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    if (unit.empty()) {
      unit = fieldMask == kYearField ? "year" : fieldMask == kMonthField ? "month" : "day";
      if (fieldMask != 0 && fieldMask != kYearField && fieldMask != kMonthField && fieldMask != kDayField) {
        return std::nullopt;
      }
    }
    if (unit == "year" || unit == "years" || unit == "y" || unit == "yr" || unit == "yrs") {
      interval.months += amount * 12;
    } else if (unit == "month" || unit == "months" || unit == "mon" || unit == "mons") {
      interval.months += amount;
    } else if (unit == "week" || unit == "weeks" || unit == "w") {
      interval.days += amount * 7;
    } else if (unit == "day" || unit == "days" || unit == "d") {
      interval.days += amount;
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
  int fieldMask = 0;
  for (const auto& modifier : cast.type_name().typmods()) {
    if (modifier.has_a_const() && modifier.a_const().has_ival()) fieldMask |= modifier.a_const().ival().ival();
  }
  std::string text = cast.arg().a_const().sval().sval();
  auto interval = parseInterval(text, fieldMask);
  if (!interval) {
    fail(SqlState::kInvalidDatetimeFormat, location,
         fmt::format("invalid input syntax for type interval: \"{}\" (Shoal's intervals count years, months, "
                     "weeks and days)",
                     text));
  }
  ExpressionPtr date = bind(leftInterval ? expr.rexpr() : expr.lexpr());
  if (isUnknown(date)) date = coerce(std::move(date), LogicalType::date(), expr.location());
  if (date->type().id() != TypeId::kDate) {
    fail(SqlState::kUndefinedFunction, expr.location(),
         fmt::format("operator does not exist: {} {} interval", date->type().toString(), op));
  }
  int64_t sign = op == "-" ? -1 : 1;
  // As PostgreSQL does for timestamps: months first, then days.
  if (interval->months != 0) {
    date = makeFunction(
        ScalarFunction::kDateAddMonths, LogicalType::date(), std::move(date),
        std::make_unique<ConstantExpression>(Value::integer(static_cast<int32_t>(sign * interval->months))));
  }
  if (interval->days != 0) {
    date =
        makeFunction(ScalarFunction::kDateAddDays, LogicalType::date(), std::move(date),
                     std::make_unique<ConstantExpression>(Value::integer(static_cast<int32_t>(sign * interval->days))));
  }
  return date;
}

}  // namespace shoal::sql
