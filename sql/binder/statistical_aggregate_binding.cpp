// ExpressionBinder's statistical aggregates: stddev and variance (and their _samp and _pop forms), covar_pop,
// covar_samp, corr and the regr_* family, with PostgreSQL's argument types and results; and the ordered-set
// aggregates percentile_cont, percentile_disc and mode, `WITHIN GROUP (ORDER BY x)`, which keep the group's
// values (engine/aggregate/collected_values.h) and so run where the whole group is, like array_agg; and the
// approximate approx_count_distinct and approx_percentile, over mergeable sketches that split into two phases.
//
// Over double precision, and always for the two-variable ones, they are engine aggregates over Youngs-Cramer
// moments (engine/aggregate/moments.h), as PostgreSQL's float8 versions are. Over integers and decimals,
// PostgreSQL computes stddev and variance exactly over numeric sums; here they become count(x), sum(x) and
// sum(x * x), which distribute like any sum, finished by an exact kNumericVariance (numeric_variance.h).

#include <limits>

#include <fmt/format.h>

#include "common/status.h"
#include "engine/aggregate/moments.h"
#include "engine/expression/numeric_variance.h"
#include "engine/types/text_format.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"
#include "sql/optimizer/constant_folder.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::AggregateFunction;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;

namespace {

engine::VarianceKind varianceKind(AggregateFunction function) {
  switch (function) {
    case AggregateFunction::kVarPop:
      return engine::VarianceKind::kVarPop;
    case AggregateFunction::kVarSamp:
      return engine::VarianceKind::kVarSamp;
    case AggregateFunction::kStddevPop:
      return engine::VarianceKind::kStddevPop;
    default:
      return engine::VarianceKind::kStddevSamp;
  }
}

}  // namespace

ExpressionPtr ExpressionBinder::bindStatisticalAggregate(const pg_query::Node& node, AggregateFunction function) {
  const auto& call = node.func_call();
  const std::string spelled = lastName(call.funcname());
  checkAggregateAllowed(call);
  ExpressionPtr filter = bindAggregateFilter(call);
  const bool twoVariables = engine::takesTwoVariables(function);
  if (call.agg_star() || call.args_size() != (twoVariables ? 2 : 1)) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function {}({}) does not exist", spelled, call.agg_star() ? "*" : "..."),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  const AggregateArguments aggregateArguments = beginAggregateArguments();
  std::vector<ExpressionPtr> arguments;
  for (const auto& argument : call.args()) arguments.push_back(bind(argument));
  endAggregateArguments(aggregateArguments);
  std::string types;  // as written, for the error (the arguments are moved on below)
  for (const auto& argument : arguments) {
    types += (types.empty() ? "" : ", ") + (isUnknown(argument) ? "unknown" : argument->type().toString());
  }
  auto noSuchFunction = [&]() {
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}({}) does not exist", spelled, types),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  };
  AggregateCall aggregate;
  aggregate.name = spelled;
  aggregate.distinct = call.agg_distinct();
  aggregate.function = function;
  aggregate.resultType = engine::aggregateResultType(function, LogicalType::doublePrecision());
  if (twoVariables) {
    // PostgreSQL has them over double precision only: numbers and untyped literals are cast to it.
    for (auto& argument : arguments) {
      if (!isUnknown(argument) && !argument->type().isNumeric()) noSuchFunction();
      argument = coerce(std::move(argument), LogicalType::doublePrecision(), call.location());
    }
    aggregate.argument = filteredArgument(std::move(filter), std::move(arguments[0]));
    aggregate.secondArgument = std::move(arguments[1]);
    return emitAggregate(std::move(aggregate));
  }
  ExpressionPtr argument = std::move(arguments[0]);
  // An untyped literal takes the numeric category's preferred type, as PostgreSQL resolves it.
  if (isUnknown(argument)) argument = coerce(std::move(argument), LogicalType::doublePrecision(), call.location());
  const LogicalType type = argument->type();
  if (!type.isNumeric()) noSuchFunction();
  if (type.id() == TypeId::kDouble) {
    aggregate.argument = filteredArgument(std::move(filter), std::move(argument));
    return emitAggregate(std::move(aggregate));
  }
  // Integers and decimals: exact sums at the argument's scale s, squares at 2s.
  const int scale = type.id() == TypeId::kDecimal ? type.scale() : 0;
  if (2 * scale > LogicalType::kMaxDecimalPrecision) {
    fail(SqlState::kNumericValueOutOfRange, call.location(),
         fmt::format("{}() of a numeric with more than {} fraction digits is not supported", spelled,
                     LogicalType::kMaxDecimalPrecision / 2));
  }
  const LogicalType wide = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, scale);
  const LogicalType squareType = LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 2 * scale);
  ExpressionPtr value = filteredArgument(std::move(filter), coerce(std::move(argument), wide, call.location()));
  auto squareOf = [&](const engine::Expression& of) {
    return makeFunction(ScalarFunction::kMultiply, squareType, copyExpression(of), copyExpression(of));
  };
  auto partial = [&](AggregateFunction which, ExpressionPtr input, const std::string& suffix) {
    AggregateCall part;
    part.function = which;
    part.name = spelled + suffix;
    part.distinct = aggregate.distinct;
    part.resultType = engine::aggregateResultType(which, input->type());
    part.argument = std::move(input);
    return emitAggregate(std::move(part));
  };
  std::vector<ExpressionPtr> parts;
  parts.push_back(partial(AggregateFunction::kCount, copyExpression(*value), "_count"));
  if (!aggregate.distinct) {
    parts.push_back(partial(AggregateFunction::kSum, squareOf(*value), "_squares"));
  } else {
    // x and -x have one square, so the distinct squares are not the squares of the distinct values; within
    // one sign they are: the squares of the distinct values >= 0 plus those of the distinct values < 0.
    auto squaresOfSign = [&](ScalarFunction comparison, const std::string& suffix) {
      std::vector<ExpressionPtr> branches;
      branches.push_back(makeFunction(comparison, LogicalType::boolean(), copyExpression(*value),
                                      constantOf(engine::Value::decimal(wide, 0))));
      branches.push_back(squareOf(*value));
      branches.push_back(constantOf(engine::Value::null(squareType)));
      std::vector<ExpressionPtr> orZero;
      orZero.push_back(
          partial(AggregateFunction::kSum, functionOf(ScalarFunction::kCase, squareType, std::move(branches)), suffix));
      const LogicalType sumType = orZero[0]->type();
      orZero.push_back(constantOf(engine::Value::decimal(sumType, 0)));
      return functionOf(ScalarFunction::kCoalesce, sumType, std::move(orZero));
    };
    ExpressionPtr nonnegative = squaresOfSign(ScalarFunction::kGreaterEqual, "_squares_nonnegative");
    const LogicalType sumType = nonnegative->type();
    parts.push_back(makeFunction(ScalarFunction::kAdd, sumType, std::move(nonnegative),
                                 squaresOfSign(ScalarFunction::kLess, "_squares_negative")));
  }
  parts.insert(parts.begin() + 1, partial(AggregateFunction::kSum, std::move(value), "_sum"));
  parts.push_back(std::make_unique<engine::ConstantExpression>(
      engine::Value::integer(static_cast<int32_t>(varianceKind(function)))));
  // PostgreSQL keeps at least 16 fraction digits here, as for AVG (and more for small results: see
  // tests/sql/logic/known_bugs_numeric_scale.test).
  constexpr int kMinimumScale = 16;
  const LogicalType resultType =
      LogicalType::decimal(LogicalType::kMaxDecimalPrecision, std::max(kMinimumScale, 2 * scale));
  return functionOf(ScalarFunction::kNumericVariance, resultType, std::move(parts));
}

ExpressionPtr ExpressionBinder::bindOrderedSetAggregate(const pg_query::Node& node, AggregateFunction function) {
  const auto& call = node.func_call();
  const std::string spelled = lastName(call.funcname());
  checkAggregateAllowed(call);
  const int directArguments = function == AggregateFunction::kMode ? 0 : 1;
  if (!call.agg_within_group() || call.agg_order_size() != 1 || call.args_size() != directArguments) {
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}(...) does not exist", spelled),
         "No function matches the given name and argument types. You might need to add explicit type casts.");
  }
  if (call.agg_distinct()) {
    fail(SqlState::kSyntaxError, call.location(), "cannot use DISTINCT with WITHIN GROUP");
  }
  ExpressionPtr filter = bindAggregateFilter(call);
  // The direct argument (the fraction) is one value per group: a constant or parameter here.
  ExpressionPtr fraction;
  if (directArguments == 1) {
    fraction = bind(call.args(0));
    if (!columnsOf(*fraction).empty()) {
      fail(SqlState::kFeatureNotSupported, locationOf(call.args(0)),
           fmt::format("a {} fraction that reads columns is not supported yet", spelled));
    }
    if (fraction->type().isArray()) {
      fail(SqlState::kFeatureNotSupported, locationOf(call.args(0)),
           fmt::format("{} of an array of fractions is not supported yet", spelled));
    }
    if (!isUnknown(fraction) && !fraction->type().isNumeric()) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {}({}, ...) does not exist", spelled, fraction->type().toString()));
    }
    fraction = coerce(std::move(fraction), LogicalType::doublePrecision(), call.location());
  }
  const auto& sortBy = call.agg_order(0).sort_by();
  const int location = locationOf(sortBy.node());
  if (sortBy.sortby_dir() == pg_query::SORTBY_USING) {
    fail(SqlState::kFeatureNotSupported, location, "ORDER BY ... USING is not supported");
  }
  const AggregateArguments aggregateArguments = beginAggregateArguments();
  ExpressionPtr value = resolveUnknown(bind(sortBy.node()), location);
  endAggregateArguments(aggregateArguments);
  if (function == AggregateFunction::kPercentileCont) {
    // PostgreSQL has it over double precision (and interval): numbers are cast.
    if (!value->type().isNumeric()) {
      fail(SqlState::kUndefinedFunction, call.location(),
           fmt::format("function {}(double precision, {}) does not exist", spelled, value->type().toString()));
    }
    value = coerce(std::move(value), LogicalType::doublePrecision(), location);
  } else if (value->type().isArray()) {
    fail(SqlState::kFeatureNotSupported, location, "ordering by an array is not supported");
  } else if (auto reason = uncomparableReason(value->type(), true)) {
    fail(reason->first, location, reason->second);
  }
  AggregateCall aggregate;
  aggregate.function = function;
  aggregate.name = spelled;
  aggregate.resultType = engine::aggregateResultType(function, value->type());
  const bool ascending = sortBy.sortby_dir() != pg_query::SORTBY_DESC;
  aggregate.orderBy.push_back({copyExpression(*value), ascending, !ascending});
  aggregate.argument = filteredArgument(std::move(filter), std::move(value));
  aggregate.secondArgument = std::move(fraction);
  return emitAggregate(std::move(aggregate));
}

ExpressionPtr ExpressionBinder::bindApproximateAggregate(const pg_query::Node& node, AggregateFunction function) {
  const auto& call = node.func_call();
  const std::string spelled = lastName(call.funcname());
  checkAggregateAllowed(call);
  const bool percentile = function == AggregateFunction::kApproxPercentile;
  if (call.agg_star() || call.agg_within_group() || call.args_size() != (percentile ? 2 : 1)) {
    fail(SqlState::kUndefinedFunction, call.location(), fmt::format("function {}(...) does not exist", spelled),
         percentile ? "approx_percentile takes the value and a fraction: approx_percentile(x, 0.5)."
                    : "approx_count_distinct takes one argument.");
  }
  if (percentile && call.agg_distinct()) {
    fail(SqlState::kFeatureNotSupported, call.location(), "DISTINCT in approx_percentile() is not supported");
  }
  ExpressionPtr filter = bindAggregateFilter(call);
  const AggregateArguments aggregateArguments = beginAggregateArguments();
  ExpressionPtr value = resolveUnknown(bind(call.args(0)), locationOf(call.args(0)));
  endAggregateArguments(aggregateArguments);
  AggregateCall aggregate;
  aggregate.function = function;
  aggregate.name = spelled;
  if (!percentile) {
    // A sketch of distinct values is the same with or without DISTINCT.
    if (auto reason = uncomparableReason(value->type(), false)) fail(reason->first, call.location(), reason->second);
    aggregate.resultType = engine::aggregateResultType(function, value->type());
    aggregate.argument = filteredArgument(std::move(filter), std::move(value));
    return emitAggregate(std::move(aggregate));
  }
  if (!value->type().isNumeric()) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function approx_percentile({}, double precision) does not exist", value->type().toString()),
         "approx_percentile takes a number (its sketch works over double precision).");
  }
  // The fraction must be known as the statement binds: it is kept in the aggregate, not computed per row.
  ExpressionPtr fraction = bind(call.args(1));
  if (!isUnknown(fraction) && !fraction->type().isNumeric()) {
    fail(SqlState::kUndefinedFunction, call.location(),
         fmt::format("function approx_percentile({}, {}) does not exist", value->type().toString(),
                     fraction->type().toString()));
  }
  fraction = foldConstants(*coerce(std::move(fraction), LogicalType::doublePrecision(), locationOf(call.args(1))));
  if (fraction->kind() != engine::ExpressionKind::kConstant) {
    fail(SqlState::kFeatureNotSupported, locationOf(call.args(1)), "approx_percentile's fraction must be a constant");
  }
  const engine::Value& given = static_cast<const engine::ConstantExpression&>(*fraction).value();
  // A NULL fraction gives NULL, as percentile_disc's does: NaN stands for it in the aggregate.
  const double share = given.isNull() ? std::numeric_limits<double>::quiet_NaN() : given.asDouble();
  if (!given.isNull() && !(share >= 0 && share <= 1)) {
    std::string text;
    engine::appendDoubleText(share, text);
    fail(SqlState::kNumericValueOutOfRange, locationOf(call.args(1)),
         fmt::format("percentile value {} is not between 0 and 1", text));
  }
  aggregate.resultType = engine::aggregateResultType(function, LogicalType::doublePrecision());
  aggregate.argument =
      filteredArgument(std::move(filter), coerce(std::move(value), LogicalType::doublePrecision(), call.location()));
  aggregate.secondArgument = constantOf(engine::Value::doublePrecision(share));
  return emitAggregate(std::move(aggregate));
}

}  // namespace shoal::sql
