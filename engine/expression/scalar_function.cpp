#include "engine/expression/scalar_function.h"

namespace shoal::engine {

std::string_view scalarFunctionName(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kAdd:
    case ScalarFunction::kDateAddDays:
      return "+";
    case ScalarFunction::kSubtract:
    case ScalarFunction::kNegate:
    case ScalarFunction::kDateSubtractDays:
    case ScalarFunction::kDateDifference:
      return "-";
    case ScalarFunction::kMultiply:
      return "*";
    case ScalarFunction::kDivide:
      return "/";
    case ScalarFunction::kModulo:
      return "%";
    case ScalarFunction::kEqual:
      return "=";
    case ScalarFunction::kNotEqual:
      return "<>";
    case ScalarFunction::kLess:
      return "<";
    case ScalarFunction::kLessEqual:
      return "<=";
    case ScalarFunction::kGreater:
      return ">";
    case ScalarFunction::kGreaterEqual:
      return ">=";
    case ScalarFunction::kAnd:
      return "AND";
    case ScalarFunction::kOr:
      return "OR";
    case ScalarFunction::kNot:
      return "NOT";
    case ScalarFunction::kIsNull:
      return "IS NULL";
    case ScalarFunction::kIsNotNull:
      return "IS NOT NULL";
    case ScalarFunction::kConcat:
      return "||";
    case ScalarFunction::kLower:
      return "lower";
    case ScalarFunction::kUpper:
      return "upper";
    case ScalarFunction::kCharLength:
      return "char_length";
  }
  return "?";
}

bool isOperator(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kLower:
    case ScalarFunction::kUpper:
    case ScalarFunction::kCharLength:
      return false;
    default:
      return true;
  }
}

}  // namespace shoal::engine
