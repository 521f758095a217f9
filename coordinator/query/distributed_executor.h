#pragma once

#include <atomic>
#include <optional>
#include <span>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/planner/distributed_plan.h"
#include "coordinator/query/query_result.h"
#include "engine/pipeline/result_queue.h"
#include "proto/storage.pb.h"

namespace shoal::coordinator {

/// Runs a distributed plan: each worker gets its fragments in one
/// ExecuteFragments call (they exchange rows among themselves through their
/// multiplexers), and the coordinator runs the top of the plan over what the
/// workers gather to it. The first failure anywhere (a fragment's error, a
/// worker that dies) cancels the query on every worker and is the error the
/// client gets; so does a cancel request.
class DistributedExecutor {
 public:
  DistributedExecutor(ClusterContext& cluster, std::span<const engine::Value> parameters,
                      const std::atomic<bool>& cancelRequested, uint64_t memoryLimitBytes)
      : cluster_(cluster),
        parameters_(parameters),
        cancelRequested_(cancelRequested),
        memoryLimitBytes_(memoryLimitBytes) {}

  /// Reads the tables as `snapshot` sees them (without one: the latest commits).
  DistributedExecutor& readingAt(std::optional<proto::SnapshotProto> snapshot) {
    snapshot_ = std::move(snapshot);
    return *this;
  }

  /// With `insertTarget`, the rows of its gather go into a table: each worker routes them to the table's owners
  /// under the load (the coordinator commits it), and the result counts them in rowsInserted.
  /// With `streamTo`, the coordinator's last pipeline hands its rows to that queue as it makes them instead
  /// (the result then holds none).
  QueryResult run(const DistributedPlan& plan, const proto::InsertTargetProto* insertTarget = nullptr,
                  std::shared_ptr<engine::ResultQueue> streamTo = nullptr) const;

  /// For a plan that streamsInOrder(): a result whose rows reach the client as the coordinator merges them,
  /// while the workers still send (run goes on in the background; the stream owns the query).
  QueryResult stream(DistributedPlan plan) const;

 private:
  ClusterContext& cluster_;
  std::span<const engine::Value> parameters_;
  const std::atomic<bool>& cancelRequested_;
  uint64_t memoryLimitBytes_;
  std::optional<proto::SnapshotProto> snapshot_;
};

}  // namespace shoal::coordinator
