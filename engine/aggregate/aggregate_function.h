#pragma once

#include <string_view>

#include "engine/types/logical_type.h"

namespace shoal::engine {

/// The aggregate functions the engine computes.
enum class AggregateFunction { kCountStar, kCount, kSum, kAvg, kMin, kMax };

std::string_view aggregateFunctionName(AggregateFunction function);

/// PostgreSQL's result type of `function` over `argument` (ignored for COUNT(*)):
/// COUNT is bigint; SUM of integer is bigint, of bigint numeric(38,0), of
/// numeric(p,s) numeric(38,s); AVG of integers or numerics is numeric; MIN
/// and MAX keep the argument's type; double stays double.
LogicalType aggregateResultType(AggregateFunction function, const LogicalType& argument);

}  // namespace shoal::engine
