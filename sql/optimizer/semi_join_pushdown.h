#pragma once

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Moves each semi and anti join (EXISTS, IN and NOT EXISTS after
/// decorrelation) below the joins under it, down to the input that alone
/// produces every column of its left side that its conditions read: through
/// inner joins on either side, and into the preserved side of left joins. The
/// filter then runs on the smaller input, before a join multiplies its rows
/// (only into inputs the estimates say the join multiplies, never past a join
/// that filters)
/// (TPC-H Q18's IN on big orders filters orders rather than the join of orders
/// with lineitem). Runs after join ordering, which keeps semi and anti joins
/// where decorrelation put them. NOT IN (NULL-aware) joins and semi joins that
/// read no left column stay where they are.
LogicalOperatorPtr pushSemiJoinsDown(LogicalOperatorPtr root);

}  // namespace shoal::sql
