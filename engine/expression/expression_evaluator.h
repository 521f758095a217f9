#pragma once

#include <optional>

#include <span>

#include "engine/expression/expression.h"
#include "engine/vector/chunk.h"

namespace shoal::engine {

/// Evaluates bound expressions over whole chunks, one vector at a time.
/// Stateless apart from the parameter values it holds by reference, so one
/// evaluator per thread (or a shared one) is fine.
class ExpressionEvaluator {
 public:
  /// `parameters` are the values of $1..$n; they must outlive the evaluator.
  explicit ExpressionEvaluator(std::span<const Value> parameters = {}) : parameters_(parameters) {}

  /// Returns a vector of `input.size()` rows holding the expression's value for each row.
  Vector evaluate(const Expression& expression, const Chunk& input) const;

 private:
  Vector evaluateFunction(const FunctionExpression& function, const Chunk& input) const;
  Vector broadcast(const Value& value, const LogicalType& type, size_t numRows) const;
  /// `column op constant` (either order) read straight from the input column: nullopt when
  /// the comparison has another shape.
  std::optional<Vector> evaluateColumnConstantComparison(const FunctionExpression& comparison,
                                                         const Chunk& input) const;

  std::span<const Value> parameters_;
};

}  // namespace shoal::engine
