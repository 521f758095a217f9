// ExpressionBinder's binding of the functions that build dates and timestamps from numbers: make_date,
// make_time, make_timestamp, make_timestamptz and to_timestamp(double precision) (datetime_constructors.h), and
// the ones that read them from text by a format, to_date and to_timestamp(text, text) (datetime_from_char.h);
// and isfinite, which tells them from 'infinity' and '-infinity'.

#include <fmt/format.h>

#include "common/status.h"
#include "engine/types/date.h"
#include "engine/types/time_zone.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

ExpressionPtr ExpressionBinder::bindDateTimeConstructor(const std::string& name, std::vector<ExpressionPtr>& arguments,
                                                        int location, const std::function<void()>& undefined) {
  if ((name == "to_timestamp" && arguments.size() == 2) || name == "to_date") {
    // to_date(text, format), to_timestamp(text, format): both arguments text.
    if (arguments.size() != 2) undefined();
    for (auto& argument : arguments) {
      if (!isUnknown(argument) && !argument->type().isString()) undefined();
      argument = coerce(std::move(argument), LogicalType::text(), location);
    }
    const bool toDate = name == "to_date";
    arguments.push_back(constantOf(Value::varchar(timeZoneSetting())));
    arguments.push_back(constantOf(Value::integer(toDate ? 1 : 0)));
    return functionOf(ScalarFunction::kDateTimeFromChar, toDate ? LogicalType::date() : LogicalType::timestampTz(),
                      std::move(arguments));
  }
  if (name == "to_timestamp") {
    if (arguments.size() != 1 || !(isUnknown(arguments[0]) || arguments[0]->type().isNumeric())) undefined();
    return makeFunction(ScalarFunction::kToTimestamp, LogicalType::timestampTz(),
                        coerce(std::move(arguments[0]), LogicalType::doublePrecision(), location));
  }
  if (name == "isfinite") return bindIsFinite(arguments, undefined);
  const bool date = name == "make_date";
  const bool time = name == "make_time";
  const bool zoned = name == "make_timestamptz";
  if (!date && !time && !zoned && name != "make_timestamp") return nullptr;
  // make_date(year, month, day); make_time(hour, min, sec); make_timestamp(year, month, day, hour, min, sec);
  // make_timestamptz(..., zone).
  const size_t parts = date || time ? 3 : 6;
  if (arguments.size() != parts && !(zoned && arguments.size() == parts + 1)) undefined();
  for (size_t index = 0; index < arguments.size(); ++index) {
    ExpressionPtr& argument = arguments[index];
    const LogicalType& type = argument->type();
    LogicalType target = LogicalType::integer();
    bool fits = isUnknown(argument) || type.id() == TypeId::kSmallInt || type.id() == TypeId::kInteger;
    if (!date && index == parts - 1) {
      target = LogicalType::doublePrecision();
      fits = isUnknown(argument) || type.isNumeric();
    } else if (index == parts) {
      target = LogicalType::text();
      fits = isUnknown(argument) || type.isString();
    }
    if (!fits) undefined();
    argument = coerce(std::move(argument), target, location);
  }
  if (time) return functionOf(ScalarFunction::kMakeTime, LogicalType::time(), std::move(arguments));
  if (zoned && arguments.size() == parts) arguments.push_back(constantOf(Value::varchar(timeZoneSetting())));
  const LogicalType result = date ? LogicalType::date() : zoned ? LogicalType::timestampTz() : LogicalType::timestamp();
  return functionOf(date ? ScalarFunction::kMakeDate : ScalarFunction::kMakeTimestamp, result, std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindIsFinite(std::vector<ExpressionPtr>& arguments,
                                             const std::function<void()>& undefined) {
  if (arguments.size() != 1) undefined();
  const TypeId id = arguments[0]->type().id();
  // (undefined() names the arguments: checked before the argument is moved out.)
  if (id != TypeId::kDate && id != TypeId::kTimestamp && id != TypeId::kTimestampTz && id != TypeId::kInterval) {
    undefined();
  }
  ExpressionPtr value = std::move(arguments[0]);
  auto infinities = [&]() -> std::pair<Value, Value> {
    switch (id) {
      case TypeId::kDate:
        return {Value::date(engine::kDateInfinity), Value::date(engine::kDateMinusInfinity)};
      case TypeId::kTimestamp:
        return {Value::timestamp(engine::kTimestampInfinity), Value::timestamp(engine::kTimestampMinusInfinity)};
      case TypeId::kTimestampTz:
        return {Value::timestampTz(engine::kTimestampInfinity), Value::timestampTz(engine::kTimestampMinusInfinity)};
      default:
        undefined();
        return {Value::null(LogicalType::boolean()), Value::null(LogicalType::boolean())};
    }
  };
  if (id == TypeId::kInterval) {
    // PostgreSQL 15's intervals are all finite: true, NULL for NULL.
    std::vector<ExpressionPtr> branches;
    branches.push_back(makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(value)));
    branches.push_back(constantOf(Value::null(LogicalType::boolean())));
    branches.push_back(constantOf(Value::boolean(true)));
    return functionOf(ScalarFunction::kCase, LogicalType::boolean(), std::move(branches));
  }
  const auto [infinity, minusInfinity] = infinities();
  ExpressionPtr notInfinity =
      makeFunction(ScalarFunction::kNotEqual, LogicalType::boolean(), copyExpression(*value), constantOf(infinity));
  ExpressionPtr notMinusInfinity =
      makeFunction(ScalarFunction::kNotEqual, LogicalType::boolean(), std::move(value), constantOf(minusInfinity));
  return makeFunction(ScalarFunction::kAnd, LogicalType::boolean(), std::move(notInfinity),
                      std::move(notMinusInfinity));
}

}  // namespace shoal::sql
