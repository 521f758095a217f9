#include "sql/plan/plan_copy.h"

#include <set>

#include "common/check.h"

#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::ExpressionPtr;

namespace {

ExpressionPtr copyOrNull(const ExpressionPtr& expression) {
  return expression ? copyExpression(*expression) : nullptr;
}

std::vector<ExpressionPtr> copyAll(const std::vector<ExpressionPtr>& expressions) {
  std::vector<ExpressionPtr> copies;
  for (const auto& expression : expressions) copies.push_back(copyExpression(*expression));
  return copies;
}

std::vector<SortKey> copyKeys(const std::vector<SortKey>& keys) {
  std::vector<SortKey> copies;
  for (const auto& key : keys) copies.push_back({copyExpression(*key.expression), key.ascending, key.nullsFirst});
  return copies;
}

WindowFrameEnd copyFrameEnd(const WindowFrameEnd& end) {
  return {end.bound, copyOrNull(end.offset), copyOrNull(end.rangeBound)};
}

/// The operator itself, without its children.
LogicalOperatorPtr copyNode(const LogicalOperator& op) {
  switch (op.kind()) {
    case LogicalOperatorKind::kScan: {
      const auto& scan = static_cast<const LogicalScan&>(op);
      auto copy = std::make_unique<LogicalScan>();
      copy->exchangeInput = scan.exchangeInput;
      copy->table = scan.table;
      copy->alias = scan.alias;
      copy->tableColumns = scan.tableColumns;
      copy->columns = scan.columns;
      copy->filters = copyAll(scan.filters);
      return copy;
    }
    case LogicalOperatorKind::kSingleRow:
      return std::make_unique<LogicalSingleRow>();
    case LogicalOperatorKind::kTableFunction: {
      const auto& function = static_cast<const LogicalTableFunction&>(op);
      auto copy = std::make_unique<LogicalTableFunction>();
      copy->function = function.function;
      copy->arguments = copyAll(function.arguments);
      copy->columns = function.columns;
      copy->withOrdinality = function.withOrdinality;
      return copy;
    }
    case LogicalOperatorKind::kMaterialized: {
      const auto& materialized = static_cast<const LogicalMaterialized&>(op);
      auto copy = std::make_unique<LogicalMaterialized>();
      copy->columns = materialized.columns;
      copy->name = materialized.name;
      copy->role = materialized.role;
      copy->query = materialized.query;
      copy->step = materialized.step;
      copy->rows = materialized.rows;
      return copy;
    }
    case LogicalOperatorKind::kProjectSet: {
      auto copy = std::make_unique<LogicalProjectSet>();
      for (const auto& function : static_cast<const LogicalProjectSet&>(op).functions) {
        copy->functions.push_back(
            {function.function, copyAll(function.arguments), function.column, function.ordinality});
      }
      return copy;
    }
    case LogicalOperatorKind::kFilter: {
      auto copy = std::make_unique<LogicalFilter>();
      copy->conditions = copyAll(static_cast<const LogicalFilter&>(op).conditions);
      return copy;
    }
    case LogicalOperatorKind::kProject: {
      const auto& project = static_cast<const LogicalProject&>(op);
      auto copy = std::make_unique<LogicalProject>();
      copy->expressions = copyAll(project.expressions);
      copy->ids = project.ids;
      copy->names = project.names;
      return copy;
    }
    case LogicalOperatorKind::kJoin: {
      const auto& join = static_cast<const LogicalJoin&>(op);
      auto copy = std::make_unique<LogicalJoin>();
      copy->type = join.type;
      copy->conditions = copyAll(join.conditions);
      copy->dependent = join.dependent;
      copy->nullAwareCondition = copyOrNull(join.nullAwareCondition);
      copy->markId = join.markId;
      copy->markName = join.markName;
      copy->buildLeft = join.buildLeft;
      return copy;
    }
    case LogicalOperatorKind::kAggregate: {
      const auto& aggregate = static_cast<const LogicalAggregate&>(op);
      auto copy = std::make_unique<LogicalAggregate>();
      copy->groups = copyAll(aggregate.groups);
      copy->groupIds = aggregate.groupIds;
      copy->groupNames = aggregate.groupNames;
      for (const auto& call : aggregate.aggregates) copy->aggregates.push_back(copyAggregateCall(call));
      return copy;
    }
    case LogicalOperatorKind::kWindow: {
      const auto& window = static_cast<const LogicalWindow&>(op);
      auto copy = std::make_unique<LogicalWindow>();
      copy->partitionBy = copyAll(window.partitionBy);
      copy->orderBy = copyKeys(window.orderBy);
      for (const auto& call : window.calls) copy->calls.push_back(copyWindowCall(call));
      return copy;
    }
    case LogicalOperatorKind::kSort: {
      auto copy = std::make_unique<LogicalSort>();
      copy->keys = copyKeys(static_cast<const LogicalSort&>(op).keys);
      return copy;
    }
    case LogicalOperatorKind::kLimit: {
      const auto& limit = static_cast<const LogicalLimit&>(op);
      auto copy = std::make_unique<LogicalLimit>();
      copy->limit = limit.limit;
      copy->offset = limit.offset;
      return copy;
    }
    case LogicalOperatorKind::kUnionAll: {
      auto copy = std::make_unique<LogicalUnionAll>();
      copy->columns = static_cast<const LogicalUnionAll&>(op).columns;
      return copy;
    }
  }
  SHOAL_UNREACHABLE("unknown logical operator");
}

/// Renames the ids an operator declares for the columns it produces.
void renameProduced(LogicalOperator& op, const std::map<ColumnId, ColumnId>& renamed) {
  auto rename = [&](ColumnId& id) {
    if (auto it = renamed.find(id); it != renamed.end()) id = it->second;
  };
  switch (op.kind()) {
    case LogicalOperatorKind::kScan:
      for (auto& column : static_cast<LogicalScan&>(op).columns) rename(column.id);
      return;
    case LogicalOperatorKind::kTableFunction:
      for (auto& column : static_cast<LogicalTableFunction&>(op).columns) rename(column.id);
      return;
    case LogicalOperatorKind::kProjectSet:
      for (auto& function : static_cast<LogicalProjectSet&>(op).functions) {
        rename(function.column.id);
        if (function.ordinality) rename(function.ordinality->id);
      }
      return;
    case LogicalOperatorKind::kProject:
      for (auto& id : static_cast<LogicalProject&>(op).ids) rename(id);
      return;
    case LogicalOperatorKind::kJoin:
      rename(static_cast<LogicalJoin&>(op).markId);
      return;
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(op);
      for (auto& id : aggregate.groupIds) rename(id);
      for (auto& call : aggregate.aggregates) rename(call.id);
      return;
    }
    case LogicalOperatorKind::kUnionAll:
      for (auto& column : static_cast<LogicalUnionAll&>(op).columns) rename(column.id);
      return;
    case LogicalOperatorKind::kWindow:
      for (auto& call : static_cast<LogicalWindow&>(op).calls) rename(call.id);
      return;
    case LogicalOperatorKind::kMaterialized:
      for (auto& column : static_cast<LogicalMaterialized&>(op).columns) rename(column.id);
      return;
    default:
      return;
  }
}

void renameAll(LogicalOperator& op, const std::map<ColumnId, ColumnId>& renamed) {
  renameProduced(op, renamed);
  for (auto& child : op.children) renameAll(*child, renamed);
}

}  // namespace

AggregateCall copyAggregateCall(const AggregateCall& call) {
  return {call.function, copyOrNull(call.argument),       call.distinct,          call.resultType,      call.id,
          call.name,     copyOrNull(call.secondArgument), copyKeys(call.orderBy), call.combinesPartials};
}

AggregateCall renamedAggregateCall(const AggregateCall& call, const std::map<ColumnId, ColumnId>& renamed,
                                   ColumnId id) {
  auto remap = [&](const engine::ExpressionPtr& expression) -> engine::ExpressionPtr {
    return expression ? withRenamedColumns(*expression, renamed) : nullptr;
  };
  AggregateCall copy{call.function,
                     remap(call.argument),
                     call.distinct,
                     call.resultType,
                     id,
                     call.name,
                     remap(call.secondArgument),
                     {},
                     call.combinesPartials};
  for (const auto& key : call.orderBy) copy.orderBy.push_back({remap(key.expression), key.ascending, key.nullsFirst});
  return copy;
}

WindowCall copyWindowCall(const WindowCall& call) {
  WindowCall copy;
  copy.function = call.function;
  copy.aggregate = copyAggregateCall(call.aggregate);
  copy.arguments = copyAll(call.arguments);
  copy.frame.unit = call.frame.unit;
  copy.frame.start = copyFrameEnd(call.frame.start);
  copy.frame.end = copyFrameEnd(call.frame.end);
  copy.frame.exclusion = call.frame.exclusion;
  copy.frame.rangeKey = copyOrNull(call.frame.rangeKey);
  copy.resultType = call.resultType;
  copy.id = call.id;
  copy.name = call.name;
  return copy;
}

LogicalOperatorPtr copyPlan(const LogicalOperator& op) {
  LogicalOperatorPtr copy = copyNode(op);
  copy->estimatedRows = op.estimatedRows;
  for (const auto& child : op.children) copy->children.push_back(copyPlan(*child));
  return copy;
}

std::map<ColumnId, ColumnId> renumberColumns(LogicalOperator& root, ColumnIdGenerator& ids) {
  std::set<ColumnId> produced;
  collectProducedColumns(root, produced);
  std::map<ColumnId, ColumnId> renamed;
  for (ColumnId id : produced) renamed[id] = ids.next();
  renameAll(root, renamed);
  rewritePlanExpressions(root,
                         [&](const engine::Expression& expression) { return withRenamedColumns(expression, renamed); });
  return renamed;
}

engine::ExpressionPtr withRenamedColumns(const engine::Expression& expression,
                                         const std::map<ColumnId, ColumnId>& renamed) {
  return rewriteExpression(expression, [&](const engine::Expression& node) -> ExpressionPtr {
    if (node.kind() != engine::ExpressionKind::kColumnRef) return nullptr;
    const auto& ref = static_cast<const engine::ColumnRefExpression&>(node);
    auto it = renamed.find(static_cast<ColumnId>(ref.columnIndex()));
    if (it == renamed.end()) return nullptr;
    return std::make_unique<engine::ColumnRefExpression>(it->second, ref.type(), ref.name());
  });
}

}  // namespace shoal::sql
