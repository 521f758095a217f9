#pragma once

#include <optional>
#include <string>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

class Transaction;

/// What DELETE or UPDATE did: its CommandComplete tag ("DELETE 3"), and with RETURNING the rows (the tag is then
/// "DELETE", pgwire adds the count of rows it sent).
struct RowChangeOutcome {
  std::string commandTag;
  uint64_t rows = 0;  // changed
  std::optional<QueryResult> returned;
};

/// DELETE and UPDATE, distributed: the statement's plan finds the rows to change with their row ids (which
/// worker holds each, where), reading at the statement's snapshot; each worker then deletes its own rows by id,
/// under the transaction's write, where another transaction's change to the same row fails the statement with
/// 40001 (first writer wins). UPDATE also stages each row's new version, routed to the worker its distribution
/// key names (it moves when the key changes). A row that a join matches more than once changes once.
/// `transaction`: the session's block, or null (the statement commits on its own).
RowChangeOutcome runDelete(ClusterContext& cluster, const sql::DeleteRows& command, const PlanExecutor& executor,
                           Transaction* transaction);
RowChangeOutcome runUpdate(ClusterContext& cluster, const sql::UpdateRows& command, const PlanExecutor& executor,
                           Transaction* transaction);

}  // namespace shoal::coordinator
