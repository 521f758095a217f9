#include "engine/aggregate/aggregate_function.h"

#include <algorithm>

namespace shoal::engine {

std::string_view aggregateFunctionName(AggregateFunction function) {
  switch (function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return "count";
    case AggregateFunction::kSum:
      return "sum";
    case AggregateFunction::kAvg:
      return "avg";
    case AggregateFunction::kMin:
      return "min";
    case AggregateFunction::kMax:
      return "max";
    case AggregateFunction::kArrayAgg:
      return "array_agg";
    case AggregateFunction::kStringAgg:
      return "string_agg";
    case AggregateFunction::kVarPop:
      return "var_pop";
    case AggregateFunction::kVarSamp:
      return "var_samp";
    case AggregateFunction::kStddevPop:
      return "stddev_pop";
    case AggregateFunction::kStddevSamp:
      return "stddev_samp";
    case AggregateFunction::kRegrCount:
      return "regr_count";
    case AggregateFunction::kCovarPop:
      return "covar_pop";
    case AggregateFunction::kCovarSamp:
      return "covar_samp";
    case AggregateFunction::kCorr:
      return "corr";
    case AggregateFunction::kRegrSxx:
      return "regr_sxx";
    case AggregateFunction::kRegrSyy:
      return "regr_syy";
    case AggregateFunction::kRegrSxy:
      return "regr_sxy";
    case AggregateFunction::kRegrAvgX:
      return "regr_avgx";
    case AggregateFunction::kRegrAvgY:
      return "regr_avgy";
    case AggregateFunction::kRegrR2:
      return "regr_r2";
    case AggregateFunction::kRegrSlope:
      return "regr_slope";
    case AggregateFunction::kRegrIntercept:
      return "regr_intercept";
    case AggregateFunction::kMoments:
      return "moments";
    case AggregateFunction::kPercentileCont:
      return "percentile_cont";
    case AggregateFunction::kPercentileDisc:
      return "percentile_disc";
    case AggregateFunction::kMode:
      return "mode";
    case AggregateFunction::kApproxCountDistinct:
      return "approx_count_distinct";
    case AggregateFunction::kApproxPercentile:
      return "approx_percentile";
    case AggregateFunction::kDistinctSketch:
      return "distinct_sketch";
    case AggregateFunction::kQuantileSketch:
      return "quantile_sketch";
  }
  return "?";
}

LogicalType aggregateResultType(AggregateFunction function, const LogicalType& argument) {
  constexpr int kAverageScale = 16;  // PostgreSQL's avg of integers prints 16 fraction digits
  switch (function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return LogicalType::bigInt();
    case AggregateFunction::kSum:
      if (argument.id() == TypeId::kSmallInt || argument.id() == TypeId::kInteger) return LogicalType::bigInt();
      if (argument.id() == TypeId::kBigInt) return LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 0);
      if (argument.id() == TypeId::kDecimal)
        return LogicalType::decimal(LogicalType::kMaxDecimalPrecision, argument.scale());
      return argument;
    case AggregateFunction::kAvg:
      if (argument.id() == TypeId::kDouble) return LogicalType::doublePrecision();  // of real too
      return LogicalType::decimal(
          LogicalType::kMaxDecimalPrecision,
          std::max<int>(kAverageScale, argument.id() == TypeId::kDecimal ? argument.scale() : 0));
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      return argument;
    case AggregateFunction::kArrayAgg:
      return LogicalType::array(argument);
    case AggregateFunction::kStringAgg:
      return LogicalType::text();
    case AggregateFunction::kRegrCount:
      return LogicalType::bigInt();
    case AggregateFunction::kMoments:
    case AggregateFunction::kDistinctSketch:
    case AggregateFunction::kQuantileSketch:
      return LogicalType::text();  // encoded Moments or sketch
    case AggregateFunction::kApproxCountDistinct:
      return LogicalType::bigInt();
    case AggregateFunction::kPercentileDisc:
    case AggregateFunction::kMode:
      return argument;
    default:
      return LogicalType::doublePrecision();  // the float8 statistics
  }
  return argument;
}

}  // namespace shoal::engine
