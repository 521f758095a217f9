#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/catalog/table_catalog.h"
#include "coordinator/transaction/transaction_manager.h"
#include "engine/vector/chunk.h"
#include "proto/storage.pb.h"

namespace shoal::coordinator {

/// What a transaction block's DDL did to the catalog (transactional DDL; the session's side is
/// coordinator/query/catalog_changes.h): ROLLBACK reverts it, ROLLBACK TO reverts what came after the savepoint,
/// COMMIT keeps it once the commit is decided.
class CatalogChanges {
 public:
  virtual ~CatalogChanges() = default;
  /// DDL statements recorded so far.
  virtual size_t count() const = 0;
  /// Reverts the statements from the `first` on, newest first.
  virtual void revertFrom(size_t first) = 0;
  virtual void keep() = 0;
};

/// How a transaction's statements see the others' commits: READ COMMITTED takes a snapshot per statement;
/// REPEATABLE READ one for the whole transaction, at its first statement. (SERIALIZABLE runs as REPEATABLE
/// READ: snapshot isolation.)
enum class IsolationLevel { kReadCommitted, kRepeatableRead };

/// The writes of one transaction and what they touched: the workers it staged rows or deleted rows on, the
/// tables whose row counts its commit changes, and its write ids, one per statement that wrote, by savepoint
/// level (so ROLLBACK TO drops the writes after a savepoint and keeps those before). A transaction block holds one for
/// its whole length; a statement outside a block holds its own. Not thread-safe: one session uses it.
class Transaction {
 public:
  Transaction(TransactionManager& manager, IsolationLevel isolation);
  /// Rolls back what was not committed.
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  uint64_t id() const { return id_; }
  IsolationLevel isolation() const { return isolation_; }
  /// SET TRANSACTION ISOLATION LEVEL: only before the transaction's first read (25001 after it).
  void setIsolation(IsolationLevel isolation);
  /// The write id that the current statement stages rows and deletes rows under.
  uint64_t currentWrite();
  /// A statement starts: its writes get a write id of their own, which its own reads do not see (so that an
  /// UPDATE or INSERT ... SELECT never meets the rows it is writing).
  void beginStatement() {
    newWrite_ = true;
    statementPins_.clear();
  }
  /// The statement's writes reach `addresses`, into `tables`.
  void touch(const std::vector<std::string>& addresses, const std::vector<std::shared_ptr<const TableEntry>>& tables);
  /// What a statement starting now reads: its transaction's own writes, and the commits of the snapshot.
  proto::SnapshotProto snapshotForStatement();

  /// SAVEPOINT: opens a new level; returns it.
  size_t openSavepointLevel();
  /// ROLLBACK TO the savepoint of `level`: drops the writes made at it and after; the level stays open.
  void rollbackToLevel(size_t level);
  /// RELEASE the savepoint of `level`: its writes join the level below.
  void releaseLevel(size_t level);

  /// INSERT ... VALUES in a block: the rows wait here, so that many small inserts reach the workers in one go,
  /// before the transaction next reads, opens a savepoint or commits (the session flushes them).
  void bufferRows(std::shared_ptr<const TableEntry> table, std::vector<engine::Chunk> chunks);
  size_t bufferedRows() const { return bufferedRows_; }
  /// Hands the buffered rows to `send`, one table at a time, and forgets them.
  using SendRows = std::function<void(const std::shared_ptr<const TableEntry>&, std::vector<engine::Chunk>&)>;
  void flushBuffered(const SendRows& send);
  /// ROLLBACK (TO): the buffered rows never reach a worker.
  void dropBuffered() {
    buffered_.clear();
    bufferedRows_ = 0;
  }

  /// The block's DDL record, made by the session at the block's first DDL statement (null before).
  CatalogChanges* catalogChanges() const { return catalogChanges_.get(); }
  void setCatalogChanges(std::unique_ptr<CatalogChanges> changes) { catalogChanges_ = std::move(changes); }

  /// Commits everything (two-phase commit when anything was written), keeping the DDL once the commit is
  /// decided; returns what the tables gained and lost.
  std::vector<proto::StorageStatistics> commit();
  void rollback();
  bool wrote() const { return !participants_.empty(); }
  /// Every write id of the transaction so far, the current statement's included.
  std::vector<uint64_t> writes() const { return allWrites(); }
  const std::vector<std::shared_ptr<const TableEntry>>& tablesWritten() const { return tables_; }

 private:
  std::vector<uint64_t> allWrites() const;

  TransactionManager& manager_;
  const uint64_t id_;
  IsolationLevel isolation_;
  bool read_ = false;                              // a statement took a snapshot
  std::optional<uint64_t> fixedSnapshot_;          // REPEATABLE READ, from its first statement
  std::vector<std::shared_ptr<const void>> pins_;  // the snapshots the transaction reads at, kept from compaction
  std::vector<std::shared_ptr<const void>> statementPins_;  // READ COMMITTED: the current statement's
  std::vector<std::vector<uint64_t>> levels_{{}};           // write ids per savepoint level (the block's own first)
  std::vector<size_t> ddlAtLevel_{0};                       // per level: DDL statements recorded before it opened
  std::unique_ptr<CatalogChanges> catalogChanges_;
  bool newWrite_ = true;  // the current statement has no write id yet
  std::set<std::string> participants_;
  std::vector<std::shared_ptr<const TableEntry>> tables_;
  bool finished_ = false;
  std::vector<std::pair<std::shared_ptr<const TableEntry>, std::vector<engine::Chunk>>> buffered_;
  size_t bufferedRows_ = 0;
};

}  // namespace shoal::coordinator
