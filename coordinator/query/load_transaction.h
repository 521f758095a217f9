#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/unique_key_check.h"
#include "coordinator/transaction/session_transaction.h"

namespace shoal::coordinator {

/// Adds what a committed transaction did to its tables (`statistics`, from the workers' prepare votes) to the
/// catalog's row counts and statistics: TableCatalog::recordLoad, or `recorder` when given.
using LoadRecorder = std::function<void(const std::vector<TableCatalog::LoadedTable>&)>;
void recordCommitted(ClusterContext& cluster, const std::vector<std::shared_ptr<const TableEntry>>& tables,
                     const std::vector<proto::StorageStatistics>& statistics, const LoadRecorder& recorder = {});

/// The rows one statement loads into one or more tables. Workers stage them under a write id as they
/// arrive. Inside a transaction block the rows join the block's transaction: it reads them, and its COMMIT or
/// ROLLBACK decides them. Outside one the load is a transaction of its own, committed by commit() in two
/// phases and aborted on destruction otherwise, so that an error anywhere leaves nothing of it behind.
class LoadTransaction {
 public:
  /// What commit does with the rows the workers committed: by default TableCatalog::recordLoad. ALTER TABLE,
  /// which loads new storage of a table, puts that storage in the table's place instead. An exception from it
  /// fails the commit (the workers' rows stay: the caller drops their storage).
  using Recorder = LoadRecorder;

  /// `enclosing`: the session's transaction block, or null.
  LoadTransaction(ClusterContext& cluster, std::vector<std::shared_ptr<const TableEntry>> tables,
                  Recorder recorder = {}, Transaction* enclosing = nullptr);
  ~LoadTransaction();
  LoadTransaction(const LoadTransaction&) = delete;
  LoadTransaction& operator=(const LoadTransaction&) = delete;

  /// The write id the workers stage the rows under.
  uint64_t loadId() const { return writeId_; }
  /// Tells every worker of the load that it will store its share of about `totalBytes` (PrepareLoad), so that
  /// it can ready memory while the rows are still being produced. A hint: a worker that misses it loads anyway.
  void announce(uint64_t totalBytes);
  /// ON CONFLICT: what commit's unique key check does with conflicting rows (by default it fails).
  void handleConflicts(ConflictHandling handling) { conflicts_ = std::move(handling); }
  /// Rows that need no unique key check: TPC-H's generator makes its keys unique, into tables made for it, and
  /// an UPDATE's new versions that keep their rows' keys take the places of rows that were unique.
  void skipKeyCheck() { keysChecked_ = true; }
  /// Checks the rows against the tables' unique keys (checkUniqueKeys), then, outside a block, commits and
  /// returns the rows the load added, over all tables. Inside one: the rows stay the block's; returns 0.
  uint64_t commit();
  /// What the unique key check dropped (ON CONFLICT), once commit ran.
  KeyCheckResult takeKeyCheck() { return std::move(keyCheck_); }
  void abort();

 private:
  ClusterContext& cluster_;
  std::vector<std::shared_ptr<const TableEntry>> tables_;
  std::set<std::string> addresses_;
  Recorder recorder_;
  std::unique_ptr<Transaction> own_;  // outside a block
  Transaction* transaction_;
  uint64_t writeId_;
  bool finished_ = false;
  ConflictHandling conflicts_;
  bool keysChecked_ = false;
  KeyCheckResult keyCheck_;
};

}  // namespace shoal::coordinator
