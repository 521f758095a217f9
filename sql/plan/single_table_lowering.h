#pragma once

#include "sql/binder/bound_statement.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Turns an optimized plan of the one-table shape the coordinator runs today
/// (scan, filter, aggregates without GROUP BY, projection, LIMIT/OFFSET) into
/// a BoundSelect over table column positions. Other plans (joins, GROUP BY,
/// ORDER BY, ...) fail with 0A000 naming the operator: they need the
/// execution engine of the engine issue.
BoundSelect lowerToSingleTableSelect(const LogicalPlan& plan);

/// True when lowerToSingleTableSelect takes the plan.
bool isSingleTableSelect(const LogicalPlan& plan);

}  // namespace shoal::sql
