#pragma once

#include <utility>
#include <vector>

#include "engine/expression/expression.h"

namespace shoal::sql {

/// Small constructors for the expressions the binder builds itself (CASE lookups over the catalog, ...).
inline engine::ExpressionPtr constantOf(engine::Value value) {
  return std::make_unique<engine::ConstantExpression>(std::move(value));
}

inline engine::ExpressionPtr functionOf(engine::ScalarFunction which, engine::LogicalType type,
                                        std::vector<engine::ExpressionPtr> arguments) {
  return std::make_unique<engine::FunctionExpression>(which, std::move(arguments), std::move(type));
}

/// A function of one argument, or two when `b` is given.
inline std::unique_ptr<engine::FunctionExpression> makeFunction(engine::ScalarFunction which, engine::LogicalType type,
                                                                engine::ExpressionPtr a,
                                                                engine::ExpressionPtr b = nullptr) {
  std::vector<engine::ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  if (b) arguments.push_back(std::move(b));
  return std::make_unique<engine::FunctionExpression>(which, std::move(arguments), std::move(type));
}

/// A boolean as its output function writes it ('t' or 'f'), for the functions that take "any" value as its
/// output (concat, format); its cast to text says 'true' or 'false'.
inline engine::ExpressionPtr booleanOutputText(engine::ExpressionPtr boolean) {
  std::vector<engine::ExpressionPtr> branches;
  branches.push_back(std::move(boolean));
  branches.push_back(constantOf(engine::Value::varchar("t")));
  branches.push_back(constantOf(engine::Value::varchar("f")));
  return functionOf(engine::ScalarFunction::kCase, engine::LogicalType::text(), std::move(branches));
}

/// True for an untyped literal or parameter, whose type its context decides.
inline bool isUnknown(const engine::ExpressionPtr& expression) {
  return expression->type().id() == engine::TypeId::kUnknown;
}

inline engine::ExpressionPtr binaryOf(engine::ScalarFunction which, engine::LogicalType type,
                                      engine::ExpressionPtr left, engine::ExpressionPtr right) {
  std::vector<engine::ExpressionPtr> arguments;
  arguments.push_back(std::move(left));
  arguments.push_back(std::move(right));
  return functionOf(which, std::move(type), std::move(arguments));
}

}  // namespace shoal::sql
