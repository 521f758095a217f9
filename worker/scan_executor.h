#pragma once

#include <span>

#include <functional>

#include "engine/vector/chunk.h"
#include "proto/plan.pb.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// Runs a scan fragment over this worker's partition of a table (null: this
/// worker holds no rows of it): every segment of `segments` (as the query's snapshot sees them), a vector at a time,
/// through the filter, then into the projections (rows are emitted in chunks)
/// or the aggregates (one partial-state row is emitted at the end).
/// `isCancelled` is polled between vectors.
void runScan(const proto::ScanFragment& fragment, const TablePartition* partition,
             std::span<const VisibleSegment> segments, const std::function<void(engine::Chunk)>& emit,
             const std::function<bool()>& isCancelled);

}  // namespace shoal::worker
