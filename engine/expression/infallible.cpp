#include "engine/expression/infallible.h"

#include <algorithm>

namespace shoal::engine {

namespace {

bool castIsInfallible(const LogicalType& from, const LogicalType& to) {
  if (from == to && from.id() != TypeId::kDecimal) return true;
  // Every value has a text form; an explicit cast to VARCHAR(n) or CHAR(n) truncates rather than fails.
  if (to.isString()) return true;
  if (from.id() == TypeId::kSmallInt && to.id() == TypeId::kInteger) return true;
  return (from.id() == TypeId::kSmallInt || from.id() == TypeId::kInteger) &&
         (to.id() == TypeId::kBigInt || to.id() == TypeId::kDouble);
}

bool functionIsInfallible(ScalarFunction function) {
  if (isComparison(function)) return true;
  switch (function) {
    case ScalarFunction::kAnd:
    case ScalarFunction::kOr:
    case ScalarFunction::kNot:
    case ScalarFunction::kIsNull:
    case ScalarFunction::kIsNotNull:
    case ScalarFunction::kLower:
    case ScalarFunction::kUpper:
    case ScalarFunction::kCharLength:
    case ScalarFunction::kCase:
    case ScalarFunction::kCoalesce:
    case ScalarFunction::kExtractYear:
    case ScalarFunction::kExtractMonth:
    case ScalarFunction::kExtractDay:
      return true;
    default:
      return false;
  }
}

/// LIKE fails only when matching reaches a pattern's trailing lone escape character ('\\'):
/// a constant pattern without one never fails.
bool likePatternIsInfallible(const Expression& pattern) {
  if (pattern.kind() != ExpressionKind::kConstant) return false;
  const Value& value = static_cast<const ConstantExpression&>(pattern).value();
  if (value.isNull()) return true;
  if (!value.type().isString()) return false;
  const std::string& text = value.asString();
  size_t trailingEscapes = 0;
  while (trailingEscapes < text.size() && text[text.size() - 1 - trailingEscapes] == '\\') ++trailingEscapes;
  return trailingEscapes % 2 == 0;
}

}  // namespace

bool isInfallible(const Expression& expression) {
  switch (expression.kind()) {
    case ExpressionKind::kConstant:
    case ExpressionKind::kColumnRef:
    case ExpressionKind::kParameter:
      return true;
    case ExpressionKind::kCast: {
      const auto& cast = static_cast<const CastExpression&>(expression);
      return castIsInfallible(cast.child().type(), cast.type()) && isInfallible(cast.child());
    }
    case ExpressionKind::kFunction: {
      const auto& function = static_cast<const FunctionExpression&>(expression);
      const auto& arguments = function.arguments();
      bool infallible = functionIsInfallible(function.function());
      if (function.function() == ScalarFunction::kLike || function.function() == ScalarFunction::kNotLike) {
        infallible = arguments.size() >= 2 && likePatternIsInfallible(*arguments[1]);
      }
      return infallible && std::all_of(arguments.begin(), arguments.end(),
                                       [](const ExpressionPtr& argument) { return isInfallible(*argument); });
    }
  }
  return false;
}

}  // namespace shoal::engine
