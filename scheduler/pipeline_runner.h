#pragma once

#include <memory>
#include <vector>

#include "engine/pipeline/pipeline.h"
#include "scheduler/dispatcher.h"

namespace shoal::scheduler {

/// Runs a plan's pipelines on the dispatcher: each pipeline becomes a job whose
/// morsels are its source's, pushed through its operators into its sink with
/// one local sink state per dispatcher thread; the thread that completes the
/// last morsel combines the local states and finalizes the sink.
class PipelineRunner {
 public:
  explicit PipelineRunner(Dispatcher& dispatcher) : dispatcher_(dispatcher) {}

  /// Starts the pipelines; wait on the result for completion or the first error.
  std::shared_ptr<QueryExecution> start(std::vector<engine::Pipeline> pipelines, uint32_t priority = 1,
                                        uint64_t memoryLimitBytes = 0);

 private:
  Dispatcher& dispatcher_;
};

}  // namespace shoal::scheduler
