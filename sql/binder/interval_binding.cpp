// ExpressionBinder's binding of INTERVAL: literals with fields (interval '3' month), and the arithmetic of
// intervals with numbers, dates and timestamps.

#include <fmt/format.h>

#include <algorithm>

#include "common/check.h"
#include "common/status.h"
#include "engine/aggregate/aggregate_function.h"
#include "engine/expression/interval_functions.h"
#include "engine/types/interval.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/session_functions.h"
#include "sql/binder/type_coercion.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

namespace {

bool isTimestamp(const LogicalType& type) {
  return type.id() == TypeId::kTimestamp || type.id() == TypeId::kTimestampTz;
}

}  // namespace

ExpressionPtr ExpressionBinder::bindIntervalCast(const pg_query::TypeCast& cast) {
  // interval '3' month names fields (a mask of interval_fields) in the first modifier; interval(2) or
  // interval second(2) names the seconds' precision last.
  int fields = engine::interval_fields::kFullRange;
  int precision = engine::interval_fields::kFullPrecision;
  const auto& modifiers = cast.type_name().typmods();
  auto modifier = [&](int index) -> std::optional<int> {
    const auto& node = modifiers[index];
    if (node.has_a_const() && node.a_const().has_ival()) return node.a_const().ival().ival();
    return std::nullopt;
  };
  if (modifiers.size() >= 1) fields = modifier(0).value_or(fields);
  if (modifiers.size() >= 2) precision = modifier(1).value_or(precision);
  if (precision != engine::interval_fields::kFullPrecision && (precision < 0 || precision > 6)) {
    fail(SqlState::kInvalidParameterValue, cast.location(),
         fmt::format("INTERVAL({}) precision must be between 0 and 6", precision));
  }
  if (cast.arg().has_a_const() && cast.arg().a_const().has_sval()) {
    const std::string& text = cast.arg().a_const().sval().sval();
    try {
      return constantOf(Value::interval(engine::packInterval(engine::parseInterval(text, fields, precision))));
    } catch (ShoalError& error) {
      fail(error.status().sqlState(), cast.arg().a_const().location(), error.status().message());
    }
  }
  // Other values are read in full; the fields and precision restrict literals only.
  return coerce(bind(cast.arg()), LogicalType::interval(), cast.location());
}

ExpressionPtr ExpressionBinder::bindDateTimeArithmetic(char op, ExpressionPtr& left, ExpressionPtr& right,
                                                       int location) {
  const LogicalType leftType = left->type();
  const LogicalType rightType = right->type();
  const bool leftInterval = leftType.id() == TypeId::kInterval;
  const bool rightInterval = rightType.id() == TypeId::kInterval;
  const std::string opName(1, op);
  if (leftType.id() == TypeId::kTime || rightType.id() == TypeId::kTime) {
    return bindTimeArithmetic(op, left, right, location);
  }
  if (!leftInterval && !rightInterval && !isTimestamp(leftType) && !isTimestamp(rightType)) return nullptr;
  if (leftInterval && rightInterval) {
    if (op != '+' && op != '-') failNoOperator(opName, leftType, rightType, location);
    return makeFunction(op == '+' ? ScalarFunction::kIntervalAdd : ScalarFunction::kIntervalSubtract,
                        LogicalType::interval(), std::move(left), std::move(right));
  }
  if (leftInterval || rightInterval) {
    ExpressionPtr interval = std::move(leftInterval ? left : right);
    ExpressionPtr other = std::move(leftInterval ? right : left);
    const LogicalType& otherType = other->type();
    // interval * number, number * interval, interval / number: the number as double precision.
    if (otherType.isNumeric() && (op == '*' || (op == '/' && leftInterval))) {
      return makeFunction(op == '*' ? ScalarFunction::kIntervalMultiply : ScalarFunction::kIntervalDivide,
                          LogicalType::interval(), std::move(interval),
                          coerce(std::move(other), LogicalType::doublePrecision(), location));
    }
    // date or timestamp + interval, interval + date or timestamp, date or timestamp - interval: a timestamp (a
    // date becomes one at midnight).
    if (otherType.isDateTime() && (op == '+' || (op == '-' && rightInterval))) {
      if (otherType.id() == TypeId::kDate) other = coerce(std::move(other), LogicalType::timestamp(), location);
      if (op == '-') {
        interval = makeFunction(ScalarFunction::kIntervalNegate, LogicalType::interval(), std::move(interval));
      }
      const LogicalType type = other->type();
      std::vector<ExpressionPtr> arguments;
      arguments.push_back(std::move(other));
      arguments.push_back(std::move(interval));
      arguments.push_back(constantOf(Value::varchar(timeZoneSetting())));
      return functionOf(ScalarFunction::kTimestampAddInterval, type, std::move(arguments));
    }
    failNoOperator(opName, leftType, rightType, location);
  }
  // timestamp - timestamp, in the wider of the two types (date < timestamp < timestamptz).
  if (op == '-' && leftType.isDateTime() && rightType.isDateTime()) {
    const LogicalType common = *comparisonType(leftType, rightType);
    return makeFunction(ScalarFunction::kTimestampDifference, LogicalType::interval(),
                        coerce(std::move(left), common, location), coerce(std::move(right), common, location));
  }
  failNoOperator(opName, leftType, rightType, location);
}

ExpressionPtr ExpressionBinder::bindTimeArithmetic(char op, ExpressionPtr& left, ExpressionPtr& right, int location) {
  // TIME's operators are interval arithmetic on the time as an interval: time ± interval wraps around midnight
  // (the cast back to time keeps the time part, modulo a day), time - time is an interval, date + time a
  // timestamp.
  const TypeId leftId = left->type().id();
  const TypeId rightId = right->type().id();
  auto asInterval = [&](ExpressionPtr& time) { return coerce(std::move(time), LogicalType::interval(), location); };
  if ((op == '*' && (left->type().isNumeric() || right->type().isNumeric())) ||
      (op == '/' && right->type().isNumeric())) {
    // time * number is interval * number, through PostgreSQL's implicit cast of time to interval.
    ExpressionPtr& time = leftId == TypeId::kTime ? left : right;
    time = asInterval(time);
    return bindDateTimeArithmetic(op, left, right, location);
  }
  if (op == '+' && leftId == TypeId::kTime && rightId == TypeId::kTime) {
    fail(SqlState::kAmbiguousFunction, location,
         "operator is not unique: time without time zone + time without time zone",
         "Could not choose a best candidate operator. You might need to add explicit type casts.");
  }
  if ((op == '+' || op == '-') && leftId == TypeId::kTime && rightId == TypeId::kInterval) {
    return coerce(makeFunction(op == '+' ? ScalarFunction::kIntervalAdd : ScalarFunction::kIntervalSubtract,
                               LogicalType::interval(), asInterval(left), std::move(right)),
                  LogicalType::time(), location);
  }
  if (op == '+' && leftId == TypeId::kInterval && rightId == TypeId::kTime) {
    return coerce(
        makeFunction(ScalarFunction::kIntervalAdd, LogicalType::interval(), std::move(left), asInterval(right)),
        LogicalType::time(), location);
  }
  if (op == '-' && leftId == TypeId::kTime && rightId == TypeId::kTime) {
    return makeFunction(ScalarFunction::kIntervalSubtract, LogicalType::interval(), asInterval(left),
                        asInterval(right));
  }
  if (op == '+' && (leftId == TypeId::kDate || rightId == TypeId::kDate)) {
    ExpressionPtr& date = leftId == TypeId::kDate ? left : right;
    ExpressionPtr& time = leftId == TypeId::kDate ? right : left;
    std::vector<ExpressionPtr> arguments;
    arguments.push_back(coerce(std::move(date), LogicalType::timestamp(), location));
    arguments.push_back(asInterval(time));
    arguments.push_back(constantOf(Value::varchar("UTC")));  // a timestamp without zone: the zone is not read
    return functionOf(ScalarFunction::kTimestampAddInterval, LogicalType::timestamp(), std::move(arguments));
  }
  failNoOperator(std::string(1, op), left->type(), right->type(), location);
}

ExpressionPtr ExpressionBinder::bindMakeInterval(const pg_query::FuncCall& call) {
  // make_interval(years, months, weeks, days, hours, mins integer, secs double precision), each defaulting to 0
  // and each nameable: make_interval(days => 10).
  static constexpr std::string_view kNames[] = {"years", "months", "weeks", "days", "hours", "mins", "secs"};
  constexpr size_t kArguments = std::size(kNames);
  std::vector<ExpressionPtr> slots(kArguments);
  std::string signature;
  bool named = false;
  bool unknownName = false;
  for (int index = 0; index < call.args_size(); ++index) {
    const pg_query::Node& node = call.args(index);
    const pg_query::Node* valueNode = &node;
    size_t slot = static_cast<size_t>(index);
    std::string label;
    if (node.has_named_arg_expr()) {
      named = true;
      const std::string& name = node.named_arg_expr().name();
      valueNode = &node.named_arg_expr().arg();
      slot = static_cast<size_t>(std::find(std::begin(kNames), std::end(kNames), name) - std::begin(kNames));
      label = name + " => ";
      unknownName = unknownName || slot == kArguments;
      if (slot < kArguments && slots[slot]) {
        fail(SqlState::kSyntaxError, locationOf(node), fmt::format("argument name \"{}\" used more than once", name));
      }
    } else if (named) {
      fail(SqlState::kSyntaxError, locationOf(node), "positional argument cannot follow named argument");
    }
    ExpressionPtr value = bind(*valueNode);
    signature += (signature.empty() ? "" : ", ") + label + (isUnknown(value) ? "unknown" : value->type().toString());
    const bool fits = slot < kArguments &&
                      (isUnknown(value) || value->type().id() == TypeId::kSmallInt ||
                       value->type().id() == TypeId::kInteger || (slot == kArguments - 1 && value->type().isNumeric()));
    if (!fits) unknownName = true;
    if (slot < kArguments) slots[slot] = std::move(value);
  }
  if (unknownName) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function make_interval({}) does not exist", signature),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  for (size_t slot = 0; slot < kArguments; ++slot) {
    const LogicalType type = slot == kArguments - 1 ? LogicalType::doublePrecision() : LogicalType::integer();
    if (!slots[slot]) slots[slot] = constantOf(Value::integer(0));
    slots[slot] = coerce(std::move(slots[slot]), type, call.location());
  }
  return functionOf(ScalarFunction::kMakeInterval, LogicalType::interval(), std::move(slots));
}

ExpressionPtr ExpressionBinder::bindIntervalFunction(const std::string& name, std::vector<ExpressionPtr>& arguments,
                                                     int location, const std::function<void()>& undefined) {
  if (name == "justify_hours" || name == "justify_days" || name == "justify_interval") {
    if (arguments.size() != 1) undefined();
    ExpressionPtr value = std::move(arguments[0]);
    if (isUnknown(value)) value = coerce(std::move(value), LogicalType::interval(), location);
    if (value->type().id() != TypeId::kInterval) undefined();
    const auto justification = name == "justify_hours"  ? engine::IntervalJustification::kHours
                               : name == "justify_days" ? engine::IntervalJustification::kDays
                                                        : engine::IntervalJustification::kBoth;
    return makeFunction(ScalarFunction::kIntervalJustify, LogicalType::interval(), std::move(value),
                        constantOf(Value::integer(static_cast<int32_t>(justification))));
  }
  if (name != "age") return nullptr;
  if (arguments.empty() || arguments.size() > 2) undefined();
  // age(x) is age from today's midnight; untyped text and dates are timestamps of the preferred type.
  if (arguments.size() == 1) {
    const bool zoned = arguments[0]->type().id() == TypeId::kTimestampTz || isUnknown(arguments[0]);
    ExpressionPtr today = bindSessionFunction("current_date", 0, session_, catalog_);
    SHOAL_CHECK(today != nullptr, "current_date is a session function");
    arguments.insert(arguments.begin(),
                     coerce(std::move(today), zoned ? LogicalType::timestampTz() : LogicalType::timestamp(), location));
  }
  for (auto& argument : arguments) {
    if (isUnknown(argument)) argument = coerce(std::move(argument), LogicalType::timestampTz(), location);
    if (argument->type().id() == TypeId::kDate)
      argument = coerce(std::move(argument), LogicalType::timestamp(), location);
    if (!isTimestamp(argument->type())) undefined();
  }
  if (arguments[0]->type() != arguments[1]->type()) {
    const LogicalType common = LogicalType::timestampTz();
    for (auto& argument : arguments) argument = coerce(std::move(argument), common, location);
  }
  arguments.push_back(constantOf(Value::varchar(timeZoneSetting())));
  return functionOf(ScalarFunction::kTimestampAge, LogicalType::interval(), std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindIntervalPart(const std::string& unit, ExpressionPtr source, bool asDouble,
                                                 int location) {
  std::optional<engine::TimestampField> field = engine::timestampFieldNamed(unit);
  if (!field) {
    fail(SqlState::kInvalidParameterValue, location, fmt::format("unit \"{}\" not recognized for type interval", unit));
  }
  if (!engine::extractsFromInterval(*field)) {
    fail(SqlState::kFeatureNotSupported, location, fmt::format("unit \"{}\" not supported for type interval", unit));
  }
  // EXTRACT gives numeric at the field's own scale (86400.000000 for an epoch, 3 for days); date_part a double.
  ExpressionPtr part = makeFunction(
      ScalarFunction::kIntervalPart,
      asDouble ? LogicalType::doublePrecision() : LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 6),
      std::move(source), constantOf(Value::integer(static_cast<int32_t>(*field))));
  if (asDouble) return part;
  return coerce(std::move(part), LogicalType::decimal(LogicalType::kMaxDecimalPrecision, engine::extractScale(*field)),
                location);
}

ExpressionPtr ExpressionBinder::bindIntervalTrunc(const std::string& unit, ExpressionPtr source, int location) {
  std::optional<engine::TimestampField> field = engine::timestampFieldNamed(unit);
  if (!field) {
    fail(SqlState::kInvalidParameterValue, location, fmt::format("unit \"{}\" not recognized for type interval", unit));
  }
  if (!engine::truncatesInterval(*field)) {
    Status status(SqlState::kFeatureNotSupported, fmt::format("unit \"{}\" not supported for type interval", unit));
    if (*field != engine::TimestampField::kWeek) throw ShoalError(std::move(status));
    throw ShoalError(std::move(status).withDetail("Months usually have fractional weeks."));
  }
  return makeFunction(ScalarFunction::kIntervalTrunc, LogicalType::interval(), std::move(source),
                      constantOf(Value::integer(static_cast<int32_t>(*field))));
}

ExpressionPtr ExpressionBinder::bindIntervalSum(engine::AggregateFunction function, ExpressionPtr argument,
                                                ExpressionPtr filter, bool distinct, int location) {
  if (distinct) {
    fail(SqlState::kFeatureNotSupported, location,
         fmt::format("{}(DISTINCT interval) is not supported yet", engine::aggregateFunctionName(function)));
  }
  // sum(interval) sums its months, days and microseconds apart, in two phases like any sum; avg divides that by
  // the count as interval_div does.
  auto aggregateOf = [&](engine::AggregateFunction which, ExpressionPtr value) {
    AggregateCall aggregate;
    aggregate.function = which;
    aggregate.name = engine::aggregateFunctionName(which);
    aggregate.argument = filteredArgument(filter ? copyExpression(*filter) : nullptr, std::move(value));
    aggregate.resultType = engine::aggregateResultType(which, aggregate.argument->type());
    return emitAggregate(std::move(aggregate));
  };
  std::vector<ExpressionPtr> sums;
  for (auto component : {engine::IntervalComponent::kMonths, engine::IntervalComponent::kDays,
                         engine::IntervalComponent::kMicroseconds}) {
    sums.push_back(
        aggregateOf(engine::AggregateFunction::kSum,
                    makeFunction(ScalarFunction::kIntervalComponent, LogicalType::bigInt(), copyExpression(*argument),
                                 constantOf(Value::integer(static_cast<int32_t>(component))))));
  }
  ExpressionPtr sum = functionOf(ScalarFunction::kIntervalFromComponents, LogicalType::interval(), std::move(sums));
  if (function == engine::AggregateFunction::kSum) return sum;
  ExpressionPtr count = aggregateOf(engine::AggregateFunction::kCount, std::move(argument));
  return makeFunction(ScalarFunction::kIntervalDivide, LogicalType::interval(), std::move(sum),
                      coerce(std::move(count), LogicalType::doublePrecision(), location));
}

}  // namespace shoal::sql
