// The plan a worker receives (proto/storage.proto's ExecuteFragmentsRequest, as worker/fragment_executor.cpp
// reads it): each fragment's plan is decoded (sql/plan/plan_serialization.cpp, which must refuse what the
// pipeline builder cannot build: unknown operators and functions, columns its inputs do not produce or produce
// with another type) and built into pipelines over sources of its scans' declared columns.
//
// The pipelines are not run. Running a forged plan needs a type check that decoding does not make yet: the
// worker trusts a function's arguments to have the types the binder gave them, and a plan that hands a decimal
// kernel a bigint column reads past the column. Plans are accepted only from the coordinator, over the
// authenticated channel (the cluster token, and mutual TLS with --cluster-ca); the runs this target made before
// it stopped running plans are why its regressions include function calls short of arguments.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "common/logging.h"
#include "common/status.h"
#include "engine/pipeline/collect_sink.h"
#include "proto/storage.pb.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"

namespace {

using namespace shoal;

constexpr int kMaxFragments = 8;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initLogging("error", "fuzz");
  google::protobuf::SetLogHandler(nullptr);  // mutated strings are often not UTF-8: protobuf would say so each time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // SHOAL_FUZZ_VERBOSE=1 tells how each fragment ended: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  proto::ExecuteFragmentsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) {
    if (verbose) std::fprintf(stderr, "not an ExecuteFragmentsRequest\n");
    return 0;
  }
  for (int f = 0; f < request.fragments_size() && f < kMaxFragments; ++f) {
    try {
      sql::LogicalPlan plan = sql::decodePlan(request.fragments(f).plan());
      sql::PhysicalPlan physical = sql::buildPipelines(plan, [](const sql::LogicalScan&) {
        return std::make_shared<engine::ChunkListSource>(std::vector<engine::Chunk>{});
      });
      if (verbose) std::fprintf(stderr, "fragment %d: %zu pipelines\n", f, physical.pipelines.size());
    } catch (const ShoalError& error) {
      // A refused plan (XX001) is the right outcome for a bad fragment.
      if (verbose) std::fprintf(stderr, "fragment %d: %s\n", f, error.what());
    }
  }
  return 0;
}
