#pragma once

#include <functional>
#include <set>

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Calls `visit` on every expression an operator holds (not its children's):
/// filters, projections, join conditions, group keys, aggregate arguments, sort keys.
void forEachExpression(LogicalOperator& op, const std::function<void(engine::ExpressionPtr&)>& visit);
void forEachExpression(const LogicalOperator& op, const std::function<void(const engine::Expression&)>& visit);

/// Calls `visit` on each expression an aggregate call reads: its arguments and ORDER BY keys.
void forEachAggregateInput(AggregateCall& call, const std::function<void(engine::ExpressionPtr&)>& visit);
void forEachAggregateInput(const AggregateCall& call, const std::function<void(const engine::Expression&)>& visit);

/// Calls `visit` on each expression a window call reads: arguments, frame offsets and RANGE bound columns.
void forEachWindowInput(WindowCall& call, const std::function<void(engine::ExpressionPtr&)>& visit);

/// Whether two aggregate calls compute the same value: same function, DISTINCT, inputs and order.
bool sameAggregateCall(const AggregateCall& a, const AggregateCall& b);

/// Replaces, in the whole tree under `root`, each expression by `rewrite(expression)`.
void rewritePlanExpressions(LogicalOperator& root,
                            const std::function<engine::ExpressionPtr(const engine::Expression&)>& rewrite);

/// The columns read somewhere under `root` that no operator under it produces:
/// the outer references of a correlated subquery.
std::set<ColumnId> freeColumns(const LogicalOperator& root);

/// Every column produced somewhere under `root`.
void collectProducedColumns(const LogicalOperator& root, std::set<ColumnId>& ids);

}  // namespace shoal::sql
