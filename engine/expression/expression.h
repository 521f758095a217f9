#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/expression/scalar_function.h"
#include "engine/types/logical_type.h"
#include "engine/types/value.h"

namespace shoal::engine {

enum class ExpressionKind { kConstant, kColumnRef, kParameter, kCast, kFunction };

/// A bound, typed expression tree: what the binder produces and the evaluator
/// runs. Immutable once built, so any number of threads may evaluate it at once.
class Expression {
 public:
  virtual ~Expression() = default;

  ExpressionKind kind() const { return kind_; }
  /// The type of the values this expression yields.
  const LogicalType& type() const { return type_; }
  /// SQL-like text for EXPLAIN and error messages.
  virtual std::string toString() const = 0;

 protected:
  Expression(ExpressionKind kind, LogicalType type) : kind_(kind), type_(type) {}

 private:
  ExpressionKind kind_;
  LogicalType type_;
};

using ExpressionPtr = std::unique_ptr<Expression>;

class ConstantExpression final : public Expression {
 public:
  explicit ConstantExpression(Value value) : Expression(ExpressionKind::kConstant, value.type()), value_(value) {}
  const Value& value() const { return value_; }
  std::string toString() const override;

 private:
  Value value_;
};

/// Reads column `columnIndex` of the input chunk.
class ColumnRefExpression final : public Expression {
 public:
  ColumnRefExpression(size_t columnIndex, LogicalType type, std::string name)
      : Expression(ExpressionKind::kColumnRef, type), columnIndex_(columnIndex), name_(std::move(name)) {}
  size_t columnIndex() const { return columnIndex_; }
  const std::string& name() const { return name_; }
  std::string toString() const override { return name_; }

 private:
  size_t columnIndex_;
  std::string name_;
};

/// A statement parameter, $1 being index 0. Its value comes with each execution.
class ParameterExpression final : public Expression {
 public:
  ParameterExpression(size_t index, LogicalType type) : Expression(ExpressionKind::kParameter, type), index_(index) {}
  size_t index() const { return index_; }
  std::string toString() const override { return "$" + std::to_string(index_ + 1); }

 private:
  size_t index_;
};

/// Converts its child to this expression's type (see cast.h for what may be cast). A cast to or from
/// timestamptz carries the session's TimeZone, which the plan takes to the workers.
class CastExpression final : public Expression {
 public:
  CastExpression(ExpressionPtr child, LogicalType target, std::string timeZone = {})
      : Expression(ExpressionKind::kCast, target), child_(std::move(child)), timeZone_(std::move(timeZone)) {}
  const Expression& child() const { return *child_; }
  /// The TimeZone setting the cast reads local times in; empty when the cast does not depend on one.
  const std::string& timeZone() const { return timeZone_; }
  std::string toString() const override { return "CAST(" + child_->toString() + " AS " + type().toString() + ")"; }

 private:
  ExpressionPtr child_;
  std::string timeZone_;
};

class FunctionExpression final : public Expression {
 public:
  FunctionExpression(ScalarFunction function, std::vector<ExpressionPtr> arguments, LogicalType resultType)
      : Expression(ExpressionKind::kFunction, resultType), function_(function), arguments_(std::move(arguments)) {}
  ScalarFunction function() const { return function_; }
  const std::vector<ExpressionPtr>& arguments() const { return arguments_; }
  std::string toString() const override;

  /// State that evaluation derives once from constant arguments (kInSet's hash set): built by the first
  /// thread that asks, then shared by every thread that evaluates this expression.
  template <typename State>
  const State& prepared(const std::function<std::shared_ptr<const State>()>& build) const {
    std::call_once(prepareOnce_, [&] { prepared_ = build(); });
    return *static_cast<const State*>(prepared_.get());
  }

 private:
  ScalarFunction function_;
  std::vector<ExpressionPtr> arguments_;
  mutable std::once_flag prepareOnce_;
  mutable std::shared_ptr<const void> prepared_;
};

/// Marks in `used` (growing it as needed) the input columns that `expression` reads.
void markColumnsRead(const Expression& expression, std::vector<bool>& used);

}  // namespace shoal::engine
