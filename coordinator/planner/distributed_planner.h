#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/catalog/table_catalog.h"
#include "coordinator/cluster/worker_clients.h"
#include "coordinator/planner/distributed_plan.h"

namespace shoal::coordinator {

/// Looks up the catalog entry of a table a plan scans.
using TableFinder = std::function<std::shared_ptr<const TableEntry>(const sql::QualifiedName& name)>;

/// The distributed planner: cuts an optimized plan into fragments at the
/// points where rows must move between nodes, as in the hybrid-parallelism
/// paper. It tracks how each operator's rows are spread over the workers
/// (hashed on some columns, chunked anywhere, replicated everywhere, or on
/// the coordinator) and adds an exchange only where an operator needs rows
/// together that are not:
///
/// - Joins on the distribution keys of co-partitioned inputs need none. An
///   input already hashed on its join keys pulls the other side to its own
///   partitioning. Otherwise the smaller side is broadcast when its bytes
///   times (workers - 1) are below the cost of repartitioning both sides;
///   else both are repartitioned on the join keys. Replicated inputs join
///   locally.
/// - Aggregation runs in two phases (local pre-aggregation, repartition on the
///   group keys or gather, final aggregation) unless the input is already
///   partitioned on group keys. A single DISTINCT aggregate without groups is
///   repartitioned on its argument, aggregated per node, then summed.
/// - ORDER BY ... LIMIT runs a local top-N before the gather.
/// - The result is gathered to the coordinator.
///
/// `workers` become node 0..n-1. Fails with 08006 when a worker that holds a
/// partition the plan reads is not among them.
DistributedPlan planDistributed(sql::LogicalPlan plan, const std::vector<LiveWorker>& workers,
                                const TableFinder& tables, uint64_t queryId);

}  // namespace shoal::coordinator
