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
/// joins the table with a distributed one). Each distinct row value is taken from the first copy it was found
/// in, as many rows of it as were found there; every other copy changes as many rows of that value (rows equal
/// in every column are interchangeable).
class ReplicaRows {
 public:
  ReplicaRows(ClusterContext& cluster, const TableEntry& table, const PlanExecutor& executor);

  /// Of the rows the statement found (their ids, any copies'), the ones it changes: for each distinct row value,
  /// the rows of the first copy that value was found in. Returns positions into `ids`.
  std::vector<size_t> choose(const std::vector<uint64_t>& ids);

  /// Per copy (by row tag): the ids of the rows it changes: the chosen ones in their copy, and in every other
  /// copy as many rows of each chosen value.
  std::map<uint32_t, std::vector<uint64_t>> idsInEveryCopy();

 private:
  /// Row id -> its values (as a key) in the copy of row tag `tag`, read at the statement's snapshot.
  const std::unordered_map<uint64_t, std::string>& copy(uint32_t tag);

  ClusterContext& cluster_;
  const TableEntry& table_;
  const PlanExecutor& executor_;
  std::map<uint32_t, std::unordered_map<uint64_t, std::string>> copies_;
  struct Chosen {
    uint32_t tag = 0;  // the copy its rows change from
    std::vector<uint64_t> ids;
  };
  std::unordered_map<std::string, Chosen> chosen_;  // by row value
};

}  // namespace shoal::coordinator
