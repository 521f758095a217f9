#include "engine/expression/expression.h"

namespace shoal::engine {
namespace {

std::string_view extractField(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kExtractYear:
      return "YEAR";
    case ScalarFunction::kExtractMonth:
      return "MONTH";
    default:
      return "DAY";
  }
}

}  // namespace

std::string ConstantExpression::toString() const {
  if (value_.isNull()) {
    return "NULL";
  }
  std::string text = value_.toString();
  if (value_.type().isString() || value_.type().id() == TypeId::kUnknown || value_.type().isDateTime()) {
    return "'" + text + "'";
  }
  return text;
}

std::string FunctionExpression::toString() const {
  switch (function_) {
    case ScalarFunction::kCase: {
      std::string text = "CASE";
      for (size_t i = 0; i + 1 < arguments_.size(); i += 2) {
        text += " WHEN " + arguments_[i]->toString() + " THEN " + arguments_[i + 1]->toString();
      }
      return text + " ELSE " + (arguments_.empty() ? "NULL" : arguments_.back()->toString()) + " END";
    }
    case ScalarFunction::kExtractYear:
    case ScalarFunction::kExtractMonth:
    case ScalarFunction::kExtractDay:
      if (arguments_.size() == 1) {
        return "EXTRACT(" + std::string(extractField(function_)) + " FROM " + arguments_[0]->toString() + ")";
      }
      break;
    default:
      break;
  }
  std::string name(scalarFunctionName(function_));
  if (!isOperator(function_)) {
    std::string text = name + "(";
    for (size_t i = 0; i < arguments_.size(); ++i) {
      text += (i > 0 ? ", " : "") + arguments_[i]->toString();
    }
    return text + ")";
  }
  switch (arguments_.size()) {
    case 1:
      if (function_ == ScalarFunction::kIsNull || function_ == ScalarFunction::kIsNotNull) {
        return "(" + arguments_[0]->toString() + " " + name + ")";
      }
      return "(" + name + (name == "NOT" ? " " : "") + arguments_[0]->toString() + ")";
    case 2:
      return "(" + arguments_[0]->toString() + " " + name + " " + arguments_[1]->toString() + ")";
    default:
      return name + "(...)";
  }
}

void markColumnsRead(const Expression& expression, std::vector<bool>& used) {
  switch (expression.kind()) {
    case ExpressionKind::kColumnRef: {
      size_t index = static_cast<const ColumnRefExpression&>(expression).columnIndex();
      if (index >= used.size()) used.resize(index + 1);
      used[index] = true;
      break;
    }
    case ExpressionKind::kCast:
      markColumnsRead(static_cast<const CastExpression&>(expression).child(), used);
      break;
    case ExpressionKind::kFunction:
      for (const auto& argument : static_cast<const FunctionExpression&>(expression).arguments()) {
        markColumnsRead(*argument, used);
      }
      break;
    case ExpressionKind::kConstant:
    case ExpressionKind::kParameter:
      break;
  }
}

}  // namespace shoal::engine
