#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "proto/plan.pb.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

// A logical plan as a plan.proto message, so that a worker can run a plan the
// coordinator optimized. Encoding replaces parameters by their values; decoding
// checks every node (kinds, arity, enum numbers, and that each expression reads
// only columns its inputs produce, with their types) and fails with XX001
// rather than build a plan the pipeline builder cannot run.

/// The storage a scanned table's rows live in now (looked up when the plan ships, not when it was planned).
using StorageIdLookup = std::function<uint64_t(const LogicalScan& scan)>;

proto::PlanProto encodePlan(const LogicalPlan& plan, std::span<const engine::Value> parameters,
                            const StorageIdLookup& storageIdOf);

/// Decoded scans carry their storage id in table.storageId.
LogicalPlan decodePlan(const proto::PlanProto& proto);

/// The plan's operators in pre-order (an operator, then each child's subtree in
/// order): how row counts travel back from the worker for EXPLAIN ANALYZE.
std::vector<const LogicalOperator*> operatorsInPreOrder(const LogicalOperator& root);

}  // namespace shoal::sql
