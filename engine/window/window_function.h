#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/types/logical_type.h"
#include "engine/types/value.h"

namespace shoal::engine {

/// The window functions the engine computes. The order is part of the plan's wire format: append only.
enum class WindowFunction {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  /// Any aggregate over the frame (WindowCallSpec::aggregate says which).
  kAggregate,
};

std::string_view windowFunctionName(WindowFunction function);

/// Whether `function` reads its frame (the others see the whole partition, and ignore the frame clause).
inline bool usesFrame(WindowFunction function) {
  return function >= WindowFunction::kFirstValue;
}

/// How a frame's offsets count: rows, values of the ORDER BY key, or peer groups.
enum class FrameUnit { kRows, kRange, kGroups };

enum class FrameBound { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };

/// EXCLUDE NO OTHERS, CURRENT ROW, GROUP (the current row's peers with it) or TIES (the peers but not it).
enum class FrameExclusion { kNoOthers, kCurrentRow, kGroup, kTies };

/// One end of a frame. A ROWS or GROUPS offset is a count (`count`); a RANGE offset is a distance in the
/// ORDER BY key's values, which the plan computes per row as `boundColumn`: the key minus or plus the offset
/// (in the key's direction), of the same type as the frame's `rangeKeyColumn`.
struct FrameEnd {
  FrameBound bound = FrameBound::kUnboundedPreceding;
  int64_t count = 0;
  std::optional<size_t> boundColumn;
};

struct WindowFrame {
  FrameUnit unit = FrameUnit::kRange;
  FrameEnd start;
  FrameEnd end{FrameBound::kCurrentRow, 0, std::nullopt};
  FrameExclusion exclusion = FrameExclusion::kNoOthers;
  /// RANGE with an offset: the ORDER BY key, cast to the type its bounds have.
  std::optional<size_t> rangeKeyColumn;
};

/// One window function call: which, over which input columns, into which result type.
struct WindowCallSpec {
  WindowFunction function = WindowFunction::kRowNumber;
  /// kAggregate: the aggregate (its argument columns are input columns; no DISTINCT or ORDER BY).
  GroupedAggregate aggregate{AggregateFunction::kCountStar, false, std::nullopt, LogicalType::bigInt(),
                             LogicalType::bigInt()};
  /// ntile(buckets); lag/lead(value, offset, default); first/last_value(value); nth_value(value, n). Counts and
  /// offsets are integers (int4).
  std::vector<size_t> argumentColumns;
  LogicalType resultType;
  WindowFrame frame;
};

}  // namespace shoal::engine
