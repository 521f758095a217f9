// INSERT INTO t [(columns)] query: the query bound as any other, under a projection that casts its columns to
// the ones they fill, as PostgreSQL's assignment casts do, and fills the rest with NULL.

#include <fmt/format.h>

#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/binder/expression_builders.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/table_statement_binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

engine::ExpressionPtr TableStatementBinder::assignTo(const ColumnDescription& column, engine::ExpressionPtr value,
                                                     int location) const {
  std::vector<ColumnDescription> none;
  ExpressionBinder binder(text_, none, parameterTypes_);
  if (!isUnknown(value) && value->type() != column.type && !assignmentCastExists(value->type(), column.type)) {
    binder.fail(SqlState::kDatatypeMismatch, location,
                fmt::format("column \"{}\" is of type {} but expression is of type {}", column.name,
                            column.type.toString(), value->type().toString()),
                "You will need to rewrite or cast the expression.");
  }
  const bool limitedString =
      (column.type.id() == engine::TypeId::kVarchar || column.type.id() == engine::TypeId::kChar) &&
      column.type.maxLength() > 0 && !column.type.isArray();
  if (limitedString) {
    // A cast to varchar(n) would cut a longer value short; an assignment refuses it.
    value = binder.coerce(std::move(value), engine::LogicalType::text(), location);
    return makeFunction(engine::ScalarFunction::kAssignString, column.type, std::move(value));
  }
  return binder.coerce(std::move(value), column.type, location);
}

InsertSelect TableStatementBinder::bindInsertSelect(const pg_query::InsertStmt& insert, const TableDescription& table,
                                                    std::vector<size_t> targets) {
  const auto& select = insert.select_stmt().select_stmt();
  ColumnIdGenerator ids;
  QueryBinder queryBinder(catalog_, text_, parameterTypes_, ids);
  // SELECT '5' fills an integer column as PostgreSQL reads the literal: as an integer, not as text.
  queryBinder.keepUntypedOutputs();
  LogicalPlan query = queryBinder.bind(select);
  std::vector<PlanColumn> outputs = query.root->outputColumns();
  // Without a column list, the query fills the first columns and the others are NULL, as in PostgreSQL.
  if (insert.cols_size() == 0 && outputs.size() < targets.size()) targets.resize(outputs.size());
  // Where PostgreSQL points: at the select list's item, when the query has one of its own.
  auto itemLocation = [&](size_t i) {
    return select.op() == pg_query::SETOP_NONE && i < static_cast<size_t>(select.target_list_size())
               ? select.target_list(static_cast<int>(i)).res_target().location()
               : -1;
  };
  if (outputs.size() > targets.size()) {
    fail(SqlState::kSyntaxError, itemLocation(targets.size()), "INSERT has more expressions than target columns");
  }
  if (outputs.size() < targets.size()) {
    const int location =
        insert.cols_size() > 0 ? insert.cols(static_cast<int>(outputs.size())).res_target().location() : -1;
    fail(SqlState::kSyntaxError, location, "INSERT has more target columns than expressions");
  }
  std::vector<engine::ExpressionPtr> fills(table.columns.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    fills[targets[i]] = assignTo(table.columns[targets[i]], columnRef(outputs[i]), itemLocation(i));
  }
  auto project = std::make_unique<LogicalProject>();
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const auto& column = table.columns[c];
    project->expressions.push_back(fills[c] ? std::move(fills[c]) : constantOf(engine::Value::null(column.type)));
    project->ids.push_back(ids.next());
    project->names.push_back(column.name);
  }
  project->children.push_back(std::move(query.root));
  InsertSelect bound;
  bound.table = {table.schema, table.name};
  bound.plan.root = std::move(project);
  for (const auto& column : table.columns) bound.plan.columnNames.push_back(column.name);
  return bound;
}

}  // namespace shoal::sql
