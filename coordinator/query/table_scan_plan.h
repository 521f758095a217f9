#pragma once

#include <memory>
#include <string>

#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

/// A scan of every column of `table`, in order, with plan column ids taken from `nextId`: the start of the
/// plans the coordinator builds itself to read a whole table (ALTER TABLE's rewrite, a replica's rows).
inline std::unique_ptr<sql::LogicalScan> scanOfEveryColumn(const sql::TableDescription& table, sql::ColumnId& nextId) {
  auto scan = std::make_unique<sql::LogicalScan>();
  scan->alias = table.name;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    scan->tableColumns.push_back(i);
    scan->columns.push_back(sql::PlanColumn{nextId++, table.columns[i].type, table.columns[i].name});
  }
  scan->table = table;
  return scan;
}

/// Appends an output column computed by `expression` to `plan`, whose root projection `project` is being built.
inline void addOutput(sql::LogicalProject& project, sql::LogicalPlan& plan, engine::ExpressionPtr expression,
                      const std::string& name, sql::ColumnId& nextId) {
  project.expressions.push_back(std::move(expression));
  project.ids.push_back(nextId++);
  project.names.push_back(name);
  plan.columnNames.push_back(name);
}

}  // namespace shoal::coordinator
