// QueryBinder's planning of a query's window function calls: their inputs projected as columns, and one
// LogicalWindow per distinct window (PARTITION BY and ORDER BY), stacked in the order the query names them.

#include <fmt/format.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/query_binder.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"

namespace shoal::sql {

using engine::ExpressionPtr;

namespace {

bool sameWindow(const WindowFunctionCall& a, const LogicalWindow& b) {
  if (a.partitionBy.size() != b.partitionBy.size() || a.orderBy.size() != b.orderBy.size()) return false;
  for (size_t i = 0; i < a.partitionBy.size(); ++i) {
    if (!sameExpression(*a.partitionBy[i], *b.partitionBy[i])) return false;
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

}  // namespace

NamedWindows QueryBinder::namedWindows(const pg_query::SelectStmt& select) const {
  NamedWindows named;
  for (const auto& node : select.window_clause()) {
    const auto& definition = node.window_def();
    if (!named.emplace(definition.name(), std::pair(&definition, named.size())).second) {
      fail(SqlState::kWindowingError, definition.location(),
           fmt::format("window \"{}\" is already defined", definition.name()));
    }
  }
  return named;
}

LogicalOperatorPtr QueryBinder::addWindows(LogicalOperatorPtr plan, std::vector<WindowFunctionCall> calls) {
  if (calls.empty()) return plan;
  // Every input a window reads becomes a column of its input: computed once by one projection below.
  auto project = std::make_unique<LogicalProject>();
  std::set<ColumnId> available;
  for (const auto& column : plan->outputColumns()) {
    project->expressions.push_back(columnRef(column));
    project->ids.push_back(column.id);
    project->names.push_back(column.name);
    available.insert(column.id);
  }
  const size_t passedThrough = project->ids.size();
  auto asColumn = [&](ExpressionPtr& expression) {
    if (!expression) return;
    if (expression->kind() == engine::ExpressionKind::kColumnRef &&
        available.contains(
            static_cast<ColumnId>(static_cast<const engine::ColumnRefExpression&>(*expression).columnIndex()))) {
      return;
    }
    for (size_t i = passedThrough; i < project->expressions.size(); ++i) {
      if (sameExpression(*project->expressions[i], *expression)) {
        expression = columnRef({project->ids[i], expression->type(), project->names[i]});
        return;
      }
    }
    const PlanColumn column{ids_.next(), expression->type(), "?window?"};
    project->expressions.push_back(std::move(expression));
    project->ids.push_back(column.id);
    project->names.push_back(column.name);
    expression = columnRef(column);
  };
  for (auto& call : calls) {
    for (auto& key : call.partitionBy) asColumn(key);
    for (auto& key : call.orderBy) asColumn(key.expression);
    WindowCall& bound = call.call;
    for (auto& argument : bound.arguments) asColumn(argument);
    asColumn(bound.aggregate.argument);
    asColumn(bound.aggregate.secondArgument);
    asColumn(bound.frame.rangeKey);
    asColumn(bound.frame.start.rangeBound);
    asColumn(bound.frame.end.rangeBound);
  }
  if (project->ids.size() > passedThrough) {
    project->children.push_back(std::move(plan));
    plan = std::move(project);
  }
  // One window operator per distinct window, in the order of their first calls.
  std::vector<std::unique_ptr<LogicalWindow>> windows;
  for (auto& call : calls) {
    auto window = std::find_if(windows.begin(), windows.end(), [&](const auto& w) { return sameWindow(call, *w); });
    if (window == windows.end()) {
      auto fresh = std::make_unique<LogicalWindow>();
      fresh->partitionBy = std::move(call.partitionBy);
      fresh->orderBy = std::move(call.orderBy);
      windows.push_back(std::move(fresh));
      window = windows.end() - 1;
    }
    (*window)->calls.push_back(std::move(call.call));
  }
  for (auto& window : windows) {
    window->children.push_back(std::move(plan));
    plan = std::move(window);
  }
  return plan;
}

LogicalOperatorPtr QueryBinder::keepFirstOfEach(LogicalOperatorPtr plan, const std::vector<PlanColumn>& keys,
                                                std::vector<SortKey> order, std::vector<PlanColumn>& columns) {
  auto window = std::make_unique<LogicalWindow>();
  for (const auto& key : keys) window->partitionBy.push_back(columnRef(key));
  window->orderBy = std::move(order);
  WindowCall rowNumber;
  rowNumber.function = engine::WindowFunction::kRowNumber;
  rowNumber.resultType = engine::LogicalType::bigInt();
  rowNumber.id = ids_.next();
  rowNumber.name = "?row_number?";
  const PlanColumn first{rowNumber.id, rowNumber.resultType, rowNumber.name};
  window->calls.push_back(std::move(rowNumber));
  window->children.push_back(std::move(plan));
  auto filter = std::make_unique<LogicalFilter>();
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(columnRef(first));
  arguments.push_back(std::make_unique<engine::ConstantExpression>(engine::Value::bigInt(1)));
  filter->conditions.push_back(std::make_unique<engine::FunctionExpression>(
      engine::ScalarFunction::kEqual, std::move(arguments), engine::LogicalType::boolean()));
  filter->children.push_back(std::move(window));
  // The row's own columns, under new ids (a column has one producer).
  auto project = std::make_unique<LogicalProject>();
  for (auto& column : columns) {
    project->expressions.push_back(columnRef(column));
    column.id = ids_.next();
    project->ids.push_back(column.id);
    project->names.push_back(column.name);
  }
  project->children.push_back(std::move(filter));
  return project;
}

}  // namespace shoal::sql
