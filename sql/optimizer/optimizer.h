#pragma once

#include <atomic>

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Rewrites a bound plan into the plan to run, in order: decorrelation of
/// every subquery, constant folding, predicate pushdown with outer-join
/// simplification, cost-based join ordering with build-side choice, column
/// pruning, and the final row estimates that EXPLAIN prints. Stops with 57014 once `cancelRequested` (the
/// statement's flag, which statement_timeout sets) is set.
void optimize(LogicalPlan& plan, const std::atomic<bool>* cancelRequested = nullptr);

}  // namespace shoal::sql
