#pragma once

#include "sql/binder/query_binder.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Eager aggregation (Yan and Larson, "Eager Aggregation and Lazy Aggregation", VLDB 1995). An aggregation over
/// an inner join whose aggregates read one input only, and combine from parts (count, sum, min, max, avg), groups
/// that input first: by the columns of it that the grouping keys and the join's conditions read. All rows of
/// such a group meet the same rows of the other input, so the aggregation above, over the join of the groups,
/// combines their values into exactly the original answer (with or without a unique key on the other side).
/// It is done when the estimates say the input shrinks at least kMinimumRowsPerGroup times and the join would
/// not have shrunk it as much: then the join meets one row per group instead of every row (lineitem grouped by
/// l_partkey before its join with part, where the query groups by part's columns). Repeated into the grouped
/// input while that is a join too. Runs after join ordering.
LogicalOperatorPtr aggregateEagerly(LogicalOperatorPtr root, ColumnIdGenerator& ids);

}  // namespace shoal::sql
