#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/plan_executor.h"

namespace shoal::coordinator {

/// The rows DELETE or UPDATE changes in a replicated table. Every worker holds a whole copy, whose rows have ids
/// of that copy; the statement's plan finds rows in whichever copies it read (one, or each worker's when it
/// joins the table with a distributed one). The same rows of every copy are found by their values: rows of equal
/// values are alike to any statement, so a row and its equals change together, in every copy.
class ReplicaRows {
 public:
  ReplicaRows(ClusterContext& cluster, const TableEntry& table, const PlanExecutor& executor);

  /// Of the rows the statement found (their ids, any copies'), the ones it changes: for each distinct row value,
  /// the rows of the first copy that value was found in. Returns positions into `ids`.
  std::vector<size_t> choose(const std::vector<uint64_t>& ids);

  /// Per copy (by row tag): the ids of its rows whose values equal a chosen row's.
  std::map<uint32_t, std::vector<uint64_t>> idsInEveryCopy();

 private:
  /// Row id -> its values (as a key) in the copy of row tag `tag`, read at the statement's snapshot.
  const std::unordered_map<uint64_t, std::string>& copy(uint32_t tag);

  ClusterContext& cluster_;
  const TableEntry& table_;
  const PlanExecutor& executor_;
  std::map<uint32_t, std::unordered_map<uint64_t, std::string>> copies_;
  std::unordered_map<std::string, uint32_t> chosen_;  // row value -> the copy its rows change from
};

}  // namespace shoal::coordinator
