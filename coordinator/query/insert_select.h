#pragma once

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/load_transaction.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// The gather of `plan` whose rows the workers route into `table` themselves: the one gather that the
/// coordinator's part of the plan passes on unchanged, of the table's column types. Null when the coordinator
/// does more than that.
const PlanFragment* workerRoutedGather(const DistributedPlan& plan, const TableEntry& table);

/// INSERT INTO t SELECT ...: one all-or-nothing load of the query's rows. When the query runs distributed and its
/// rows would only be gathered to the coordinator, each worker routes the rows it computes straight to the
/// workers that own them. Any other plan (one worker, work left on the coordinator such as ORDER BY or a final
/// aggregate) brings its rows to the coordinator, which routes them as INSERT ... VALUES does. Returns the rows
/// inserted.
/// `transaction`: the session's transaction block the rows join, or null.
uint64_t runInsertSelect(ClusterContext& cluster, const sql::InsertSelect& command, const PlanExecutor& executor,
                         Transaction* transaction = nullptr);

/// The rows of `plan` (whose columns are `table`'s) loaded into `table` in one all-or-nothing load, as
/// runInsertSelect loads them; `recorder` (LoadTransaction's) records the committed rows. Returns the rows loaded.
/// `conflicts`: ON CONFLICT's handling, whose outcome goes to `keyCheck`.
uint64_t loadQueryRows(ClusterContext& cluster, std::shared_ptr<const TableEntry> table, const sql::LogicalPlan& plan,
                       const PlanExecutor& executor, LoadTransaction::Recorder recorder = {},
                       Transaction* transaction = nullptr, const ConflictHandling& conflicts = {},
                       KeyCheckResult* keyCheck = nullptr);

/// CREATE TABLE ... AS query and SELECT ... INTO: creates the table, then fills it as INSERT ... SELECT does; when
/// filling fails, the table goes again. Returns the command tag ("SELECT n", as PostgreSQL's).
std::string runCreateTableAs(ClusterContext& cluster, const sql::CreateTableAs& command, const std::string& user,
                             std::vector<Notice>& notices, const PlanExecutor& executor,
                             Transaction* transaction = nullptr);

}  // namespace shoal::coordinator
