#include "sql/optimizer/cardinality_estimator.h"
#include "common/status.h"

#include <algorithm>
#include <cmath>

#include "engine/types/decimal.h"
#include "sql/optimizer/interrupts.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ColumnRefExpression;
using engine::ConstantExpression;
using engine::Expression;
using engine::ExpressionKind;
using engine::FunctionExpression;
using engine::ScalarFunction;
using engine::TypeId;

namespace {

/// Used when nothing better is known, as PostgreSQL's planner does.
constexpr double kDefaultEquality = 0.005;
constexpr double kDefaultRange = 1.0 / 3;
constexpr double kDefaultSelectivity = 0.25;
constexpr double kLikeSelectivity = 0.05;
/// A table without statistics (never loaded, or a system view).
constexpr double kUnknownTableRows = 1000;
/// Rows of a function in FROM, as PostgreSQL assumes for a function without a row estimate (prorows).
constexpr double kTableFunctionRows = 1000;
/// An anti join keeps at least this fraction: "no match" is rarely impossible.
constexpr double kMinimumAntiFraction = 0.1;

std::optional<double> numericValue(const engine::Value& value) {
  if (value.isNull()) return std::nullopt;
  switch (value.type().id()) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kDate:
      return static_cast<double>(value.asInt32());
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
      return static_cast<double>(value.asInt64());
    case TypeId::kDouble:
      return value.asDouble();
    case TypeId::kDecimal:
      return static_cast<double>(value.asDecimal()) / std::pow(10.0, value.type().scale());
    default:
      return std::nullopt;
  }
}

/// Looks through casts, which keep the order of values for the types that have ranges.
const Expression& stripCasts(const Expression& expression) {
  const Expression* current = &expression;
  while (current->kind() == ExpressionKind::kCast) {
    current = &static_cast<const engine::CastExpression&>(*current).child();
  }
  return *current;
}

std::optional<ColumnId> columnIdOf(const Expression& expression) {
  const Expression& stripped = stripCasts(expression);
  if (stripped.kind() != ExpressionKind::kColumnRef) return std::nullopt;
  return static_cast<ColumnId>(static_cast<const ColumnRefExpression&>(stripped).columnIndex());
}

const engine::Value* constantOf(const Expression& expression) {
  const Expression& stripped = stripCasts(expression);
  if (stripped.kind() != ExpressionKind::kConstant) return nullptr;
  return &static_cast<const ConstantExpression&>(stripped).value();
}

}  // namespace

const ColumnEstimate* CardinalityEstimator::column(ColumnId id) const {
  auto found = columns_.find(id);
  return found == columns_.end() ? nullptr : &found->second;
}

double CardinalityEstimator::distinctOf(const Expression& expression, double rows) const {
  auto id = columnIdOf(expression);
  const ColumnEstimate* estimate = id ? column(*id) : nullptr;
  if (estimate == nullptr || estimate->distinct < 0) return -1;
  return std::max(1.0, std::min(estimate->distinct, rows));
}

double CardinalityEstimator::selectivity(const std::vector<const Expression*>& conjuncts) const {
  // Range predicates on one column combine into one interval (BETWEEN, date ranges).
  std::map<ColumnId, std::pair<double, double>> ranges;
  double result = 1;
  for (const Expression* conjunct : conjuncts) {
    bool combined = false;
    if (conjunct->kind() == ExpressionKind::kFunction) {
      const auto& comparison = static_cast<const FunctionExpression&>(*conjunct);
      ScalarFunction op = comparison.function();
      if (op == ScalarFunction::kLess || op == ScalarFunction::kLessEqual || op == ScalarFunction::kGreater ||
          op == ScalarFunction::kGreaterEqual) {
        auto id = columnIdOf(*comparison.arguments()[0]);
        const engine::Value* constant = constantOf(*comparison.arguments()[1]);
        if (!id) {
          id = columnIdOf(*comparison.arguments()[1]);
          constant = constantOf(*comparison.arguments()[0]);
          op = engine::mirroredComparison(op);
        }
        const ColumnEstimate* estimate = id ? column(*id) : nullptr;
        auto bound = constant ? numericValue(*constant) : std::nullopt;
        if (estimate && estimate->min && estimate->max && bound) {
          double limit = bound.value_or(0);
          auto [range, inserted] = ranges.try_emplace(*id, estimate->min.value_or(0), estimate->max.value_or(0));
          if (op == ScalarFunction::kLess || op == ScalarFunction::kLessEqual) {
            range->second.second = std::min(range->second.second, limit);
          } else {
            range->second.first = std::max(range->second.first, limit);
          }
          combined = true;
        }
      }
    }
    if (!combined) result *= selectivity(*conjunct);
  }
  for (const auto& [id, range] : ranges) {
    const ColumnEstimate& estimate = columns_.at(id);
    double width = *estimate.max - *estimate.min;
    double kept = range.second - range.first;
    double fraction = width <= 0 ? (kept >= 0 ? 1.0 : 0.0) : std::clamp(kept / width, 0.0, 1.0);
    // A range never keeps less than one value's worth.
    double oneValue = estimate.distinct > 0 ? 1.0 / estimate.distinct : kDefaultEquality;
    result *= std::max(fraction, oneValue) * (1 - estimate.nullFraction);
  }
  return result;
}

double CardinalityEstimator::selectivity(const Expression& predicate) const {
  if (predicate.kind() == ExpressionKind::kConstant) {
    const auto& value = static_cast<const ConstantExpression&>(predicate).value();
    return !value.isNull() && value.type().id() == TypeId::kBoolean && value.asBool() ? 1.0 : 0.0;
  }
  if (predicate.kind() != ExpressionKind::kFunction) return kDefaultSelectivity;
  const auto& function = static_cast<const FunctionExpression&>(predicate);
  const auto& arguments = function.arguments();
  switch (function.function()) {
    case ScalarFunction::kAnd: {
      std::vector<const Expression*> conjuncts;
      std::function<void(const Expression&)> flatten = [&](const Expression& e) {
        if (e.kind() == ExpressionKind::kFunction &&
            static_cast<const FunctionExpression&>(e).function() == ScalarFunction::kAnd) {
          for (const auto& argument : static_cast<const FunctionExpression&>(e).arguments()) flatten(*argument);
        } else {
          conjuncts.push_back(&e);
        }
      };
      flatten(predicate);
      return selectivity(conjuncts);
    }
    case ScalarFunction::kOr: {
      // x = a OR x = b ... on one column adds up; otherwise independence.
      double result = 0;
      for (const auto& argument : arguments) {
        double s = selectivity(*argument);
        result = result + s - result * s;
      }
      return std::min(result, 1.0);
    }
    case ScalarFunction::kNot:
      return 1 - selectivity(*arguments[0]);
    case ScalarFunction::kIsNull:
    case ScalarFunction::kIsNotNull: {
      auto id = columnIdOf(*arguments[0]);
      const ColumnEstimate* estimate = id ? column(*id) : nullptr;
      double nulls = estimate ? estimate->nullFraction : 0.01;
      return function.function() == ScalarFunction::kIsNull ? nulls : 1 - nulls;
    }
    case ScalarFunction::kLike:
    case ScalarFunction::kRegexMatch:
    case ScalarFunction::kRegexMatchInsensitive:
      return kLikeSelectivity;
    case ScalarFunction::kNotLike:
    case ScalarFunction::kRegexNotMatch:
    case ScalarFunction::kRegexNotMatchInsensitive:
      return 1 - kLikeSelectivity;
    default:
      break;
  }
  if (!isComparison(function.function())) return kDefaultSelectivity;
  auto leftId = columnIdOf(*arguments[0]);
  auto rightId = columnIdOf(*arguments[1]);
  const engine::Value* leftConstant = constantOf(*arguments[0]);
  const engine::Value* rightConstant = constantOf(*arguments[1]);
  ScalarFunction op = function.function();
  if (!leftId && rightId) {
    std::swap(leftId, rightId);
    std::swap(leftConstant, rightConstant);
    op = engine::mirroredComparison(op);
  }
  const ColumnEstimate* estimate = leftId ? column(*leftId) : nullptr;
  if (op == ScalarFunction::kEqual || op == ScalarFunction::kNotEqual) {
    double equal = kDefaultEquality;
    if (estimate && estimate->distinct > 0) {
      double distinct = estimate->distinct;
      if (rightId) {
        const ColumnEstimate* other = column(*rightId);
        if (other && other->distinct > 0) distinct = std::max(distinct, other->distinct);
      }
      equal = (1 - estimate->nullFraction) / distinct;
      auto value = rightConstant ? numericValue(*rightConstant) : std::nullopt;
      if (value && estimate->min && estimate->max && (*value < *estimate->min || *value > *estimate->max)) {
        equal = 0;
      }
    }
    return op == ScalarFunction::kEqual ? equal : 1 - equal;
  }
  // A range against a constant: the covered fraction of [min, max].
  auto bound = rightConstant ? numericValue(*rightConstant) : std::nullopt;
  if (estimate && estimate->min && estimate->max && bound) {
    double width = *estimate->max - *estimate->min;
    double below = width <= 0 ? 0.5 : std::clamp((*bound - *estimate->min) / width, 0.0, 1.0);
    double fraction = op == ScalarFunction::kLess || op == ScalarFunction::kLessEqual ? below : 1 - below;
    return fraction * (1 - estimate->nullFraction);
  }
  return kDefaultRange;
}

double CardinalityEstimator::joinRows(double leftRows, double rightRows,
                                      const std::vector<const Expression*>& conditions,
                                      const std::function<bool(ColumnId)>& onLeft) const {
  double rows = leftRows * rightRows;
  // Equalities between the inputs form one composite key: each side's distinct keys are the product of its
  // columns' distinct counts, capped by its rows (partsupp's (partkey, suppkey) is unique, not 200k x 10k
  // times rarer). Containment: each key of the smaller domain finds its match in the larger.
  double leftKeys = 1;
  double rightKeys = 1;
  bool equiJoin = false;
  for (const Expression* condition : conditions) {
    bool handled = false;
    if (condition->kind() == ExpressionKind::kFunction) {
      const auto& function = static_cast<const FunctionExpression&>(*condition);
      if (function.function() == ScalarFunction::kEqual) {
        const Expression* a = function.arguments()[0].get();
        const Expression* b = function.arguments()[1].get();
        auto idA = columnIdOf(*a);
        auto idB = columnIdOf(*b);
        if (idA && idB) {
          if (onLeft && !onLeft(*idA)) std::swap(a, b);
          double distinctA = distinctOf(*a, leftRows);
          double distinctB = distinctOf(*b, rightRows);
          if (distinctA > 0 && distinctB > 0) {
            leftKeys *= distinctA;
            rightKeys *= distinctB;
            equiJoin = handled = true;
          }
        }
      }
    }
    if (!handled) rows *= selectivity(*condition);
  }
  if (equiJoin) rows /= std::max({std::min(leftKeys, leftRows), std::min(rightKeys, rightRows), 1.0});
  return std::max(rows, 1.0);
}

void CardinalityEstimator::capDistinct(const LogicalOperator& op, double rows) {
  for (const auto& column : op.outputColumns()) {
    auto found = columns_.find(column.id);
    if (found != columns_.end() && found->second.distinct > rows) found->second.distinct = std::max(rows, 1.0);
  }
}

double CardinalityEstimator::estimateJoin(LogicalJoin& join, double leftRows, double rightRows) {
  std::vector<const Expression*> conditions;
  for (const auto& condition : join.conditions) conditions.push_back(condition.get());
  if (join.nullAwareCondition) conditions.push_back(join.nullAwareCondition.get());
  std::set<ColumnId> left = outputIds(*join.children[0]);
  double inner = joinRows(leftRows, rightRows, conditions, [&](ColumnId id) { return left.contains(id); });
  switch (join.type) {
    case JoinType::kInner:
      return inner;
    case JoinType::kLeft:
    case JoinType::kSingle:
      return std::max(inner, leftRows);
    case JoinType::kFull:
      return std::max(inner, leftRows + rightRows);
    case JoinType::kMark:
      return leftRows;
    case JoinType::kSemi:
    case JoinType::kAnti: {
      // The fraction of left rows with a partner: matches per left row, capped at one.
      double matched = std::min(1.0, inner / std::max(leftRows, 1.0));
      if (join.type == JoinType::kSemi) return std::max(leftRows * matched, 1.0);
      return std::max(leftRows * std::max(1 - matched, kMinimumAntiFraction), 1.0);
    }
  }
  return inner;
}

double CardinalityEstimator::estimate(LogicalOperator& op) {
  checkForInterrupts();
  std::vector<double> childRows;
  for (auto& child : op.children) childRows.push_back(estimate(*child));
  double rows = 1;
  switch (op.kind()) {
    case LogicalOperatorKind::kScan: {
      auto& scan = static_cast<LogicalScan&>(op);
      double tableRows = scan.table.rowCount ? static_cast<double>(*scan.table.rowCount) : kUnknownTableRows;
      for (size_t i = 0; i < scan.columns.size(); ++i) {
        ColumnEstimate estimate;
        size_t tableColumn = scan.tableColumns[i];
        if (tableColumn < scan.table.columnSummaries.size() && scan.table.columnSummaries[tableColumn]) {
          const auto& summary = *scan.table.columnSummaries[tableColumn];
          estimate.distinct = static_cast<double>(std::max<uint64_t>(summary.distinctCount, 1));
          estimate.nullFraction = tableRows > 0 ? static_cast<double>(summary.nullCount) / tableRows : 0;
          estimate.min = numericValue(summary.min);
          estimate.max = numericValue(summary.max);
        }
        columns_[scan.columns[i].id] = estimate;
      }
      std::vector<const Expression*> filters;
      for (const auto& filter : scan.filters) filters.push_back(filter.get());
      rows = tableRows * selectivity(filters);
      break;
    }
    case LogicalOperatorKind::kSingleRow:
      rows = 1;
      break;
    case LogicalOperatorKind::kTableFunction:
      rows = kTableFunctionRows;
      break;
    case LogicalOperatorKind::kMaterialized: {
      // Computed rows are counted; a recursive query's are guessed as a function's are.
      const auto& materialized = static_cast<const LogicalMaterialized&>(op);
      rows = kTableFunctionRows;
      if (materialized.rows) {
        rows = 0;
        for (const auto& chunk : *materialized.rows) rows += static_cast<double>(chunk.size());
      }
      break;
    }
    case LogicalOperatorKind::kProjectSet:
      // An array per row unnests to a few elements: a guess, as PostgreSQL's 10 rows per call is.
      rows = childRows[0] * 10;
      for (const auto& function : static_cast<LogicalProjectSet&>(op).functions) {
        ColumnEstimate estimate;
        estimate.distinct = rows;
        columns_[function.column.id] = estimate;
      }
      break;
    case LogicalOperatorKind::kFilter: {
      std::vector<const Expression*> conditions;
      for (const auto& condition : static_cast<LogicalFilter&>(op).conditions) conditions.push_back(condition.get());
      rows = childRows[0] * selectivity(conditions);
      break;
    }
    case LogicalOperatorKind::kProject: {
      rows = childRows[0];
      auto& project = static_cast<LogicalProject&>(op);
      for (size_t i = 0; i < project.expressions.size(); ++i) {
        auto source = columnIdOf(*project.expressions[i]);
        ColumnEstimate estimate;
        if (source && column(*source)) estimate = *column(*source);
        if (!source) estimate.distinct = rows;
        columns_[project.ids[i]] = estimate;
      }
      break;
    }
    case LogicalOperatorKind::kJoin:
      rows = estimateJoin(static_cast<LogicalJoin&>(op), childRows[0], childRows[1]);
      break;
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(op);
      if (aggregate.groups.empty()) {
        rows = 1;
      } else {
        double groups = 1;
        for (size_t i = 0; i < aggregate.groups.size(); ++i) {
          double distinct = distinctOf(*aggregate.groups[i], childRows[0]);
          groups *= distinct > 0 ? distinct : std::sqrt(std::max(childRows[0], 1.0));
          ColumnEstimate estimate;
          if (auto source = columnIdOf(*aggregate.groups[i]); source && column(*source)) estimate = *column(*source);
          estimate.distinct = distinct > 0 ? distinct : -1;
          columns_[aggregate.groupIds[i]] = estimate;
        }
        rows = std::min(groups, childRows[0]);
      }
      for (const auto& call : aggregate.aggregates) {
        ColumnEstimate estimate;
        estimate.distinct = rows;
        columns_[call.id] = estimate;
      }
      break;
    }
    case LogicalOperatorKind::kSort:
      rows = childRows[0];
      break;
    case LogicalOperatorKind::kWindow:
      rows = childRows[0];
      for (const auto& call : static_cast<LogicalWindow&>(op).calls) {
        ColumnEstimate estimate;
        estimate.distinct = rows;
        columns_[call.id] = estimate;
      }
      break;
    case LogicalOperatorKind::kLimit: {
      auto& limit = static_cast<LogicalLimit&>(op);
      rows = std::max(0.0, childRows[0] - static_cast<double>(limit.offset));
      if (limit.limit) rows = std::min(rows, static_cast<double>(*limit.limit));
      break;
    }
    case LogicalOperatorKind::kUnionAll: {
      rows = 0;
      for (double child : childRows) rows += child;
      for (const auto& column : static_cast<LogicalUnionAll&>(op).columns) {
        columns_[column.id] = ColumnEstimate{rows, 0, std::nullopt, std::nullopt};
      }
      break;
    }
  }
  rows = std::max(rows, op.kind() == LogicalOperatorKind::kLimit ? 0.0 : 1.0);
  capDistinct(op, rows);
  op.estimatedRows = rows;
  return rows;
}

}  // namespace shoal::sql
