#pragma once

#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

/// `SELECT count(DISTINCT a), count(DISTINCT b), sum(c) FROM t` (no GROUP BY, several DISTINCT arguments): one
/// aggregate per DISTINCT argument (and one for the plain aggregates), each over its own copy of the input,
/// joined as one row. The planner then runs each one distributed, repartitioned on its argument, instead of
/// gathering every row to the coordinator. Returns the rewritten plan (outputs as `aggregate`'s, same ids), or
/// nullptr when `aggregate` is not of that shape (a DISTINCT avg or collecting aggregate, an argument that is not
/// a column). Fresh column ids come from `nextId`.
sql::LogicalOperatorPtr splitDistinctAggregates(sql::LogicalAggregate& aggregate, sql::ColumnId& nextId);

}  // namespace shoal::coordinator
