#pragma once

#include <atomic>
#include <span>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// Runs a one-table SELECT. A system view (or no FROM) is scanned on the
/// coordinator itself; a user table is scanned by every worker that holds a
/// partition of it, which filters and projects (or pre-aggregates) its rows
/// and streams them back. Aggregates are merged and finalized here, then
/// OFFSET and LIMIT apply. Distributed plans of the engine issue replace it.
class SelectExecutor {
 public:
  /// `cancelRequested` is checked between chunks; when set, the query fails with 57014.
  SelectExecutor(ClusterContext& cluster, std::span<const engine::Value> parameters,
                 const std::atomic<bool>& cancelRequested)
      : cluster_(cluster), parameters_(parameters), cancelRequested_(cancelRequested) {}

  QueryResult run(const sql::BoundSelect& select) const;

 private:
  /// Rows of the table through the filter and projections, or (when aggregating) partial aggregate states.
  std::vector<engine::Chunk> scanOnWorkers(const sql::BoundSelect& select) const;
  std::vector<engine::Chunk> scanOnCoordinator(const sql::BoundSelect& select) const;
  void checkCancel() const;

  ClusterContext& cluster_;
  std::span<const engine::Value> parameters_;
  const std::atomic<bool>& cancelRequested_;
};

}  // namespace shoal::coordinator
