// CREATE TABLE ... AS query and SELECT ... INTO: a new table whose columns are the query's, and the query's rows
// as an INSERT ... SELECT into it.

#include <fmt/format.h>

#include "pg_query/pg_query.pb.h"
#include "sql/binder/privilege_checks.h"
#include "sql/binder/query_binder.h"
#include "sql/binder/search_path.h"
#include "sql/binder/table_statement_binder.h"

namespace shoal::sql {

CreateTableAs TableStatementBinder::bindCreateTableAs(const pg_query::IntoClause& into,
                                                      const pg_query::SelectStmt& query, bool ifNotExists) {
  const auto& relation = into.rel();
  CreateTableAs bound;
  bound.table.name = bindCreationName(relation);
  bound.table.ifNotExists = ifNotExists;
  bindOnCommit(into.on_commit(), relation.location());
  if (!into.table_space_name().empty() || !into.access_method().empty()) {
    fail(SqlState::kFeatureNotSupported, relation.location(), "TABLESPACE and USING are not supported");
  }
  bound.withData = !into.skip_data();

  pg_query::SelectStmt select = query;
  select.clear_into_clause();  // SELECT ... INTO: the query itself
  ColumnIdGenerator ids;
  QueryBinder queryBinder(catalog_, text_, parameterTypes_, ids);
  LogicalPlan plan = queryBinder.bind(select);
  const std::vector<PlanColumn> outputs = plan.root->outputColumns();
  if (into.col_names_size() > static_cast<int>(outputs.size())) {
    fail(SqlState::kSyntaxError, -1, "too many column names were specified");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = i < static_cast<size_t>(into.col_names_size())
                           ? into.col_names(static_cast<int>(i)).string().sval()
                           : plan.columnNames[i];
    for (const auto& existing : bound.table.columns) {
      if (existing.name == name) {
        fail(SqlState::kDuplicateColumn, -1, fmt::format("column \"{}\" specified more than once", name));
      }
    }
    if (outputs[i].type.id() == engine::TypeId::kRecord) {
      fail(SqlState::kFeatureNotSupported, -1,
           fmt::format("column \"{}\" has type record, which a table cannot hold yet", name));
    }
    bound.table.columns.push_back(ColumnDescription{name, outputs[i].type});
    bound.table.notNull.push_back(false);
    plan.columnNames[i] = name;
  }
  bindTableOptions(into.options(), bound.table);
  bound.insert.table = bound.table.name;
  bound.insert.plan = std::move(plan);
  return bound;
}

}  // namespace shoal::sql
