#pragma once

// An aggregation computed in two phases: calls over parts of the input (below), and calls that combine the
// parts' values (above). Grouping sets in one pass group by every key below and repeat those groups per set
// (sql/binder/grouping_sets_one_pass.cpp); eager aggregation groups one input of a join below the join
// (sql/optimizer/eager_aggregation.cpp).

#include <vector>

#include "sql/binder/query_binder.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// How one call of the original aggregation comes out of the calls above: one of them as it is, a count (the
/// sum of the parts' counts, NULL over no parts where the count is 0), or an average (a sum over a count).
struct AggregateFinish {
  enum class Kind { kPass, kCount, kAverage } kind = Kind::kPass;
  size_t call = 0;    // the call above that gives it (an average's sum)
  size_t count = 0;   // an average's count
  PlanColumn column;  // the original call's id, type and name
};

struct PhasedCalls {
  std::vector<AggregateCall> below;       // over the input's rows
  std::vector<AggregateCall> above;       // over the below calls' columns
  std::vector<AggregateFinish> finishes;  // per original call
};

/// avg's argument split for a sum and a count, as PostgreSQL adds it (real in double precision, as float4_accum
/// does), with the sum's type.
struct AverageParts {
  engine::ExpressionPtr summed;
  engine::ExpressionPtr counted;
  engine::LogicalType sumType;
};
AverageParts averageParts(engine::ExpressionPtr argument);

/// Whether every call of `aggregate` can be computed from the same calls over parts of its input: count, sum,
/// min, max and avg, without DISTINCT, ORDER BY or a second argument.
bool combinesFromParts(const LogicalAggregate& aggregate);

/// Splits calls that combine from parts (combinesFromParts) into the two phases; moves their arguments below.
PhasedCalls splitIntoPhases(std::vector<AggregateCall> calls, ColumnIdGenerator& ids);

/// The value of `finish` from the columns of the calls above (`above[i]` the column of call i). With
/// `overNoRows` the aggregation may see no parts at all (no GROUP BY, or an empty grouping set): a count is
/// then 0, not NULL.
engine::ExpressionPtr finishedValue(const AggregateFinish& finish, const std::vector<PlanColumn>& above,
                                    bool overNoRows);

}  // namespace shoal::sql
