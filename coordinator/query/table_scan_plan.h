#pragma once

#include <memory>

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

}  // namespace shoal::coordinator
