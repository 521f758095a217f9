#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/coordinator.h"
#include "coordinator/query/session.h"

namespace shoal::fuzz {

/// A real coordinator in the fuzzer's process, its SQL port on loopback, with two registered workers that never
/// answer (their addresses listen nowhere). Its catalog holds the tables and views of corpus/schema.sql (TPC-H and
/// those of tests/sql/logic), so that fuzzed statements bind against real relations. A query that reaches a
/// worker fails at once with 08006; everything the coordinator does by itself (parse, bind, optimize, plan,
/// system catalogs, constant queries) runs for real. One per process, made on first use.
class WorkerLessCoordinator {
 public:
  static WorkerLessCoordinator& instance();

  coordinator::ClusterContext& cluster() const { return coordinator_->cluster(); }
  uint16_t pgPort() const { return coordinator_->pgPort(); }
  /// A session of the bootstrap superuser `shoal`.
  std::unique_ptr<coordinator::Session> newSession() const;
  /// The fake workers, as the planner sees live workers.
  const std::vector<coordinator::LiveWorker>& workers() const { return workers_; }

 private:
  WorkerLessCoordinator();
  void loadSchema();

  std::string secretFile_;
  std::unique_ptr<coordinator::Coordinator> coordinator_;
  std::vector<coordinator::LiveWorker> workers_;
};

}  // namespace shoal::fuzz
