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
      if (argument.id() == TypeId::kDouble) return argument;
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
  }
  return argument;
}

}  // namespace shoal::engine
