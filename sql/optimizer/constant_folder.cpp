#include "sql/optimizer/constant_folder.h"
#include "common/stack_depth.h"
#include "common/status.h"

#include "engine/expression/expression_evaluator.h"
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

ExpressionPtr fold(const Expression& expression) {
  checkStackDepth();
  ExpressionPtr rebuilt;
  switch (expression.kind()) {
    case ExpressionKind::kCast: {
      // The cast of the folded child: evaluating the original instead would evaluate what folding removed
      // (a column under "... AND false"), over a row that has no columns.
      const auto& cast = static_cast<const engine::CastExpression&>(expression);
      rebuilt = std::make_unique<engine::CastExpression>(fold(cast.child()), cast.type());
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
    rebuilt = std::make_unique<FunctionExpression>(function.function(), std::move(arguments), function.type());
    if (!allConstant) return rebuilt;
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
