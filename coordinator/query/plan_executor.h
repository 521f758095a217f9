#pragma once

#include <atomic>
#include <map>
#include <span>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"
#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

/// Runs an optimized plan on the coordinator's own morsel dispatcher: each
/// table scan reads its table from the workers that hold it (one morsel per
/// worker, with the scan's filters and columns pushed to them), and joins,
/// aggregations and sorts run here, on all the coordinator's cores. This is
/// how plans beyond one table run until the distributed-execution issue
/// ships fragments to the workers and exchanges rows between them.
class PlanExecutor {
 public:
  /// `cancelRequested` is polled while the pipelines run; when set, the query fails with 57014.
  PlanExecutor(ClusterContext& cluster, std::span<const engine::Value> parameters,
               const std::atomic<bool>& cancelRequested)
      : cluster_(cluster), parameters_(parameters), cancelRequested_(cancelRequested) {}

  /// Runs `plan` and returns its rows; with `actualRows`, also each operator's row count (EXPLAIN ANALYZE).
  QueryResult run(const sql::LogicalPlan& plan,
                  std::map<const sql::LogicalOperator*, uint64_t>* actualRows = nullptr) const;

 private:
  ClusterContext& cluster_;
  std::span<const engine::Value> parameters_;
  const std::atomic<bool>& cancelRequested_;
};

}  // namespace shoal::coordinator
