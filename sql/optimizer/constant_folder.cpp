#include "sql/optimizer/constant_folder.h"
#include "common/stack_depth.h"
#include "common/status.h"

#include <limits>

#include "engine/expression/expression_evaluator.h"
#include "engine/types/time_zone.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::Expression;
using engine::ExpressionKind;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::ScalarFunction;

namespace {

bool isConstant(const Expression& expression) {
  return expression.kind() == ExpressionKind::kConstant;
}

std::optional<bool> booleanConstant(const Expression& expression) {
  if (!isConstant(expression)) return std::nullopt;
  const auto& value = static_cast<const ConstantExpression&>(expression).value();
  if (value.isNull() || value.type().id() != engine::TypeId::kBoolean) return std::nullopt;
  return value.asBool();
}

/// A date column compared with a timestamp constant at midnight (l_shipdate < date '1994-01-01' + interval
/// '1' year, a timestamp in PostgreSQL) compares as dates: the same answer, without casting every row, and
/// zone maps still prune. Rewrites `arguments` in place.
void compareDatesAsDates(ScalarFunction function, std::vector<ExpressionPtr>& arguments) {
  if (!engine::isComparison(function) || arguments.size() != 2) return;
  for (size_t side = 0; side < 2; ++side) {
    const Expression& cast = *arguments[side];
    const Expression& other = *arguments[1 - side];
    if (cast.kind() != ExpressionKind::kCast || !isConstant(other)) continue;
    const Expression& child = static_cast<const engine::CastExpression&>(cast).child();
    if (child.type().id() != engine::TypeId::kDate || cast.type().id() != engine::TypeId::kTimestamp) continue;
    const engine::Value& value = static_cast<const ConstantExpression&>(other).value();
    if (value.isNull() || value.type().id() != engine::TypeId::kTimestamp) continue;
    const int64_t micros = value.asInt64();
    if (micros == engine::kTimestampInfinity || micros == engine::kTimestampMinusInfinity ||
        micros % engine::kMicrosPerDay != 0) {
      continue;
    }
    const auto days = micros / engine::kMicrosPerDay;
    if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) continue;
    arguments[1 - side] = std::make_unique<ConstantExpression>(engine::Value::date(static_cast<int32_t>(days)));
    arguments[side] = copyExpression(child);
    return;
  }
}

ExpressionPtr fold(const Expression& expression) {
  checkStackDepth();
  ExpressionPtr rebuilt;
  switch (expression.kind()) {
    case ExpressionKind::kCast: {
      // The cast of the folded child: evaluating the original instead would evaluate what folding removed
      // (a column under "... AND false"), over a row that has no columns.
      const auto& cast = static_cast<const engine::CastExpression&>(expression);
      rebuilt = std::make_unique<engine::CastExpression>(fold(cast.child()), cast.type(), cast.timeZone());
      if (!isConstant(static_cast<const engine::CastExpression&>(*rebuilt).child())) return rebuilt;
      break;
    }
    case ExpressionKind::kFunction:
      break;
    default:
      return copyExpression(expression);
  }
  if (expression.kind() == ExpressionKind::kFunction) {
    const auto& function = static_cast<const FunctionExpression&>(expression);
    std::vector<ExpressionPtr> arguments;
    bool allConstant = true;
    for (const auto& argument : function.arguments()) {
      arguments.push_back(fold(*argument));
      allConstant = allConstant && isConstant(*arguments.back());
    }
    // TRUE AND x is x; FALSE AND x is FALSE; the same for OR with the roles swapped.
    if (function.function() == ScalarFunction::kAnd || function.function() == ScalarFunction::kOr) {
      bool isAnd = function.function() == ScalarFunction::kAnd;
      for (size_t i = 0; i < 2; ++i) {
        auto value = booleanConstant(*arguments[i]);
        if (!value) continue;
        if (*value == isAnd) return std::move(arguments[1 - i]);
        return std::make_unique<ConstantExpression>(engine::Value::boolean(!isAnd));
      }
    }
    compareDatesAsDates(function.function(), arguments);
    rebuilt = std::make_unique<FunctionExpression>(function.function(), std::move(arguments), function.type());
    if (!allConstant || engine::isVolatile(function.function())) return rebuilt;
  }
  try {
    engine::ExpressionEvaluator evaluator;
    engine::Vector value = evaluator.evaluate(*rebuilt, engine::Chunk(1));
    return std::make_unique<ConstantExpression>(value.getValue(0));
  } catch (const ShoalError&) {
    return rebuilt;
  }
}

}  // namespace

ExpressionPtr foldConstants(const Expression& expression) {
  return fold(expression);
}

void foldConstants(LogicalOperator& root) {
  rewritePlanExpressions(root, [](const Expression& expression) { return fold(expression); });
}

}  // namespace shoal::sql
