#pragma once

// Aggregates over window frames. Internal to engine/window.

#include <functional>

#include "engine/aggregate/aggregate_function.h"
#include "engine/vector/chunk.h"
#include "engine/window/window_frame.h"

namespace shoal::engine::window {

/// Writes `aggregate` over the frame of each row of `partition` into `out` (indexed by row). With frames that
/// only grow from the partition's start (the default frame), the aggregate's state takes each row in once
/// (incremental). Fixed-size states (count, sum, avg, min, max, bool_and, bool_or) over other frames come from
/// a segment tree: O(log n) merged states per row. The others (array_agg, string_agg, the statistics, the
/// sketches) fold their frame's rows per row, unless the frame is the previous row's; a frame's array or
/// string is as long as its frame anyway.
void computeAggregate(const GroupedAggregate& aggregate, const Partition& partition,
                      const std::function<FrameRows(size_t row)>& frameOf, bool growingFrames, Vector& out);

}  // namespace shoal::engine::window
