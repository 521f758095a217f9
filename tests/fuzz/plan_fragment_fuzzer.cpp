// The plan a worker receives (proto/plan.proto's ExecuteFragmentsRequest, as worker/fragment_executor.cpp reads
// it): each fragment's plan is decoded (sql/plan/plan_serialization.cpp, which must refuse what the pipeline
// builder cannot run), built into pipelines and run, its scans and exchange inputs fed three sample rows of
// their declared types. A peer holding the cluster's certificate must not be able to crash a worker either.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "common/logging.h"
#include "common/numa_topology.h"
#include "common/status.h"
#include "engine/pipeline/collect_sink.h"
#include "proto/storage.pb.h"
#include "scheduler/dispatcher.h"
#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"
#include "tests/fuzz/sample_rows.h"

namespace {

using namespace shoal;

constexpr size_t kMaxFragments = 8;
constexpr uint64_t kQueryMemoryBytes = 64u << 20;
constexpr auto kRunTime = std::chrono::seconds(2);

/// What a scan or exchange input yields: a NULL row, then the values '1' and '0' cast to each column's type.
engine::Chunk scanRows(const std::vector<sql::PlanColumn>& columns) {
  std::vector<engine::LogicalType> types;
  for (const auto& column : columns) types.push_back(column.type);
  return fuzz::sampleRows(types, {"1", "0"});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initLogging("error", "fuzz");
  google::protobuf::SetLogHandler(nullptr);  // mutated strings are often not UTF-8: protobuf would say so each time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static scheduler::Dispatcher dispatcher(1, NumaTopology::fake(1), 512u << 20);
  // SHOAL_FUZZ_VERBOSE=1 tells how each fragment ended: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  proto::ExecuteFragmentsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) {
    if (verbose) std::fprintf(stderr, "not an ExecuteFragmentsRequest\n");
    return 0;
  }
  for (int f = 0; f < request.fragments_size() && static_cast<size_t>(f) < kMaxFragments; ++f) {
    try {
      sql::LogicalPlan plan = sql::decodePlan(request.fragments(f).plan());
      sql::PhysicalPlan physical = sql::buildPipelines(plan, [](const sql::LogicalScan& scan) {
        std::vector<engine::Chunk> rows;
        rows.push_back(scanRows(scan.columns));
        return std::make_shared<engine::ChunkListSource>(std::move(rows));
      });
      scheduler::PipelineRunner runner(dispatcher);
      auto execution = runner.start(std::move(physical.pipelines), 1, kQueryMemoryBytes);
      if (!execution->waitFor(std::chrono::duration_cast<std::chrono::milliseconds>(kRunTime))) {
        // generate_series(1, 10^12) is a valid plan: a long one is stopped, as statement_timeout would.
        execution->cancel(Status(SqlState::kQueryCanceled, "fuzz run time exceeded"));
      }
      execution->wait();
      if (verbose) std::fprintf(stderr, "fragment %d ran\n", f);
    } catch (const ShoalError& error) {
      // A refused plan (XX001) or a failed query is the right outcome for a bad fragment.
      if (verbose) std::fprintf(stderr, "fragment %d: %s\n", f, error.what());
    }
  }
  return 0;
}
