// ExpressionBinder's binding of the functions that build dates and timestamps from numbers: make_date,
// make_time, make_timestamp, make_timestamptz and to_timestamp(double precision) (datetime_constructors.h), and
// the ones that read them from text by a format, to_date and to_timestamp(text, text) (datetime_from_char.h).

#include <fmt/format.h>

#include "common/status.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"

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

}  // namespace shoal::sql
