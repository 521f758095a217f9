#include "engine/expression/expression.h"

namespace shoal::engine {

std::string ConstantExpression::toString() const {
  if (value_.isNull()) {
    return "NULL";
  }
  std::string text = value_.toString();
  if (value_.type().isString() || value_.type().id() == TypeId::kUnknown || value_.type().id() == TypeId::kDate) {
    return "'" + text + "'";
  }
  return text;
}

std::string FunctionExpression::toString() const {
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

}  // namespace shoal::engine
