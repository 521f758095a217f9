#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/transaction/session_transaction.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// Transactional DDL, for one transaction block. A DDL statement in the block changes the catalog at once, as
/// outside a block, but its changes are recorded in the catalog (TableCatalog::beginUncommittedChange) and the
/// storage it stops using (a dropped table's, the old storage of a rewritten one) is kept: ROLLBACK (or ROLLBACK
/// TO a savepoint older than the statement) reverts the changes and drops the storage the statements made; COMMIT
/// keeps them and drops the storage they freed. Other sessions see the changes before COMMIT (PostgreSQL would
/// show them the old catalog); a coordinator that dies in the block reverts them when it restarts.
class BlockCatalogChanges : public CatalogChanges {
 public:
  BlockCatalogChanges(ClusterContext& cluster, uint64_t transactionId)
      : cluster_(cluster), transactionId_(transactionId) {}

  /// Runs one DDL statement of the block and records what it changed, also when it fails. The cluster's DDL
  /// statements run one at a time meanwhile, so that the record holds this statement's changes alone.
  void record(const std::function<void()>& statement);

  size_t count() const override { return freed_.size(); }
  void revertFrom(size_t first) override;
  void keep() override;

 private:
  ClusterContext& cluster_;
  const uint64_t transactionId_;
  /// Per statement: the storage it stopped using, dropped at COMMIT.
  std::vector<std::vector<std::pair<std::shared_ptr<const TableEntry>, uint64_t>>> freed_;
};

/// While one lives on a thread, dropStorageOnWorkers there keeps the storage instead and lists it: a DDL
/// statement of a transaction block frees storage only when the block commits.
class DeferredStorageDrops {
 public:
  DeferredStorageDrops();
  ~DeferredStorageDrops();
  DeferredStorageDrops(const DeferredStorageDrops&) = delete;
  DeferredStorageDrops& operator=(const DeferredStorageDrops&) = delete;

  /// The innermost on this thread, or null.
  static DeferredStorageDrops* current();
  void add(const TableEntry& table, uint64_t storageId) {
    drops_.emplace_back(std::make_shared<const TableEntry>(table), storageId);
  }
  std::vector<std::pair<std::shared_ptr<const TableEntry>, uint64_t>> take() { return std::move(drops_); }

 private:
  DeferredStorageDrops* outer_;
  std::vector<std::pair<std::shared_ptr<const TableEntry>, uint64_t>> drops_;
};

/// Held by a DDL statement outside a block while it runs: a block's statement is recorded alone meanwhile, so
/// that it never takes another session's changes for its own (and reverts them).
std::shared_lock<std::shared_mutex> lockDdlOutsideBlocks();

/// Whether a bound statement changes the catalog (DDL), and so is recorded in a transaction block.
bool changesCatalog(const sql::BoundStatement& statement);

}  // namespace shoal::coordinator
