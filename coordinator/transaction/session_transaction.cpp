#include "coordinator/transaction/session_transaction.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/status.h"

namespace shoal::coordinator {

Transaction::Transaction(TransactionManager& manager, IsolationLevel isolation)
    : manager_(manager), id_(manager.newId()), isolation_(isolation) {}

Transaction::~Transaction() {
  if (finished_) return;
  try {
    rollback();
  } catch (const std::exception& error) {
    spdlog::warn("rollback of transaction {} failed: {}", id_, error.what());
  }
}

uint64_t Transaction::currentWrite() {
  if (newWrite_ || levels_.back().empty()) {
    levels_.back().push_back(manager_.newId());
    newWrite_ = false;
  }
  return levels_.back().back();
}

void Transaction::touch(const std::vector<std::string>& addresses,
                        const std::vector<std::shared_ptr<const TableEntry>>& tables) {
  participants_.insert(addresses.begin(), addresses.end());
  for (const auto& table : tables) {
    auto same = [&](const auto& known) { return known->storageId == table->storageId; };
    if (std::none_of(tables_.begin(), tables_.end(), same)) tables_.push_back(table);
  }
}

std::vector<uint64_t> Transaction::allWrites() const {
  std::vector<uint64_t> writes;
  for (const auto& level : levels_) writes.insert(writes.end(), level.begin(), level.end());
  return writes;
}

void Transaction::setIsolation(IsolationLevel isolation) {
  if (read_) {
    SHOAL_USER_FAIL(SqlState::kActiveSqlTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query");
  }
  isolation_ = isolation;
}

proto::SnapshotProto Transaction::snapshotForStatement() {
  read_ = true;
  proto::SnapshotProto snapshot;
  if (isolation_ == IsolationLevel::kRepeatableRead) {
    if (!fixedSnapshot_) {
      TransactionManager::PinnedSnapshot pinned = manager_.pinVisibleSnapshot();
      fixedSnapshot_ = pinned.commitSeq;
      pins_.push_back(std::move(pinned.pin));  // for the whole transaction
    }
    snapshot.set_commit_seq(*fixedSnapshot_);
  } else {
    TransactionManager::PinnedSnapshot pinned = manager_.pinVisibleSnapshot();
    snapshot.set_commit_seq(pinned.commitSeq);
    statementPins_.push_back(std::move(pinned.pin));  // until the next statement
  }
  for (uint64_t write : allWrites()) snapshot.add_own_writes(write);
  return snapshot;
}

void Transaction::bufferRows(std::shared_ptr<const TableEntry> table, std::vector<engine::Chunk> chunks) {
  auto same = std::find_if(buffered_.begin(), buffered_.end(),
                           [&](const auto& entry) { return entry.first->storageId == table->storageId; });
  if (same == buffered_.end()) {
    buffered_.emplace_back(std::move(table), std::vector<engine::Chunk>{});
    same = buffered_.end() - 1;
  }
  for (auto& chunk : chunks) {
    bufferedRows_ += chunk.size();
    same->second.push_back(std::move(chunk));
  }
}

void Transaction::flushBuffered(const SendRows& send) {
  auto buffered = std::move(buffered_);
  buffered_.clear();
  bufferedRows_ = 0;
  for (auto& [table, chunks] : buffered) send(table, chunks);
}

size_t Transaction::openSavepointLevel() {
  levels_.emplace_back();
  ddlAtLevel_.push_back(catalogChanges_ ? catalogChanges_->count() : 0);
  return levels_.size() - 1;
}

void Transaction::rollbackToLevel(size_t level) {
  std::vector<uint64_t> dropped;
  for (size_t i = level; i < levels_.size(); ++i) dropped.insert(dropped.end(), levels_[i].begin(), levels_[i].end());
  levels_.resize(level + 1);
  levels_[level].clear();
  ddlAtLevel_.resize(level + 1);
  // Transaction id 0: only these writes go, the transaction stays.
  if (!dropped.empty()) manager_.abort(0, dropped, participants_);
  if (catalogChanges_) catalogChanges_->revertFrom(ddlAtLevel_[level]);
}

void Transaction::releaseLevel(size_t level) {
  if (level == 0 || level >= levels_.size()) return;
  for (size_t i = level; i < levels_.size(); ++i) {
    levels_[level - 1].insert(levels_[level - 1].end(), levels_[i].begin(), levels_[i].end());
  }
  levels_.resize(level);
  ddlAtLevel_.resize(level);
}

std::vector<proto::StorageStatistics> Transaction::commit() {
  finished_ = true;
  auto keepDdl = [&] {
    if (catalogChanges_) catalogChanges_->keep();
  };
  if (participants_.empty()) {
    keepDdl();
    return {};
  }
  try {
    return manager_.commit(id_, allWrites(), participants_, keepDdl);
  } catch (...) {
    // Rows and DDL go together: a commit that failed before its decision reverts the DDL too.
    if (catalogChanges_ && catalogChanges_->count() > 0) {
      try {
        catalogChanges_->revertFrom(0);
      } catch (const std::exception& error) {
        spdlog::warn("reverting the DDL of transaction {} failed: {}", id_, error.what());
      }
    }
    throw;
  }
}

void Transaction::rollback() {
  finished_ = true;
  if (!participants_.empty()) manager_.abort(id_, allWrites(), participants_);
  if (catalogChanges_) catalogChanges_->revertFrom(0);
}

}  // namespace shoal::coordinator
