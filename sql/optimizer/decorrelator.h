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

  // The general unnesting (dependent_join_pushdown.cpp).
  struct Pushdown {
    /// D: the distinct outer values, consumed where the subquery first reads them.
    LogicalOperatorPtr distinctOuter;
    /// Each outer column the subquery reads, and D's column for it.
    std::vector<PlanColumn> outerColumns;
    std::vector<PlanColumn> distinctColumns;
    std::set<ColumnId> distinctIds;
    /// The subquery's top aggregation had no GROUP BY before it was grouped by D.
    bool groupedScalarAggregate = false;
  };
  LogicalOperatorPtr unnestGenerally(std::unique_ptr<LogicalJoin> join);
  /// `op` joined with D: op's columns and D's, for each D row the rows `op` gives for those outer values.
  /// `top`: nothing but projections lies between `op` and the dependent join.
  LogicalOperatorPtr pushDown(LogicalOperatorPtr op, Pushdown& pushdown, bool top);

  ColumnIdGenerator& ids_;
};

namespace decorrelation {
/// Fails with 0A000: "correlated subquery not supported: <what>".
[[noreturn]] void unsupported(std::string_view what);
/// Whether `op` or an operator under it reads one of `ids` as a column none of them produces.
bool subtreeReadsAny(const LogicalOperator& op, const std::set<ColumnId>& ids);
}  // namespace decorrelation

/// The next id after every id the plan uses, for passes that need new columns.
ColumnId nextFreeColumnId(const LogicalOperator& root);

}  // namespace shoal::sql
