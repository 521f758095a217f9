#include "sql/plan/aggregate_phases.h"

#include <algorithm>

#include "engine/expression/cast.h"
#include "sql/binder/expression_builders.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::AggregateFunction;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;

AverageParts averageParts(ExpressionPtr argument) {
  // avg(real) adds in double precision (float4_accum), not float by float as sum(real) does.
  if (argument->type().isReal()) {
    argument = std::make_unique<engine::CastExpression>(std::move(argument), LogicalType::doublePrecision());
  }
  AverageParts parts{nullptr, copyExpression(*argument),
                     engine::aggregateResultType(AggregateFunction::kSum, argument->type())};
  parts.summed = std::move(argument);
  return parts;
}

bool combinesFromParts(const LogicalAggregate& aggregate) {
  return std::all_of(aggregate.aggregates.begin(), aggregate.aggregates.end(), [](const AggregateCall& call) {
    const bool combinable = call.function == AggregateFunction::kCountStar ||
                            call.function == AggregateFunction::kCount || call.function == AggregateFunction::kSum ||
                            call.function == AggregateFunction::kMin || call.function == AggregateFunction::kMax ||
                            call.function == AggregateFunction::kAvg;
    return combinable && !call.distinct && call.orderBy.empty() && !call.secondArgument && !call.combinesPartials;
  });
}

PhasedCalls splitIntoPhases(std::vector<AggregateCall> calls, ColumnIdGenerator& ids) {
  PhasedCalls phases;
  // A call below, and the one above that combines its values; returns the latter's position.
  auto addPhases = [&](AggregateFunction below, ExpressionPtr argument, const LogicalType& belowType,
                       AggregateFunction combine, const LogicalType& type, const std::string& name) {
    const PlanColumn part{ids.next(), belowType, name};
    AggregateCall partCall;
    partCall.function = below;
    partCall.argument = std::move(argument);
    partCall.resultType = belowType;
    partCall.id = part.id;
    partCall.name = name;
    phases.below.push_back(std::move(partCall));
    AggregateCall combineCall;
    combineCall.function = combine;
    combineCall.argument = columnRef(part);
    combineCall.resultType = type;
    combineCall.id = ids.next();
    combineCall.name = name;
    phases.above.push_back(std::move(combineCall));
    return phases.above.size() - 1;
  };
  for (auto& call : calls) {
    AggregateFinish finish;
    finish.column = PlanColumn{call.id, call.resultType, call.name};
    switch (call.function) {
      case AggregateFunction::kCountStar:
      case AggregateFunction::kCount:
        finish.kind = AggregateFinish::Kind::kCount;
        finish.call = addPhases(call.function, std::move(call.argument), LogicalType::bigInt(), AggregateFunction::kSum,
                                LogicalType::bigInt(), call.name);
        break;
      case AggregateFunction::kAvg: {
        AverageParts parts = averageParts(std::move(call.argument));
        finish.kind = AggregateFinish::Kind::kAverage;
        finish.call = addPhases(AggregateFunction::kSum, std::move(parts.summed), parts.sumType,
                                AggregateFunction::kSum, parts.sumType, call.name + "_sum");
        finish.count = addPhases(AggregateFunction::kCount, std::move(parts.counted), LogicalType::bigInt(),
                                 AggregateFunction::kSum, LogicalType::bigInt(), call.name + "_count");
        break;
      }
      default:  // sum, min, max: the same function over its own results
        finish.call = addPhases(call.function, std::move(call.argument), call.resultType, call.function,
                                call.resultType, call.name);
    }
    phases.finishes.push_back(std::move(finish));
  }
  return phases;
}

ExpressionPtr finishedValue(const AggregateFinish& finish, const std::vector<PlanColumn>& above, bool overNoRows) {
  ExpressionPtr value = columnRef(above[finish.call]);
  if (finish.kind == AggregateFinish::Kind::kCount && overNoRows) {
    // Over no rows the count is 0, where the sum of the parts' counts is NULL.
    std::vector<ExpressionPtr> branches;
    std::vector<ExpressionPtr> tested;
    tested.push_back(columnRef(above[finish.call]));
    branches.push_back(functionOf(ScalarFunction::kIsNull, LogicalType::boolean(), std::move(tested)));
    branches.push_back(constantOf(Value::bigInt(0)));
    branches.push_back(std::move(value));
    return functionOf(ScalarFunction::kCase, LogicalType::bigInt(), std::move(branches));
  }
  if (finish.kind == AggregateFinish::Kind::kAverage) {
    std::vector<ExpressionPtr> parts;
    parts.push_back(std::move(value));
    parts.push_back(columnRef(above[finish.count]));
    return functionOf(ScalarFunction::kAverageOfSum, finish.column.type, std::move(parts));
  }
  return value;
}

}  // namespace shoal::sql
