#pragma once

#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// ALTER TABLE ... ADD COLUMN / DROP COLUMN. Workers know a table's columns by position, so the table is
/// rewritten: a query reads its rows as the new columns (added ones NULL) and loads them into new storage
/// (distributed, each worker routing its rows as INSERT ... SELECT does), and one catalog change then puts the new
/// definition and storage in place of the old, whose storage the workers drop. Atomic: on any error the table
/// stays as it was. The work grows with the table, unlike PostgreSQL's ADD COLUMN without a default.
///
/// Views read their tables' columns by name when they run, so none stops a DROP COLUMN (PostgreSQL's 2BP01): a
/// view that reads a dropped column fails with 42703 at its next use, as one over a renamed column does.
std::string runAlterTableColumns(ClusterContext& cluster, const sql::AlterTableColumns& command,
                                 const std::string& user, std::vector<Notice>& notices, const PlanExecutor& executor);

}  // namespace shoal::coordinator
