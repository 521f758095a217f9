#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <span>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/planner/distributed_plan.h"
#include "coordinator/query/query_result.h"
#include "proto/storage.pb.h"
#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

/// Runs an optimized plan. When one worker holds every row the plan reads
/// (a one-worker cluster, or replicated tables), the plan is shipped whole to
/// that worker (ExecutePlan), which runs it on all its cores next to its data.
/// Otherwise it runs on the coordinator's own morsel dispatcher: each table
/// scan reads its table from the workers that hold it (one morsel per worker,
/// with the scan's filters and columns pushed to them), and joins,
/// aggregations and sorts run here. That second path serves until the
/// distributed-execution issue ships fragments to every worker and exchanges
/// rows between them.
class PlanExecutor {
 public:
  /// `cancelRequested` is polled while the pipelines run; when set, the query fails with 57014.
  /// `memoryLimitBytes`: the query's limit on each node (0: each node's default). `systemScan`: what system
  /// relations (pg_database, information_schema) show of the session.
  /// `maxRecursiveIterations`: the steps a WITH RECURSIVE query may take (recursive_queries.h).
  PlanExecutor(ClusterContext& cluster, SystemScanContext systemScan, std::span<const engine::Value> parameters,
               const std::atomic<bool>& cancelRequested, uint64_t memoryLimitBytes = 0,
               uint64_t maxRecursiveIterations = 10000)
      : cluster_(cluster),
        systemScan_(std::move(systemScan)),
        parameters_(parameters),
        cancelRequested_(cancelRequested),
        memoryLimitBytes_(memoryLimitBytes),
        maxRecursiveIterations_(maxRecursiveIterations) {}

  /// Reads the tables as `snapshot` sees them (without one: the latest commits).
  PlanExecutor& readingAt(std::optional<proto::SnapshotProto> snapshot) {
    snapshot_ = std::move(snapshot);
    return *this;
  }
  const std::optional<proto::SnapshotProto>& snapshot() const { return snapshot_; }

  /// Fails with 57014 once the session asked to cancel (between the steps of a longer piece of work).
  void throwIfCancelRequested() const {
    if (cancelRequested_.load()) SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
  }

  std::span<const engine::Value> parameters() const { return parameters_; }
  const std::atomic<bool>& cancelRequested() const { return cancelRequested_; }
  uint64_t memoryLimitBytes() const { return memoryLimitBytes_; }

  /// A copy of `plan` whose WITH RECURSIVE queries hold their rows, computed now; nullopt when it reads none.
  std::optional<sql::LogicalPlan> withRecursiveQueriesComputed(const sql::LogicalPlan& plan) const;

  /// The plan cut into fragments, when it runs distributed (several workers hold its rows, and it reads no
  /// system view).
  std::optional<DistributedPlan> distribute(const sql::LogicalPlan& plan) const;

  /// Runs `plan` and returns its rows; with `actualRows`, also each operator's row count (EXPLAIN ANALYZE).
  QueryResult run(const sql::LogicalPlan& plan,
                  std::map<const sql::LogicalOperator*, uint64_t>* actualRows = nullptr) const;
  /// Runs `plan` whole on the worker at `address`, over its partitions (its copy of a replicated table).
  QueryResult runOn(const sql::LogicalPlan& plan, const std::string& address) const {
    return runOnWorker(plan, address, nullptr);
  }

 private:
  /// The one worker that holds every row the plan reads, if there is one.
  std::optional<std::string> soleWorkerFor(const sql::LogicalPlan& plan) const;
  QueryResult runOnWorker(const sql::LogicalPlan& plan, const std::string& address,
                          std::map<const sql::LogicalOperator*, uint64_t>* actualRows) const;

  ClusterContext& cluster_;
  SystemScanContext systemScan_;
  std::span<const engine::Value> parameters_;
  const std::atomic<bool>& cancelRequested_;
  uint64_t memoryLimitBytes_;
  uint64_t maxRecursiveIterations_;
  std::optional<proto::SnapshotProto> snapshot_;
};

}  // namespace shoal::coordinator
