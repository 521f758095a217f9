#include "sql/plan/plan_walker.h"

#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

void forEachExpression(LogicalOperator& op, const std::function<void(engine::ExpressionPtr&)>& visit) {
  switch (op.kind()) {
    case LogicalOperatorKind::kScan:
      for (auto& filter : static_cast<LogicalScan&>(op).filters) visit(filter);
      return;
    case LogicalOperatorKind::kFilter:
      for (auto& condition : static_cast<LogicalFilter&>(op).conditions) visit(condition);
      return;
    case LogicalOperatorKind::kProject:
      for (auto& expression : static_cast<LogicalProject&>(op).expressions) visit(expression);
      return;
    case LogicalOperatorKind::kJoin: {
      auto& join = static_cast<LogicalJoin&>(op);
      for (auto& condition : join.conditions) visit(condition);
      if (join.nullAwareCondition) visit(join.nullAwareCondition);
      return;
    }
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(op);
      for (auto& group : aggregate.groups) visit(group);
      for (auto& call : aggregate.aggregates) forEachAggregateInput(call, visit);
      return;
    }
    case LogicalOperatorKind::kSort:
      for (auto& key : static_cast<LogicalSort&>(op).keys) visit(key.expression);
      return;
    case LogicalOperatorKind::kTableFunction:
      for (auto& argument : static_cast<LogicalTableFunction&>(op).arguments) visit(argument);
      return;
    case LogicalOperatorKind::kProjectSet:
      for (auto& function : static_cast<LogicalProjectSet&>(op).functions) {
        for (auto& argument : function.arguments) visit(argument);
      }
      return;
    case LogicalOperatorKind::kWindow: {
      auto& window = static_cast<LogicalWindow&>(op);
      for (auto& key : window.partitionBy) visit(key);
      for (auto& key : window.orderBy) visit(key.expression);
      for (auto& call : window.calls) forEachWindowInput(call, visit);
      return;
    }
    default:
      return;
  }
}

void forEachWindowInput(WindowCall& call, const std::function<void(engine::ExpressionPtr&)>& visit) {
  forEachAggregateInput(call.aggregate, visit);
  for (auto& argument : call.arguments) visit(argument);
  for (auto* end : {&call.frame.start, &call.frame.end}) {
    if (end->offset) visit(end->offset);
    if (end->rangeBound) visit(end->rangeBound);
  }
  if (call.frame.rangeKey) visit(call.frame.rangeKey);
}

void forEachAggregateInput(AggregateCall& call, const std::function<void(engine::ExpressionPtr&)>& visit) {
  if (call.argument) visit(call.argument);
  if (call.secondArgument) visit(call.secondArgument);
  for (auto& key : call.orderBy) visit(key.expression);
}

void forEachAggregateInput(const AggregateCall& call, const std::function<void(const engine::Expression&)>& visit) {
  forEachAggregateInput(const_cast<AggregateCall&>(call),
                        [&](engine::ExpressionPtr& expression) { visit(*expression); });
}

bool sameAggregateCall(const AggregateCall& a, const AggregateCall& b) {
  auto same = [](const engine::ExpressionPtr& x, const engine::ExpressionPtr& y) {
    return (x == nullptr) == (y == nullptr) && (x == nullptr || sameExpression(*x, *y));
  };
  if (a.function != b.function || a.distinct != b.distinct || a.combinesPartials != b.combinesPartials ||
      !same(a.argument, b.argument) || !same(a.secondArgument, b.secondArgument) ||
      a.orderBy.size() != b.orderBy.size()) {
    return false;
  }
  for (size_t i = 0; i < a.orderBy.size(); ++i) {
    const SortKey& x = a.orderBy[i];
    const SortKey& y = b.orderBy[i];
    if (x.ascending != y.ascending || x.nullsFirst != y.nullsFirst || !sameExpression(*x.expression, *y.expression)) {
      return false;
    }
  }
  return true;
}

void forEachExpression(const LogicalOperator& op, const std::function<void(const engine::Expression&)>& visit) {
  forEachExpression(const_cast<LogicalOperator&>(op), [&](engine::ExpressionPtr& expression) { visit(*expression); });
}

void rewritePlanExpressions(LogicalOperator& root,
                            const std::function<engine::ExpressionPtr(const engine::Expression&)>& rewrite) {
  forEachExpression(root, [&](engine::ExpressionPtr& expression) { expression = rewrite(*expression); });
  for (auto& child : root.children) rewritePlanExpressions(*child, rewrite);
}

void collectProducedColumns(const LogicalOperator& root, std::set<ColumnId>& ids) {
  for (const auto& column : root.outputColumns()) ids.insert(column.id);
  // Operators that pass columns through produce nothing new, but their inputs may produce hidden ones.
  for (const auto& child : root.children) collectProducedColumns(*child, ids);
}

std::set<ColumnId> freeColumns(const LogicalOperator& root) {
  std::set<ColumnId> produced;
  collectProducedColumns(root, produced);
  std::set<ColumnId> free;
  std::function<void(const LogicalOperator&)> walk = [&](const LogicalOperator& op) {
    forEachExpression(op, [&](const engine::Expression& expression) {
      for (ColumnId id : columnsOf(expression)) {
        if (!produced.contains(id)) free.insert(id);
      }
    });
    for (const auto& child : op.children) walk(*child);
  };
  walk(root);
  return free;
}

}  // namespace shoal::sql
