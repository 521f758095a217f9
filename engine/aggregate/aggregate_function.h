#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/types/logical_type.h"

namespace shoal::engine {

/// The aggregate functions the engine computes. The order is part of the plan's wire format: append only.
enum class AggregateFunction {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kArrayAgg,
  kStringAgg,
  // PostgreSQL's float8 statistics over Moments (engine/aggregate/moments.h), from kVarPop to kMoments.
  kVarPop,
  kVarSamp,
  kStddevPop,
  kStddevSamp,
  // The two-variable ones, (y, x), from kCovarPop to kRegrIntercept.
  kCovarPop,
  kCovarSamp,
  kCorr,
  kRegrCount,
  kRegrSxx,
  kRegrSyy,
  kRegrSxy,
  kRegrAvgX,
  kRegrAvgY,
  kRegrR2,
  kRegrSlope,
  kRegrIntercept,
  /// The partial state of any of them, as one column of encoded Moments, for the next phase to combine.
  kMoments,
  // The ordered-set aggregates, `percentile_cont(f) WITHIN GROUP (ORDER BY x)`: x is the argument, f the
  // second argument, and the direction is the ORDER BY's (CollectedValues keeps the group's values).
  kPercentileCont,
  kPercentileDisc,
  kMode,
  // Approximate aggregates over mergeable sketches: approx_count_distinct(x) over a DistinctSketch and
  // approx_percentile(x, fraction) over a QuantileSketch (the fraction as second argument).
  kApproxCountDistinct,
  kApproxPercentile,
  /// Their partial states, one encoded sketch per group, for the next phase to combine.
  kDistinctSketch,
  kQuantileSketch,
};

/// Whether `function` is an ordered-set aggregate (percentile_cont, percentile_disc, mode).
inline bool isOrderedSetAggregate(AggregateFunction function) {
  return function >= AggregateFunction::kPercentileCont && function <= AggregateFunction::kMode;
}

/// Whether `function` keeps a sketch (engine/aggregate/distinct_sketch.h, quantile_sketch.h), or is its partial state.
inline bool isSketchAggregate(AggregateFunction function) {
  return function >= AggregateFunction::kApproxCountDistinct && function <= AggregateFunction::kQuantileSketch;
}

/// The partial state that a sketch aggregate's first phase computes.
inline AggregateFunction sketchPartialOf(AggregateFunction function) {
  return function == AggregateFunction::kApproxCountDistinct ? AggregateFunction::kDistinctSketch
                                                             : AggregateFunction::kQuantileSketch;
}

/// Whether `function` keeps every value it sees (see CollectedValues) instead of a fixed-size state.
inline bool isCollectingAggregate(AggregateFunction function) {
  return function == AggregateFunction::kArrayAgg || function == AggregateFunction::kStringAgg ||
         (function >= AggregateFunction::kPercentileCont && function <= AggregateFunction::kMode);
}

/// One key of an aggregate's ORDER BY (`array_agg(x ORDER BY y DESC)`): an input column and its direction.
struct AggregateOrderKey {
  size_t column;
  bool ascending = true;
  bool nullsFirst = false;
};

/// One aggregate of a GROUP BY: its function, whether over DISTINCT values,
/// and which input columns hold its argument (none for COUNT(*)), string_agg's
/// delimiter or second argument and the keys of its ORDER BY.
struct GroupedAggregate {
  AggregateFunction function;
  bool distinct = false;
  std::optional<size_t> argumentColumn;
  LogicalType argumentType;
  LogicalType resultType;
  /// string_agg's delimiter, or the x of a two-variable statistic (`regr_slope(y, x)`).
  std::optional<size_t> secondArgumentColumn = std::nullopt;
  std::vector<AggregateOrderKey> orderBy = {};
  /// The argument is a column of kMoments (or sketch) partial states from the previous phase, to combine.
  bool combinesPartials = false;
  /// approx_percentile's fraction, a constant in [0, 1].
  double fraction = 0;
};

std::string_view aggregateFunctionName(AggregateFunction function);

/// PostgreSQL's result type of `function` over `argument` (ignored for COUNT(*)):
/// COUNT is bigint; SUM of integer is bigint, of bigint numeric(38,0), of
/// numeric(p,s) numeric(38,s); AVG of integers or numerics is numeric; MIN
/// and MAX keep the argument's type; double stays double; array_agg makes an
/// array of the argument's type and string_agg text; the float8 statistics are
/// double precision (regr_count bigint), and their partial state (kMoments) text; percentile_cont is double
/// precision, percentile_disc and mode keep the argument's type.
LogicalType aggregateResultType(AggregateFunction function, const LogicalType& argument);

}  // namespace shoal::engine
