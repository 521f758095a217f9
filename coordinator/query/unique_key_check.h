#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/transaction/session_transaction.h"
#include "engine/vector/chunk.h"
#include "worker/storage/unique_keys.h"

namespace shoal::coordinator {

/// Whether the workers can enforce a unique key over `keyColumns` of a table distributed as `distribution`:
/// rows with equal keys must land on one worker (hash on a subset of the key's columns), or every worker must
/// hold every row (replicated). Otherwise fails with 0A000, saying how to distribute the table instead.
void requireEnforceableKey(const std::string& tableName, const std::vector<std::string>& columnNames,
                           const std::vector<size_t>& keyColumns, Distribution distribution,
                           const std::vector<size_t>& distributionColumns, std::string_view constraintKind);

/// The unique keys of `table` the workers enforce: its primary key, named as PostgreSQL names its
/// constraint ("<table>_pkey"), and its UNIQUE constraints; not a key made before keys were enforced whose
/// distribution cannot enforce it.
std::vector<worker::UniqueKey> enforcedKeys(const TableEntry& table);

/// What one statement does about conflicts: fail (the default), or ON CONFLICT's skip or report on the keys
/// marked arbiter.
struct ConflictHandling {
  worker::ConflictAction action = worker::ConflictAction::kFail;
  std::vector<worker::UniqueKey> keys;  // with their arbiter flags; empty: enforcedKeys, none an arbiter
};

struct KeyCheckResult {
  uint64_t snapshotSeq = 0;  // the commit sequence the check read at (DO UPDATE reads there too)
  uint64_t rowsSkipped = 0;
  std::vector<engine::Chunk> reported;  // kReport: the rows dropped, every column of the table
};

/// Has every worker that holds a partition of `table` check the rows write `writeId` of `transaction`
/// staged there (CheckUniqueKeys), once they all are. Fails with the first worker's error (23505, 40001, 21000).
KeyCheckResult checkUniqueKeys(ClusterContext& cluster, const TableEntry& table, Transaction& transaction,
                               uint64_t writeId, const ConflictHandling& handling = {});

}  // namespace shoal::coordinator
