#include "coordinator/planner/distributed_plan.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/check.h"
#include "sql/plan/plan_printer.h"

namespace shoal::coordinator {

std::string_view fragmentOutputName(FragmentOutput output) {
  switch (output) {
    case FragmentOutput::kRepartition:
      return "repartition";
    case FragmentOutput::kBroadcast:
      return "broadcast";
    case FragmentOutput::kGather:
      return "gather";
  }
  return "?";
}

bool DistributedPlan::streamsInOrder() const {
  const sql::LogicalOperator* op = coordinatorPlan.root.get();
  while (op->kind() == sql::LogicalOperatorKind::kProject || op->kind() == sql::LogicalOperatorKind::kFilter) {
    op = op->children[0].get();
  }
  if (op->kind() != sql::LogicalOperatorKind::kScan) return false;
  const auto& scan = static_cast<const sql::LogicalScan&>(*op);
  return scan.exchangeInput && mergedGathers.count(*scan.exchangeInput) > 0;
}

const PlanFragment& DistributedPlan::producerOf(uint64_t exchangeId) const {
  for (const auto& fragment : fragments) {
    if (fragment.exchangeId == exchangeId) return fragment;
  }
  SHOAL_UNREACHABLE("no fragment sends exchange {}", exchangeId);
}

std::vector<uint32_t> DistributedPlan::nodesOf(const PlanFragment& fragment) const {
  if (fragment.onFirstWorkerOnly) return {0};
  std::vector<uint32_t> nodes(workerNames.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
  return nodes;
}

std::vector<uint32_t> DistributedPlan::receiversOf(const PlanFragment& fragment) const {
  switch (fragment.output) {
    case FragmentOutput::kRepartition: {
      std::set<uint32_t> distinct(fragment.destinations.begin(), fragment.destinations.end());
      return {distinct.begin(), distinct.end()};
    }
    case FragmentOutput::kBroadcast: {
      std::vector<uint32_t> nodes(workerNames.size());
      for (uint32_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
      return nodes;
    }
    case FragmentOutput::kGather:
      return {};
  }
  return {};
}

std::vector<std::string> DistributedPlan::explain(bool verbose) const {
  std::vector<std::string> lines;
  lines.push_back("Coordinator");
  for (const auto& line : sql::explainPlan(*coordinatorPlan.root, verbose)) lines.push_back("  " + line);
  // Consumers before producers: the fragments read top-down, as the plan does.
  for (auto fragment = fragments.rbegin(); fragment != fragments.rend(); ++fragment) {
    std::string where = fragment->onFirstWorkerOnly ? fmt::format("on {} only", workerNames[0])
                                                    : fmt::format("on each of {} worker{}", workerNames.size(),
                                                                  workerNames.size() == 1 ? "" : "s");
    std::string to;
    switch (fragment->output) {
      case FragmentOutput::kRepartition: {
        std::vector<std::string> keys;
        auto columns = fragment->plan.root->outputColumns();
        for (size_t key : fragment->keyColumns) keys.push_back(columns[key].name);
        to = fmt::format("repartition on ({}) to {} worker{}", fmt::join(keys, ", "), receiversOf(*fragment).size(),
                         receiversOf(*fragment).size() == 1 ? "" : "s");
        break;
      }
      case FragmentOutput::kBroadcast:
        to = "broadcast to every worker";
        break;
      case FragmentOutput::kGather:
        to = "gather to the coordinator";
        break;
    }
    lines.push_back(fmt::format("Fragment {} ({}) -> {}", fragment->id, where, to));
    for (const auto& line : sql::explainPlan(*fragment->plan.root, verbose)) lines.push_back("  " + line);
  }
  return lines;
}

}  // namespace shoal::coordinator
