// QueryBinder's VALUES lists as a table: each row a projection of one row, concatenated, every column of the type
// its values resolve to together (as UNION resolves its branches), named column1, column2, ...

#include <fmt/format.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"

namespace shoal::sql {

using engine::ExpressionPtr;
using engine::LogicalType;

LogicalPlan QueryBinder::bindValues(const pg_query::SelectStmt& select) {
  registerCtes(select);
  std::vector<std::vector<ExpressionPtr>> rows;
  std::vector<std::vector<PendingSubquery>> subqueries;
  std::vector<int> rowLocations;
  for (const auto& list : select.values_lists()) {
    const auto& items = list.list().items();
    if (!rows.empty() && static_cast<size_t>(items.size()) != rows[0].size()) {
      fail(SqlState::kSyntaxError, ExpressionBinder::locationOf(items.empty() ? list : items[0]),
           "VALUES lists must all be the same length");
    }
    subqueries.emplace_back();
    ExpressionBinder binder = makeBinder(subqueries.back(), "VALUES");
    std::vector<ExpressionPtr> row;
    for (const auto& item : items) row.push_back(binder.bind(item));
    rows.push_back(std::move(row));
    rowLocations.push_back(items.empty() ? -1 : ExpressionBinder::locationOf(items[0]));
  }
  ExpressionBinder types(text_, std::vector<ColumnDescription>{}, parameterTypes_);
  const size_t width = rows[0].size();
  std::vector<LogicalType> columnTypes;
  std::vector<std::string> names;
  for (size_t column = 0; column < width; ++column) {
    std::vector<LogicalType> candidates;
    for (const auto& row : rows) candidates.push_back(row[column]->type());
    LogicalType type = types.commonType(candidates, "VALUES", rowLocations[0]);
    if (type.id() == engine::TypeId::kUnknown && !keepUntypedOutputs_) type = LogicalType::text();
    columnTypes.push_back(type);
    names.push_back(fmt::format("column{}", column + 1));
  }
  auto unionAll = std::make_unique<LogicalUnionAll>();
  for (size_t column = 0; column < width; ++column)
    unionAll->columns.push_back({ids_.next(), columnTypes[column], names[column]});
  for (size_t r = 0; r < rows.size(); ++r) {
    auto project = std::make_unique<LogicalProject>();
    for (size_t column = 0; column < width; ++column) {
      project->expressions.push_back(types.coerce(std::move(rows[r][column]), columnTypes[column], rowLocations[r]));
      project->ids.push_back(ids_.next());
      project->names.push_back(names[column]);
    }
    project->children.push_back(attachSubqueries(std::make_unique<LogicalSingleRow>(), subqueries[r]));
    unionAll->children.push_back(std::move(project));
  }
  LogicalOperatorPtr plan;
  if (unionAll->children.size() == 1) {
    // One row: its projection, under the union's column ids.
    auto& project = static_cast<LogicalProject&>(*unionAll->children[0]);
    for (size_t column = 0; column < width; ++column) project.ids[column] = unionAll->columns[column].id;
    plan = std::move(unionAll->children[0]);
  } else {
    plan = std::move(unionAll);
  }
  std::vector<PlanColumn> output = plan->outputColumns();
  LogicalPlan result;
  result.root = orderAndLimitOutput(select, std::move(plan), output, "VALUES");
  result.columnNames = std::move(names);
  return result;
}

}  // namespace shoal::sql
