#include "coordinator/query/insert_select.h"

#include <fmt/format.h>

#include "coordinator/query/distributed_executor.h"
#include "coordinator/query/load_transaction.h"
#include "coordinator/query/row_router.h"
#include "coordinator/query/table_commands.h"

namespace shoal::coordinator {
const PlanFragment* workerRoutedGather(const DistributedPlan& plan, const TableEntry& table) {
  const auto* scan = dynamic_cast<const sql::LogicalScan*>(plan.coordinatorPlan.root.get());
  if (scan == nullptr || !scan->exchangeInput) return nullptr;
  const PlanFragment& producer = plan.producerOf(*scan->exchangeInput);
  const std::vector<sql::PlanColumn> produced = producer.plan.root->outputColumns();
  const std::vector<engine::LogicalType> types = table.columnTypes();
  if (scan->columns.size() != types.size() || produced.size() != types.size()) return nullptr;
  for (size_t i = 0; i < types.size(); ++i) {
    if (scan->columns[i].id != produced[i].id || produced[i].type != types[i]) return nullptr;
  }
  return &producer;
}

uint64_t loadQueryRows(ClusterContext& cluster, std::shared_ptr<const TableEntry> table, const sql::LogicalPlan& query,
                       const PlanExecutor& executor, LoadTransaction::Recorder recorder, Transaction* transaction,
                       const ConflictHandling& conflicts, KeyCheckResult* keyCheck) {
  // A WITH RECURSIVE query's rows are computed first; the statement then reads them.
  std::optional<sql::LogicalPlan> computed = executor.withRecursiveQueriesComputed(query);
  const sql::LogicalPlan& plan = computed ? *computed : query;
  if (auto distributed = executor.distribute(plan)) {
    if (const PlanFragment* gather = workerRoutedGather(*distributed, *table)) {
      LoadTransaction load(cluster, {table}, std::move(recorder), transaction);
      load.handleConflicts(conflicts);
      proto::InsertTargetProto target;
      target.set_exchange_id(gather->exchangeId);
      target.set_load_id(load.loadId());
      *target.mutable_layout() = cluster.workers.layoutOf(*table);
      QueryResult result =
          DistributedExecutor(cluster, executor.parameters(), executor.cancelRequested(), executor.memoryLimitBytes())
              .readingAt(executor.snapshot())
              .run(*distributed, &target);
      load.commit();
      if (keyCheck) *keyCheck = load.takeKeyCheck();
      return result.rowsInserted;
    }
  }
  QueryResult result = executor.run(plan);
  RowRouter router(cluster, table, std::move(recorder), transaction);
  router.load().handleConflicts(conflicts);
  uint64_t rows = 0;
  while (auto chunk = result.nextChunk()) {
    executor.throwIfCancelRequested();
    rows += chunk->size();
    router.write(*chunk);
  }
  router.finish();
  if (keyCheck) *keyCheck = router.load().takeKeyCheck();
  return rows;
}

uint64_t runInsertSelect(ClusterContext& cluster, const sql::InsertSelect& command, const PlanExecutor& executor,
                         Transaction* transaction) {
  auto table = cluster.tables.find(command.table);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  return loadQueryRows(cluster, std::move(table), command.plan, executor, {}, transaction);
}

std::string runCreateTableAs(ClusterContext& cluster, const sql::CreateTableAs& command, const std::string& user,
                             std::vector<Notice>& notices, const PlanExecutor& executor, Transaction* transaction) {
  const bool exists = cluster.tables.find(command.table.name) || cluster.tables.findView(command.table.name);
  runCreateTable(cluster, command.table, user, notices);
  if (exists || !command.withData) return "CREATE TABLE AS";  // IF NOT EXISTS skipped it (with a NOTICE)
  try {
    return fmt::format("SELECT {}", runInsertSelect(cluster, command.insert, executor, transaction));
  } catch (...) {
    std::vector<Notice> ignored;
    runDropTable(cluster, sql::DropTable{{command.table.name}, true}, user, ignored);
    throw;
  }
}

}  // namespace shoal::coordinator
