#include "worker/plan_executor.h"

#include <chrono>

#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"
#include "worker/partition_scan_source.h"

namespace shoal::worker {

namespace {
constexpr auto kCancelPollInterval = std::chrono::milliseconds(10);
}  // namespace

std::vector<uint64_t> PlanExecutor::run(const proto::ExecutePlanRequest& request,
                                        const std::function<void(engine::Chunk&)>& emit,
                                        const std::function<bool()>& isCancelled) const {
  sql::LogicalPlan plan = sql::decodePlan(request.plan());
  sql::PipelineOptions options;
  options.countRows = request.count_rows();
  // Result strings may point into the scanned segments: the scans keep them alive until the result is sent.
  std::vector<std::shared_ptr<PartitionScanSource>> scans;
  sql::PhysicalPlan physical = sql::buildPipelines(
      plan,
      [&](const sql::LogicalScan& scan) -> std::shared_ptr<engine::ChunkSource> {
        scans.push_back(std::make_shared<PartitionScanSource>(scan, storage_.find(scan.table.storageId)));
        return scans.back();
      },
      options);
  scheduler::PipelineRunner runner(dispatcher_);
  auto query = runner.start(std::move(physical.pipelines), std::max<uint32_t>(request.priority(), 1),
                            request.memory_limit_bytes());
  while (!query->waitFor(kCancelPollInterval)) {
    if (isCancelled()) query->cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
  }
  for (auto& chunk : physical.result->chunks()) emit(chunk);
  std::vector<uint64_t> rows;
  if (request.count_rows()) {
    for (const auto* op : sql::operatorsInPreOrder(*plan.root)) {
      auto counted = physical.rowCounts.find(op);
      rows.push_back(counted == physical.rowCounts.end() ? 0 : counted->second->load());
    }
  }
  return rows;
}

}  // namespace shoal::worker
