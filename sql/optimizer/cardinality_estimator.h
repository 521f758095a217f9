#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// What the estimator knows of one column at some point of the plan.
struct ColumnEstimate {
  double distinct = -1;  // negative: unknown
  double nullFraction = 0;
  /// The value range as doubles (numbers, decimals, dates), when known.
  std::optional<double> min;
  std::optional<double> max;
};

/// Estimates how many rows each operator produces, from the catalog's
/// statistics (row counts, distinct counts, min/max, NULL counts), with the
/// textbook assumptions: uniform values, independent predicates, and joins
/// whose smaller key domain is contained in the larger.
class CardinalityEstimator {
 public:
  /// Sets estimatedRows on `op` and everything under it; returns op's estimate.
  double estimate(LogicalOperator& op);

  /// The fraction of rows `predicate` keeps, over columns estimated so far.
  double selectivity(const engine::Expression& predicate) const;
  /// The fraction of rows all of `conjuncts` keep; range bounds on one column combine into one interval.
  double selectivity(const std::vector<const engine::Expression*>& conjuncts) const;
  /// Rows of an inner join of inputs with `leftRows` and `rightRows` rows under `conditions`; `onLeft` tells
  /// which input a column comes from.
  double joinRows(double leftRows, double rightRows, const std::vector<const engine::Expression*>& conditions,
                  const std::function<bool(ColumnId)>& onLeft) const;

  const ColumnEstimate* column(ColumnId id) const;
  /// The distinct values of `expression` (a column), capped by `rows`; negative when unknown.
  double distinctOf(const engine::Expression& expression, double rows) const;

 private:
  double estimateJoin(LogicalJoin& join, double leftRows, double rightRows);
  void capDistinct(const LogicalOperator& op, double rows);

  std::map<ColumnId, ColumnEstimate> columns_;
};

}  // namespace shoal::sql
