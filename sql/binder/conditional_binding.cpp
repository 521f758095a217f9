// ExpressionBinder's conditional expressions: COALESCE, GREATEST and LEAST, the boolean tests IS [NOT] TRUE,
// IS [NOT] FALSE and IS [NOT] UNKNOWN, and num_nulls/num_nonnulls. All but COALESCE are written as CASE over
// the arguments, so they run wherever CASE runs and evaluate lazily as it does.

#include <fmt/format.h>

#include "common/status.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ConstantExpression;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

namespace {

ExpressionPtr booleanConstant(bool value) {
  return std::make_unique<ConstantExpression>(Value::boolean(value));
}

/// CASE WHEN condition THEN a ELSE b END.
ExpressionPtr ifThenElse(ExpressionPtr condition, ExpressionPtr then, ExpressionPtr otherwise, LogicalType type) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(condition));
  arguments.push_back(std::move(then));
  arguments.push_back(std::move(otherwise));
  return functionOf(ScalarFunction::kCase, std::move(type), std::move(arguments));
}

ExpressionPtr isNull(const engine::Expression& value) {
  return makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), copyExpression(value));
}

}  // namespace

ExpressionPtr ExpressionBinder::bindCoalesce(const pg_query::Node& node) {
  const auto& coalesce = node.coalesce_expr();
  std::vector<ExpressionPtr> arguments;
  std::vector<LogicalType> types;
  for (const auto& argument : coalesce.args()) {
    arguments.push_back(bind(argument));
    types.push_back(arguments.back()->type());
  }
  LogicalType type = commonType(types, "COALESCE", coalesce.location());
  for (auto& argument : arguments) argument = coerce(std::move(argument), type, coalesce.location());
  if (arguments.size() == 1) return std::move(arguments[0]);
  return functionOf(ScalarFunction::kCoalesce, type, std::move(arguments));
}

ExpressionPtr ExpressionBinder::bindGreatestOrLeast(const pg_query::MinMaxExpr& expression) {
  const bool greatest = expression.op() == pg_query::IS_GREATEST;
  const int location = expression.location();
  std::vector<ExpressionPtr> arguments;
  std::vector<LogicalType> types;
  for (const auto& argument : expression.args()) {
    arguments.push_back(bind(argument));
    types.push_back(arguments.back()->type());
  }
  const LogicalType type = commonType(types, greatest ? "GREATEST" : "LEAST", location);
  for (auto& argument : arguments) argument = coerce(std::move(argument), type, location);
  if (arguments.size() == 1) return std::move(arguments[0]);
  // NULLs are ignored: the result is NULL only when every argument is. Argument i wins when it is not NULL and
  // beats (or ties) every other one that is not NULL; a tie goes to the first.
  const ScalarFunction beats = greatest ? ScalarFunction::kGreaterEqual : ScalarFunction::kLessEqual;
  std::vector<ExpressionPtr> branches;
  for (size_t i = 0; i < arguments.size(); ++i) {
    ExpressionPtr wins =
        makeFunction(ScalarFunction::kIsNotNull, LogicalType::boolean(), copyExpression(*arguments[i]));
    for (size_t j = 0; j < arguments.size(); ++j) {
      if (j == i) continue;
      std::vector<ExpressionPtr> either;
      either.push_back(isNull(*arguments[j]));
      either.push_back(bindComparison(beats, copyExpression(*arguments[i]), copyExpression(*arguments[j]), location));
      ExpressionPtr beaten = functionOf(ScalarFunction::kOr, LogicalType::boolean(), std::move(either));
      std::vector<ExpressionPtr> both;
      both.push_back(std::move(wins));
      both.push_back(std::move(beaten));
      wins = functionOf(ScalarFunction::kAnd, LogicalType::boolean(), std::move(both));
    }
    branches.push_back(std::move(wins));
    branches.push_back(copyExpression(*arguments[i]));
  }
  branches.push_back(std::make_unique<ConstantExpression>(Value::null(type)));
  return functionOf(ScalarFunction::kCase, type, std::move(branches));
}

ExpressionPtr ExpressionBinder::bindBooleanTest(const pg_query::BooleanTest& test) {
  ExpressionPtr value = bind(test.arg());
  if (isUnknown(value)) value = coerce(std::move(value), LogicalType::boolean(), test.location());
  if (value->type().id() != engine::TypeId::kBoolean) {
    const char* spelled[] = {"", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN"};
    const int kind = static_cast<int>(test.booltesttype());
    fail(SqlState::kDatatypeMismatch, test.location(),
         fmt::format("argument of {} must be type boolean, not type {}", kind >= 1 && kind <= 6 ? spelled[kind] : "?",
                     value->type().toString()));
  }
  // Never NULL: an unknown value is neither true nor false.
  switch (test.booltesttype()) {
    case pg_query::IS_TRUE:
      return ifThenElse(std::move(value), booleanConstant(true), booleanConstant(false), LogicalType::boolean());
    case pg_query::IS_NOT_TRUE:
      return ifThenElse(std::move(value), booleanConstant(false), booleanConstant(true), LogicalType::boolean());
    case pg_query::IS_FALSE:
      return ifThenElse(makeFunction(ScalarFunction::kNot, LogicalType::boolean(), std::move(value)),
                        booleanConstant(true), booleanConstant(false), LogicalType::boolean());
    case pg_query::IS_NOT_FALSE:
      return ifThenElse(makeFunction(ScalarFunction::kNot, LogicalType::boolean(), std::move(value)),
                        booleanConstant(false), booleanConstant(true), LogicalType::boolean());
    case pg_query::IS_UNKNOWN:
      return makeFunction(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(value));
    case pg_query::IS_NOT_UNKNOWN:
      return makeFunction(ScalarFunction::kIsNotNull, LogicalType::boolean(), std::move(value));
    default:
      fail(SqlState::kFeatureNotSupported, test.location(), "this boolean test is not supported");
  }
}

ExpressionPtr ExpressionBinder::bindNullCount(std::string_view name, std::vector<ExpressionPtr>& arguments,
                                              int location) {
  const bool countNulls = name == "num_nulls";
  ExpressionPtr total;
  for (auto& argument : arguments) {
    argument = resolveUnknown(std::move(argument), location);
    ExpressionPtr one =
        ifThenElse(isNull(*argument), std::make_unique<ConstantExpression>(Value::integer(countNulls)),
                   std::make_unique<ConstantExpression>(Value::integer(!countNulls)), LogicalType::integer());
    total = total ? bindArithmetic('+', std::move(total), std::move(one), location) : std::move(one);
  }
  return total;
}

}  // namespace shoal::sql
