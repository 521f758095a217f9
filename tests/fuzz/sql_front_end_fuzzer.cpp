// The SQL front end as the coordinator runs it before anything reaches a worker: parse (libpg_query and
// sql/parser), bind against the catalog (sql/binder), optimize (sql/optimizer), cut into distributed fragments
// (coordinator/planner) and encode them as the plan protobuf the workers receive. Nothing is executed, so every
// input starts from the same catalog (WorkerLessCoordinator: TPC-H and the tables of tests/sql/logic).
//
// Input: SQL text, one or more statements.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "coordinator/planner/distributed_planner.h"
#include "proto/storage.pb.h"
#include "sql/parser/parsed_script.h"
#include "sql/plan/plan_serialization.h"
#include "tests/fuzz/seed_files.h"
#include "tests/fuzz/worker_less_coordinator.h"

namespace {

using namespace shoal;

constexpr size_t kMaxStatements = 16;
constexpr size_t kMaxPlanSeedBytes = 16384;

/// What the coordinator does with an optimized query that reads tables: a shipped copy, planned across the
/// workers, each fragment encoded.
void planAndEncode(const sql::LogicalPlan& plan, coordinator::ClusterContext& cluster,
                   const std::vector<coordinator::LiveWorker>& workers) {
  auto storageIdOf = [&](const sql::LogicalScan& scan) {
    auto table = cluster.tables.find({scan.table.schema, scan.table.name});
    return table ? table->storageId : uint64_t{0};
  };
  std::string bytes = sql::encodePlan(plan, {}, storageIdOf).SerializeAsString();
  proto::PlanProto shipped;
  shipped.ParseFromString(bytes);
  sql::LogicalPlan copy = sql::decodePlan(shipped);
  copy.columnNames = plan.columnNames;
  coordinator::DistributedPlan distributed = coordinator::planDistributed(
      std::move(copy), workers, [&](const sql::QualifiedName& name) { return cluster.tables.find(name); }, 1);
  proto::ExecuteFragmentsRequest request;
  for (const auto& fragment : distributed.fragments) {
    proto::FragmentProto& shippedFragment = *request.add_fragments();
    shippedFragment.set_fragment_id(fragment.id);
    *shippedFragment.mutable_plan() = sql::encodePlan(fragment.plan, {}, storageIdOf);
    sql::decodePlan(shippedFragment.plan());  // what the worker does first
  }
  distributed.explain(true);
  // SHOAL_FUZZ_WRITE_PLANS=<directory>: the fragments become seeds of plan_fragment_fuzzer (README.md).
  static const char* planSeeds = std::getenv("SHOAL_FUZZ_WRITE_PLANS");
  if (planSeeds != nullptr && request.ByteSizeLong() <= kMaxPlanSeedBytes) {
    std::filesystem::create_directories(planSeeds);
    fuzz::writeSeed(planSeeds, request.SerializeAsString());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // SHOAL_FUZZ_VERBOSE=1 prints each statement's error: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  auto& coordinator = fuzz::WorkerLessCoordinator::instance();
  auto session = coordinator.newSession();
  std::shared_ptr<const sql::ParsedScript> script;
  try {
    script = std::make_shared<const sql::ParsedScript>(
        sql::ParsedScript::parse(std::string(reinterpret_cast<const char*>(data), size)));
  } catch (const ShoalError& error) {
    if (verbose) std::fprintf(stderr, "%s\n", error.what());
    return 0;  // a syntax error (42601), a too deep or too long statement (54001, 54000)
  }
  for (size_t i = 0; i < script->numStatements() && i < kMaxStatements; ++i) {
    try {
      auto prepared = session->prepare(script, i);
      if (!prepared->bound) continue;
      if (const auto* query = std::get_if<sql::BoundQuery>(&prepared->bound->command)) {
        planAndEncode(query->plan, coordinator.cluster(), coordinator.workers());
      }
    } catch (const ShoalError& error) {
      // Errors with a SQLSTATE are answers. Anything else (a crash, a sanitizer report) is a finding.
      if (verbose) std::fprintf(stderr, "%s\n", error.what());
    }
  }
  return 0;
}
