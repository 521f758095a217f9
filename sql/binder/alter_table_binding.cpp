// ALTER TABLE ... ADD COLUMN and DROP COLUMN: the names and types of the changes. Whether the columns exist is
// checked when the statement runs, against the table as it is then (coordinator/query/alter_table_columns.cpp).

#include <fmt/format.h>

#include "pg_query/pg_query.pb.h"
#include "sql/binder/search_path.h"
#include "sql/binder/table_statement_binder.h"

namespace shoal::sql {

AlterTableColumns TableStatementBinder::bindAlterColumns(const pg_query::AlterTableStmt& alter) {
  const auto& relation = alter.relation();
  if (alter.objtype() != pg_query::OBJECT_TABLE) {
    fail(SqlState::kFeatureNotSupported, relation.location(), "only ALTER TABLE is supported among ALTER statements");
  }
  AlterTableColumns bound;
  bound.table = resolveRelation(catalog_, relation.schemaname(), relation.relname())
                    .value_or(QualifiedName{relation.schemaname(), relation.relname()});
  bound.ifExists = alter.missing_ok();
  for (const auto& node : alter.cmds()) {
    const auto& command = node.alter_table_cmd();
    switch (command.subtype()) {
      case pg_query::AT_AddColumn: {
        const auto& definition = command.def().column_def();
        auto [column, notNull] = bindColumnDefinition(definition, nullptr);
        bound.adds.push_back({std::move(column), notNull, command.missing_ok()});
        break;
      }
      case pg_query::AT_DropColumn:
        // CASCADE and RESTRICT alike: views read their tables' columns by name when they run (see
        // runAlterTableColumns), so no object depends on a column here.
        bound.drops.push_back({command.name(), command.missing_ok()});
        break;
      default:
        fail(SqlState::kFeatureNotSupported, relation.location(),
             "ALTER TABLE supports ADD COLUMN, DROP COLUMN, RENAME and RENAME COLUMN only");
    }
  }
  return bound;
}

}  // namespace shoal::sql
