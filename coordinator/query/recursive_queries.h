#pragma once

#include <cstdint>
#include <optional>

#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

class PlanExecutor;

/// What a WITH RECURSIVE query's rows may hold on the coordinator when the session sets no
/// query_memory_limit_mb.
inline constexpr uint64_t kDefaultRecursiveRowsBytes = 2ULL << 30;

/// Computes the recursive WITH queries `plan` reads (sql::RecursiveQuery) before it runs: each query's
/// non-recursive term once, then its recursive term over the rows of the step before (the working table)
/// until a step gives none. Each step is a query of its own that `executor` runs, on the workers when it
/// reads tables; the rows gather on the coordinator. Fails with 54001 past `maxIterations` steps (the
/// max_recursive_iterations setting) and with 53200 when one query's rows outgrow `memoryLimitBytes`.
/// Returns a copy of `plan` whose recursive queries hold their rows, or nullopt when it reads none.
std::optional<sql::LogicalPlan> computeRecursiveQueries(const sql::LogicalPlan& plan, const PlanExecutor& executor,
                                                        uint64_t maxIterations, uint64_t memoryLimitBytes);

}  // namespace shoal::coordinator
