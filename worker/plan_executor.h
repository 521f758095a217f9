#pragma once

#include <functional>

#include "proto/storage.pb.h"
#include "scheduler/dispatcher.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// Runs a plan the coordinator shipped whole (ExecutePlan) over this worker's
/// partitions: the plan becomes pipelines on the worker's dispatcher, scans
/// read the local segments morsel by morsel, and the result chunks go to
/// `emit` in order. `isCancelled` is polled while the query runs: when it
/// turns true the query is cancelled (57014) within one poll interval.
class PlanExecutor {
 public:
  PlanExecutor(StorageManager& storage, scheduler::Dispatcher& dispatcher)
      : storage_(storage), dispatcher_(dispatcher) {}

  /// Returns, with request.count_rows(), the rows each plan node produced, in pre-order.
  std::vector<uint64_t> run(const proto::ExecutePlanRequest& request, const std::function<void(engine::Chunk&)>& emit,
                            const std::function<bool()>& isCancelled) const;

 private:
  StorageManager& storage_;
  scheduler::Dispatcher& dispatcher_;
};

}  // namespace shoal::worker
