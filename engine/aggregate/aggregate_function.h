#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/types/logical_type.h"

namespace shoal::engine {

/// The aggregate functions the engine computes.
enum class AggregateFunction { kCountStar, kCount, kSum, kAvg, kMin, kMax, kArrayAgg, kStringAgg };

/// Whether `function` keeps every value it sees (see CollectedValues) instead of a fixed-size state.
inline bool isCollectingAggregate(AggregateFunction function) {
  return function == AggregateFunction::kArrayAgg || function == AggregateFunction::kStringAgg;
}

/// One key of an aggregate's ORDER BY (`array_agg(x ORDER BY y DESC)`): an input column and its direction.
struct AggregateOrderKey {
  size_t column;
  bool ascending = true;
  bool nullsFirst = false;
};

/// One aggregate of a GROUP BY: its function, whether over DISTINCT values,
/// and which input columns hold its argument (none for COUNT(*)), string_agg's
/// delimiter and the keys of its ORDER BY.
struct GroupedAggregate {
  AggregateFunction function;
  bool distinct = false;
  std::optional<size_t> argumentColumn;
  LogicalType argumentType;
  LogicalType resultType;
  std::optional<size_t> delimiterColumn = std::nullopt;
  std::vector<AggregateOrderKey> orderBy = {};
};

std::string_view aggregateFunctionName(AggregateFunction function);

/// PostgreSQL's result type of `function` over `argument` (ignored for COUNT(*)):
/// COUNT is bigint; SUM of integer is bigint, of bigint numeric(38,0), of
/// numeric(p,s) numeric(38,s); AVG of integers or numerics is numeric; MIN
/// and MAX keep the argument's type; double stays double; array_agg makes an
/// array of the argument's type and string_agg text.
LogicalType aggregateResultType(AggregateFunction function, const LogicalType& argument);

}  // namespace shoal::engine
