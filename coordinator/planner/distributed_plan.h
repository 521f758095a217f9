#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/sort/sort.h"
#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

/// Where a fragment's rows go.
enum class FragmentOutput {
  kRepartition,  // to destinations[CRC32 of the key columns mod their number]
  kBroadcast,    // to every worker of the query
  kGather,       // to the coordinator
};

std::string_view fragmentOutputName(FragmentOutput output);

/// A piece of a distributed plan that runs on workers and ends in an exchange.
/// Its exchange inputs are scans with `exchangeInput` set.
struct PlanFragment {
  uint32_t id = 0;
  sql::LogicalPlan plan;
  FragmentOutput output = FragmentOutput::kGather;
  /// Names the exchange its rows travel through (unique within the query).
  uint64_t exchangeId = 0;
  /// kRepartition: the output columns (positions) whose CRC32 picks the destination, and the
  /// destination node of each partition.
  std::vector<size_t> keyColumns;
  std::vector<uint32_t> destinations;
  /// Its input is replicated on every worker, so one copy of the result is enough: it runs on node 0 only.
  bool onFirstWorkerOnly = false;
  /// The exchanges it reads.
  std::vector<uint64_t> inputs;
};

/// A plan cut into fragments at its exchanges (the distributed planner's output).
struct DistributedPlan {
  /// Names the query on the workers; every exchange id derives from it.
  uint64_t queryId = 0;
  /// The query's workers, by node id: names, control addresses and exchange addresses.
  std::vector<std::string> workerNames;
  std::vector<std::string> workerAddresses;
  std::vector<std::string> exchangeAddresses;
  /// Producers before their consumers.
  std::vector<PlanFragment> fragments;
  /// What runs on the coordinator: its exchange inputs are the gathers.
  sql::LogicalPlan coordinatorPlan;
  /// Gathers whose senders each send their rows sorted on these keys (columns of the producer's output): the
  /// coordinator merges the streams (k-way) in order instead of sorting their rows again (ORDER BY).
  std::map<uint64_t, std::vector<engine::SortColumn>> mergedGathers;

  /// Whether the coordinator's part is one pipeline over a merged gather (projections and filters over it):
  /// its rows can go to the client as they are merged, while the workers still send.
  bool streamsInOrder() const;

  const PlanFragment& producerOf(uint64_t exchangeId) const;
  /// The nodes that run fragment `fragment`.
  std::vector<uint32_t> nodesOf(const PlanFragment& fragment) const;
  /// The nodes that receive what fragment `fragment` sends (empty for a gather: the coordinator).
  std::vector<uint32_t> receiversOf(const PlanFragment& fragment) const;
  /// EXPLAIN: each fragment, where it runs, its exchange, and its operators.
  std::vector<std::string> explain(bool verbose) const;
};

}  // namespace shoal::coordinator
