#pragma once

#include <set>

#include "sql/binder/query_binder.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Turns every dependent join (a subquery that reads columns of the query
/// around it) into an ordinary join, so that no subquery is re-run per row.
///
/// The correlated predicates are pulled up out of the subquery into the
/// join's condition: through filters, projections (which then pass the
/// columns those predicates read), inner joins, and aggregations, which
/// group by the subquery's side of each correlated equality instead. A scalar
/// subquery over such an aggregation becomes a left join on the grouping keys
/// (each outer row finds at most one group); where the aggregate of no rows
/// is not NULL (COUNT), the value is patched to it for outer rows without a
/// group. Shapes this cannot handle fail with 0A000, never with a per-row plan.
class Decorrelator {
 public:
  explicit Decorrelator(ColumnIdGenerator& ids) : ids_(ids) {}

  LogicalOperatorPtr run(LogicalOperatorPtr root);

 private:
  struct Pulled {
    std::vector<engine::ExpressionPtr> predicates;
    /// The subquery's top aggregation had no GROUP BY before the pull-up grouped it.
    bool groupedScalarAggregate = false;
    /// Every pulled predicate is an equality on a grouping key: one group per outer row at most.
    bool uniquePerOuterRow = false;
  };

  LogicalOperatorPtr decorrelateJoin(std::unique_ptr<LogicalJoin> join);
  /// Pulls the predicates reading `outer` out of `op` (rewritten in place).
  Pulled pullUp(LogicalOperatorPtr& op, const std::set<ColumnId>& outer);
  /// For a scalar subquery over a grouped scalar aggregate whose empty result is not NULL.
  LogicalOperatorPtr patchEmptyAggregate(std::unique_ptr<LogicalJoin> join);

  ColumnIdGenerator& ids_;
};

/// The next id after every id the plan uses, for passes that need new columns.
ColumnId nextFreeColumnId(const LogicalOperator& root);

}  // namespace shoal::sql
