#pragma once

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Moves every filter conjunct as far down as it can go: through projections
/// (substituting the projected expressions), into joins (a conjunct over both
/// inputs becomes a join condition, so that a comma-separated FROM list turns
/// into a join graph), through aggregations when it reads only group keys,
/// into both inputs of UNION ALL, and into table scans, where zone maps can
/// use it. On the way it simplifies outer joins: a conjunct that is false or
/// NULL for the NULL-extended rows of a left join makes it an inner join.
///
/// Before that, mark joins whose mark is a whole WHERE conjunct become semi
/// joins (EXISTS, IN) or anti joins (NOT EXISTS, NOT IN).
class PredicatePushdown {
 public:
  LogicalOperatorPtr run(LogicalOperatorPtr root);

 private:
  LogicalOperatorPtr push(LogicalOperatorPtr op, std::vector<engine::ExpressionPtr> predicates);
  LogicalOperatorPtr pushIntoJoin(LogicalOperatorPtr op, std::vector<engine::ExpressionPtr> predicates);
  LogicalOperatorPtr convertMarkJoins(LogicalOperatorPtr op);
};

/// Puts `predicates` in a filter above `op` (returns op itself when there are none).
LogicalOperatorPtr addFilter(LogicalOperatorPtr op, std::vector<engine::ExpressionPtr> predicates);

}  // namespace shoal::sql
