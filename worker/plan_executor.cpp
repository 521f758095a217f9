#include "worker/plan_executor.h"

#include <chrono>

#include "engine/pipeline/result_queue.h"
#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"
#include "worker/partition_scan_source.h"
#include "worker/read_snapshot_codec.h"

namespace shoal::worker {

namespace {
constexpr auto kCancelPollInterval = std::chrono::milliseconds(10);
}  // namespace

std::vector<uint64_t> PlanExecutor::run(const proto::ExecutePlanRequest& request,
                                        const std::function<void(engine::Chunk&)>& emit,
                                        const std::function<bool()>& isCancelled) const {
  sql::LogicalPlan plan = sql::decodePlan(request.plan());
  const ReadSnapshot snapshot = readSnapshotOf(request);
  sql::PipelineOptions options;
  options.countRows = request.count_rows();
  // Result strings may point into the scanned segments: the scans keep them alive until the result is sent.
  std::vector<std::shared_ptr<PartitionScanSource>> scans;
  sql::PhysicalPlan physical = sql::buildPipelines(
      plan,
      [&](const sql::LogicalScan& scan) -> std::shared_ptr<engine::ChunkSource> {
        scans.push_back(std::make_shared<PartitionScanSource>(scan, storage_.find(scan.table.storageId),
                                                              storage_.visible(scan.table.storageId, snapshot),
                                                              request.row_tag()));
        return scans.back();
      },
      options);
  // The result streams: chunks go out while the query still runs, as the final pipeline makes them.
  auto results = std::make_shared<engine::ResultQueue>();
  physical.result->streamTo(results);
  scheduler::PipelineRunner runner(dispatcher_);
  auto query = runner.start(std::move(physical.pipelines), std::max<uint32_t>(request.priority(), 1),
                            request.memory_limit_bytes());
  try {
    std::vector<engine::Chunk> ready;
    bool closed = false;
    while (!closed) {
      closed = results->popAll(ready, kCancelPollInterval);
      for (auto& chunk : ready) {
        // Charged to the query while it waited in the queue; once sent, it no longer counts.
        const uint64_t bytes = chunk.memoryBytes();
        emit(chunk);
        query->memory().release(bytes);
      }
      ready.clear();
      if (isCancelled()) query->cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
      // A failed or cancelled query never closes the queue: its error ends the stream.
      if (!closed && query->done()) query->wait();
    }
    query->wait();
  } catch (...) {
    query->abandon();  // the dispatcher threads use the pipelines and the queue until the query stops
    throw;
  }
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
