#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "engine/pipeline/collect_sink.h"
#include "engine/pipeline/pipeline.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Where a scan's rows come from: given a scan, a source whose chunks hold
/// the scan's columns (scan.tableColumns, in that order).
using ScanSourceFactory = std::function<std::shared_ptr<engine::ChunkSource>(const LogicalScan&)>;

/// An optimized logical plan as pipelines for one node: cut at every pipeline
/// breaker (hash join build, aggregation, sort, limit, union), with each
/// pipeline depending on those whose results it reads. The last pipeline ends
/// in `result`, whose chunks then hold the plan's output columns in order.
struct PhysicalPlan {
  std::vector<engine::Pipeline> pipelines;
  std::shared_ptr<engine::CollectSink> result;
  /// Operators with shared state (hash tables, sort runs) that the pipelines point into.
  std::vector<std::shared_ptr<void>> keepAlive;
  /// With PipelineOptions::countRows: the rows each logical operator produced, once the pipelines ran.
  std::map<const LogicalOperator*, std::shared_ptr<std::atomic<uint64_t>>> rowCounts;
};

struct PipelineOptions {
  /// The values of $1..$n, which the pipelines' expressions read as constants.
  std::span<const engine::Value> parameters;
  /// The scan sources apply the scans' filters themselves (pushed to the workers).
  bool scansApplyFilters = false;
  /// Count every logical operator's output rows (EXPLAIN ANALYZE).
  bool countRows = false;
};

/// Builds the pipelines. Joins build their hash table from the right input;
/// a join without an equality between its inputs runs as a hash join on a
/// constant key with its conditions as the residual (a nested-loop join).
/// FULL OUTER JOIN fails with 0A000.
PhysicalPlan buildPipelines(const LogicalPlan& plan, const ScanSourceFactory& scans, PipelineOptions options = {});

}  // namespace shoal::sql
