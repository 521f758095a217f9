#include "sql/plan/single_table_lowering.h"

#include <map>

#include "common/check.h"
#include "common/status.h"
#include "engine/aggregate/moments.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::ExpressionPtr;

namespace {

[[noreturn]] void notExecutable(std::string_view what) {
  SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                  "executing {} is not supported yet: the coordinator runs one-table scans, filters and "
                  "aggregates without GROUP BY (EXPLAIN shows the plan)",
                  what);
}

/// What in the plan under `op` the coordinator cannot run yet, for the error message.
std::string_view unsupportedPart(const LogicalOperator& op) {
  switch (op.kind()) {
    case LogicalOperatorKind::kJoin:
      return "joins and subqueries";
    case LogicalOperatorKind::kAggregate:
      if (!static_cast<const LogicalAggregate&>(op).groups.empty()) return "GROUP BY and DISTINCT";
      break;
    case LogicalOperatorKind::kSort:
      return "ORDER BY";
    case LogicalOperatorKind::kUnionAll:
      return "UNION";
    case LogicalOperatorKind::kTableFunction:
      return "functions in FROM";
    default:
      break;
  }
  for (const auto& child : op.children) {
    if (std::string_view part = unsupportedPart(*child); !part.empty()) return part;
  }
  return "";
}

}  // namespace

bool isSingleTableSelect(const LogicalPlan& plan) {
  const LogicalOperator* op = plan.root.get();
  if (op->kind() == LogicalOperatorKind::kLimit) op = op->children[0].get();
  if (op->kind() == LogicalOperatorKind::kProject) op = op->children[0].get();
  if (op->kind() == LogicalOperatorKind::kAggregate) {
    const auto& aggregate = static_cast<const LogicalAggregate&>(*op);
    if (!aggregate.groups.empty()) return false;
    for (const auto& call : aggregate.aggregates) {
      if (call.distinct || engine::isCollectingAggregate(call.function) || engine::isMomentAggregate(call.function) ||
          engine::isSketchAggregate(call.function)) {
        return false;
      }
    }
    op = op->children[0].get();
  }
  if (op->kind() == LogicalOperatorKind::kFilter) op = op->children[0].get();
  return op->kind() == LogicalOperatorKind::kScan || op->kind() == LogicalOperatorKind::kSingleRow;
}

BoundSelect lowerToSingleTableSelect(const LogicalPlan& plan) {
  BoundSelect select;
  const LogicalOperator* op = plan.root.get();
  if (op->kind() == LogicalOperatorKind::kLimit) {
    const auto& limit = static_cast<const LogicalLimit&>(*op);
    select.limit = limit.limit;
    select.offset = limit.offset;
    op = op->children[0].get();
  }
  const LogicalProject* project = nullptr;
  if (op->kind() == LogicalOperatorKind::kProject) {
    project = static_cast<const LogicalProject*>(op);
    op = op->children[0].get();
  }
  const LogicalAggregate* aggregate = nullptr;
  if (op->kind() == LogicalOperatorKind::kAggregate) {
    aggregate = static_cast<const LogicalAggregate*>(op);
    if (!aggregate->groups.empty()) notExecutable("GROUP BY and DISTINCT");
    op = op->children[0].get();
  }
  std::vector<ExpressionPtr> conditions;
  if (op->kind() == LogicalOperatorKind::kFilter) {
    for (const auto& condition : static_cast<const LogicalFilter&>(*op).conditions) {
      conditions.push_back(copyExpression(*condition));
    }
    op = op->children[0].get();
  }
  // Plan column id -> position in the rows the executor evaluates over.
  std::map<ColumnId, std::pair<size_t, std::string>> inputPositions;
  if (op->kind() == LogicalOperatorKind::kScan) {
    const auto& scan = static_cast<const LogicalScan&>(*op);
    select.from = scan.table;
    for (size_t i = 0; i < scan.columns.size(); ++i) {
      if (scan.tableColumns[i] == kRowIdColumn) notExecutable("row ids");
      inputPositions[scan.columns[i].id] = {scan.tableColumns[i], scan.table.columns[scan.tableColumns[i]].name};
    }
    for (const auto& filter : scan.filters) conditions.push_back(copyExpression(*filter));
  } else if (op->kind() != LogicalOperatorKind::kSingleRow) {
    std::string_view part = unsupportedPart(*plan.root);
    notExecutable(part.empty() ? "this query shape" : part);
  }
  // Column references by plan id become references by position, keeping their types.
  auto lower = [&](const engine::Expression& expression,
                   const std::map<ColumnId, std::pair<size_t, std::string>>& positions) {
    return rewriteExpression(expression, [&](const engine::Expression& node) -> ExpressionPtr {
      if (node.kind() != engine::ExpressionKind::kColumnRef) return nullptr;
      auto id = static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(node).columnIndex());
      auto found = positions.find(id);
      SHOAL_CHECK(found != positions.end(), "column {} has no position in the lowered plan", id);
      return std::make_unique<engine::ColumnRefExpression>(found->second.first, node.type(), found->second.second);
    });
  };
  if (!conditions.empty()) select.where = lower(*makeConjunction(std::move(conditions)), inputPositions);
  std::map<ColumnId, std::pair<size_t, std::string>> outputPositions = inputPositions;
  if (aggregate != nullptr) {
    outputPositions.clear();
    for (const auto& call : aggregate->aggregates) {
      if (call.distinct) notExecutable("aggregates over DISTINCT values");
      outputPositions[call.id] = {select.aggregates.size(), call.name};
      select.aggregates.push_back(
          {call.function, call.argument ? lower(*call.argument, inputPositions) : nullptr, call.resultType});
    }
  }
  std::vector<PlanColumn> outputs = plan.root->outputColumns();
  for (size_t i = 0; i < outputs.size(); ++i) {
    ExpressionPtr expression;
    if (project != nullptr) {
      expression = lower(*project->expressions[i], outputPositions);
    } else {
      expression = lower(*columnRef(outputs[i]), outputPositions);
    }
    select.projections.push_back(std::move(expression));
    select.columnNames.push_back(plan.columnNames[i]);
  }
  return select;
}

}  // namespace shoal::sql
