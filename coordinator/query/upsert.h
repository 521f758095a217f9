#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/transaction/session_transaction.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// Runs the UPDATE statement (SQL text) of ON CONFLICT DO UPDATE, as a statement of the same transaction that
/// reads at commit sequence `readAt`, the key check's (so that a row the check met and another transaction
/// changed since fails with 40001 rather than go unchanged); returns the rows it updated.
using ConflictUpdater = std::function<uint64_t(const std::string& update, uint64_t readAt)>;

/// INSERT ... ON CONFLICT, under `transaction`. The rows go in as a plain INSERT's do, then the workers' unique
/// key check drops those that conflict on the arbiter key. DO NOTHING leaves it at that. DO UPDATE gets them
/// back, and `update` runs the statement's UPDATE of the rows they met, over them as a VALUES list called
/// excluded, in batches. Returns the rows inserted or updated, as INSERT's tag counts them.
uint64_t runUpsertValues(ClusterContext& cluster, const sql::InsertValues& command,
                         std::span<const engine::Value> parameters, Transaction& transaction,
                         const ConflictUpdater& update);
uint64_t runUpsertSelect(ClusterContext& cluster, const sql::InsertSelect& command, const PlanExecutor& executor,
                         Transaction& transaction, const ConflictUpdater& update);

}  // namespace shoal::coordinator
