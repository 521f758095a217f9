// ExpressionBinder's binding of PostgreSQL's mathematical functions: abs, sign, ceil/ceiling, floor, round,
// trunc, sqrt, cbrt, exp, ln, log, log10, power/pow, mod, pi, random, setseed, width_bucket (and
// gen_random_uuid, random too), resolved over the
// argument's type as PostgreSQL 15 resolves them (an integer goes to double precision, except in abs and mod).

#include <fmt/format.h>

#include <algorithm>
#include <numbers>
#include <set>

#include "common/status.h"
#include "engine/expression/random_values.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/type_coercion.h"
#include "sql/optimizer/constant_folder.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::TypeId;
using engine::Value;

namespace {

const std::map<std::string_view, ScalarFunction>& oneArgumentFunctions() {
  static const std::map<std::string_view, ScalarFunction> kFunctions = {
      {"abs", ScalarFunction::kAbs},      {"sign", ScalarFunction::kSign},   {"ceil", ScalarFunction::kCeil},
      {"ceiling", ScalarFunction::kCeil}, {"floor", ScalarFunction::kFloor}, {"round", ScalarFunction::kRound},
      {"trunc", ScalarFunction::kTrunc},  {"sqrt", ScalarFunction::kSqrt},   {"cbrt", ScalarFunction::kCbrt},
      {"exp", ScalarFunction::kExp},      {"ln", ScalarFunction::kLn},       {"log", ScalarFunction::kLog10},
      {"log10", ScalarFunction::kLog10}};
  return kFunctions;
}

/// Functions whose numeric result's scale PostgreSQL picks per value, which a column type cannot hold.
bool hasValueDependentScale(ScalarFunction function) {
  return function == ScalarFunction::kSqrt || function == ScalarFunction::kExp || function == ScalarFunction::kLn ||
         function == ScalarFunction::kLog10;
}

}  // namespace

bool isMathFunction(std::string_view name) {
  return oneArgumentFunctions().contains(name) || name == "power" || name == "pow" || name == "mod" || name == "pi" ||
         name == "random" || name == "setseed" || name == "width_bucket" || name == "gen_random_uuid";
}

ExpressionPtr ExpressionBinder::bindMathFunction(std::string_view name, std::vector<ExpressionPtr>& arguments,
                                                 int location, const std::function<void()>& undefined) {
  // An untyped literal is double precision, PostgreSQL's preferred numeric type.
  auto toDouble = [&](ExpressionPtr argument) {
    if (!argument->type().isNumeric() && !isUnknown(argument)) undefined();
    return coerce(std::move(argument), LogicalType::doublePrecision(), location);
  };
  if (name == "width_bucket") {
    // The numeric version when a bound or the operand is numeric (and none is double precision); otherwise
    // PostgreSQL's preferred double precision, integers included. The count is an integer (smallint widens).
    if (arguments.size() != 4) undefined();
    bool anyDouble = false;
    bool anyDecimal = false;
    for (size_t index = 0; index < 3; ++index) {
      const ExpressionPtr& argument = arguments[index];
      if (!isUnknown(argument) && !argument->type().isNumeric()) undefined();
      anyDouble = anyDouble || argument->type().id() == TypeId::kDouble;
      anyDecimal = anyDecimal || argument->type().id() == TypeId::kDecimal;
    }
    const LogicalType& countType = arguments[3]->type();
    if (!isUnknown(arguments[3]) && countType.id() != TypeId::kSmallInt && countType.id() != TypeId::kInteger) {
      undefined();
    }
    LogicalType valueType = LogicalType::doublePrecision();
    if (anyDecimal && !anyDouble) {
      std::optional<LogicalType> common;
      for (size_t index = 0; index < 3; ++index) {
        if (isUnknown(arguments[index])) continue;
        const LogicalType decimal = asDecimal(arguments[index]->type());
        common = common ? commonNumericType(*common, decimal) : decimal;
      }
      valueType = *common;
    }
    for (size_t index = 0; index < 3; ++index)
      arguments[index] = coerce(std::move(arguments[index]), valueType, location);
    arguments[3] = coerce(std::move(arguments[3]), LogicalType::integer(), location);
    return functionOf(ScalarFunction::kWidthBucket, LogicalType::integer(), std::move(arguments));
  }
  if (name == "gen_random_uuid") {
    if (!arguments.empty()) undefined();
    return functionOf(ScalarFunction::kGenRandomUuid, LogicalType::uuid(), {});
  }
  if (name == "random") {
    if (!arguments.empty()) undefined();
    const uint64_t seed = session_ != nullptr && session_->nextRandomSeed ? session_->nextRandomSeed() : 0;
    return makeFunction(ScalarFunction::kRandom, LogicalType::doublePrecision(),
                        constantOf(Value::bigInt(static_cast<int64_t>(seed))));
  }
  if (name == "setseed") {
    // It sets the session's seed as the statement binds (each execution binds it again), so its argument must
    // be known then; it returns void, shown as an empty text.
    if (arguments.size() != 1) undefined();
    ExpressionPtr seed = foldConstants(*toDouble(std::move(arguments[0])));
    if (seed->kind() != engine::ExpressionKind::kConstant) {
      fail(SqlState::kFeatureNotSupported, location, "setseed()'s argument must be a constant");
    }
    const Value& value = static_cast<const ConstantExpression&>(*seed).value();
    if (value.isNull()) return constantOf(Value::null(LogicalType::text()));
    try {
      const uint64_t randomSeed = engine::randomSeedOf(value.asDouble());
      if (session_ != nullptr && session_->setRandomSeed) session_->setRandomSeed(randomSeed);
    } catch (ShoalError& error) {
      fail(error.status().sqlState(), location, error.status().message());
    }
    return constantOf(Value::varchar(""));
  }
  if (name == "pi") {
    if (!arguments.empty()) undefined();
    return std::make_unique<ConstantExpression>(Value::doublePrecision(std::numbers::pi));
  }
  if (name == "mod") {
    // mod(a, b) is a % b over integers and numeric; PostgreSQL has none over double precision.
    if (arguments.size() != 2) undefined();
    for (const auto& argument : arguments) {
      if (!isUnknown(argument) && !argument->type().isIntegral() && argument->type().id() != TypeId::kDecimal) {
        undefined();
      }
    }
    return bindArithmetic('%', std::move(arguments[0]), std::move(arguments[1]), location);
  }
  if (name == "power" || name == "pow") {
    if (arguments.size() != 2) undefined();
    // PostgreSQL takes power(numeric, numeric) when a numeric meets no double precision.
    bool anyDouble = false;
    bool anyNumeric = false;
    for (const auto& argument : arguments) {
      anyDouble = anyDouble || argument->type().id() == TypeId::kDouble;
      anyNumeric = anyNumeric || argument->type().id() == TypeId::kDecimal;
    }
    if (anyNumeric && !anyDouble) {
      fail(SqlState::kFeatureNotSupported, location,
           fmt::format("{}(numeric, numeric) is not supported yet: cast to double precision", name));
    }
    for (auto& argument : arguments) argument = toDouble(std::move(argument));
    return functionOf(ScalarFunction::kPower, LogicalType::doublePrecision(), std::move(arguments));
  }
  const ScalarFunction function = oneArgumentFunctions().at(name);
  const bool rounding = function == ScalarFunction::kRound || function == ScalarFunction::kTrunc;
  if (rounding && arguments.size() == 2) {
    // round(numeric, integer): the digits decide the result's scale, so they must be a constant.
    if (isUnknown(arguments[0])) {
      arguments[0] = coerce(std::move(arguments[0]), LogicalType::decimal(38, 10), location);
    }
    if (arguments[0]->type().isIntegral()) {
      arguments[0] = coerce(std::move(arguments[0]), asDecimal(arguments[0]->type()), location);
    }
    if (arguments[0]->type().id() != TypeId::kDecimal) undefined();
    if (!arguments[1]->type().isIntegral() && !isUnknown(arguments[1])) undefined();
    arguments[1] = coerce(std::move(arguments[1]), LogicalType::integer(), location);
    arguments[1] = foldConstants(*arguments[1]);
    std::optional<Value> digits = literalBeneathCasts(*arguments[1]);
    if (!digits) {
      fail(SqlState::kFeatureNotSupported, location, fmt::format("{}'s digits must be a constant", name));
    }
    if (digits->isNull()) return std::make_unique<ConstantExpression>(Value::null(arguments[0]->type()));
    const int count = digits->asInt32();
    const LogicalType& type = arguments[0]->type();
    const int scale = std::max(count, 0);
    if (scale > LogicalType::kMaxDecimalPrecision) {
      fail(SqlState::kFeatureNotSupported, location, fmt::format("{} to {} digits is not supported", name, count));
    }
    const int integerDigits = type.precision() - type.scale() + (function == ScalarFunction::kRound ? 1 : 0);
    const int precision = std::clamp(integerDigits + scale, std::max(scale, 1), +LogicalType::kMaxDecimalPrecision);
    arguments[1] = std::make_unique<ConstantExpression>(Value::integer(count));
    return functionOf(function, LogicalType::decimal(precision, scale), std::move(arguments));
  }
  if (arguments.size() != 1) undefined();
  if (isUnknown(arguments[0])) arguments[0] = toDouble(std::move(arguments[0]));
  const LogicalType type = arguments[0]->type();
  if (!type.isNumeric()) undefined();
  if ((type.isIntegral() || type.isReal()) && function == ScalarFunction::kAbs) {
    return functionOf(function, type, std::move(arguments));  // int2abs ... float4abs keep the type
  }
  if (type.id() == TypeId::kDecimal && function != ScalarFunction::kCbrt) {
    if (hasValueDependentScale(function)) {
      fail(SqlState::kFeatureNotSupported, location,
           fmt::format("{}(numeric) is not supported yet: cast to double precision", name));
    }
    LogicalType result = type;  // abs keeps the type
    if (function == ScalarFunction::kSign) result = LogicalType::decimal(1, 0);
    if (function == ScalarFunction::kCeil || function == ScalarFunction::kFloor || rounding) {
      const int extra = function == ScalarFunction::kTrunc ? 0 : 1;
      result = LogicalType::decimal(std::clamp(type.precision() - type.scale() + extra, 1, 38), 0);
    }
    if (rounding) arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(0)));
    return functionOf(function, result, std::move(arguments));
  }
  arguments[0] = toDouble(std::move(arguments[0]));
  if (rounding) arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(0)));
  return functionOf(function, LogicalType::doublePrecision(), std::move(arguments));
}

}  // namespace shoal::sql

namespace shoal::sql {

std::optional<engine::ExpressionPtr> ExpressionBinder::bindBitOperator(std::string_view op, engine::ExpressionPtr& left,
                                                                       engine::ExpressionPtr& right, int location) {
  static const std::pair<std::string_view, ScalarFunction> kOperators[] = {{"&", ScalarFunction::kBitAnd},
                                                                           {"|", ScalarFunction::kBitOr},
                                                                           {"#", ScalarFunction::kBitXor},
                                                                           {"<<", ScalarFunction::kShiftLeft},
                                                                           {">>", ScalarFunction::kShiftRight}};
  const auto* found =
      std::find_if(std::begin(kOperators), std::end(kOperators), [&](const auto& entry) { return entry.first == op; });
  if (found == std::end(kOperators)) return std::nullopt;
  const bool shift = found->second == ScalarFunction::kShiftLeft || found->second == ScalarFunction::kShiftRight;
  auto integral = [](const ExpressionPtr& e) { return isUnknown(e) || e->type().isIntegral(); };
  if (!integral(left) || !integral(right) || (isUnknown(left) && (shift || isUnknown(right)))) {
    failNoOperator(op, left->type(), right->type(), location);
  }
  if (shift) {
    // int2shl, int4shl, int8shl: the count is an integer (a bigint count fits no signature).
    if (!isUnknown(right) && right->type().id() == TypeId::kBigInt) {
      failNoOperator(op, left->type(), right->type(), location);
    }
    LogicalType type = left->type();
    return makeFunction(found->second, type, std::move(left),
                        coerce(std::move(right), LogicalType::integer(), location));
  }
  // int2and ... int8xor take two values of one type: the narrower side widens; an untyped side takes the other's.
  auto width = [](const ExpressionPtr& e) {
    return e->type().id() == TypeId::kBigInt ? 3 : e->type().id() == TypeId::kInteger ? 2 : 1;
  };
  const LogicalType type = isUnknown(left)               ? right->type()
                           : isUnknown(right)            ? left->type()
                           : width(left) >= width(right) ? left->type()
                                                         : right->type();
  return makeFunction(found->second, type, coerce(std::move(left), type, location),
                      coerce(std::move(right), type, location));
}

}  // namespace shoal::sql
