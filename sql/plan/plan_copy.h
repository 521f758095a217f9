#pragma once

#include <map>

#include "sql/binder/query_binder.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// A deep copy of `op` and everything under it, with the same column ids.
LogicalOperatorPtr copyPlan(const LogicalOperator& op);

/// A deep copy of one aggregate call.
AggregateCall copyAggregateCall(const AggregateCall& call);

/// A copy of `call` under id `id`, whose expressions read the columns `renamed` maps to in place of theirs.
AggregateCall renamedAggregateCall(const AggregateCall& call, const std::map<ColumnId, ColumnId>& renamed, ColumnId id);

/// A deep copy of one window function call.
WindowCall copyWindowCall(const WindowCall& call);

/// Gives every column `root` and its inputs produce a fresh id from `ids`, and renames the references to
/// them, so that a copy can sit in the same plan as its original. References to columns produced outside
/// `root` stay. Returns each old id's new one.
std::map<ColumnId, ColumnId> renumberColumns(LogicalOperator& root, ColumnIdGenerator& ids);

/// A copy of `expression` whose column references read `renamed`'s new ids (others stay).
engine::ExpressionPtr withRenamedColumns(const engine::Expression& expression,
                                         const std::map<ColumnId, ColumnId>& renamed);

}  // namespace shoal::sql
