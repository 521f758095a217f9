// The session's transaction blocks: BEGIN, COMMIT, ROLLBACK and savepoints (runTransaction), the write buffer,
// and INSERT ... ON CONFLICT, which may run an UPDATE inside the statement's transaction.

#include <exception>

#include "coordinator/query/load_transaction.h"
#include "coordinator/query/row_changes.h"
#include "coordinator/query/row_router.h"
#include "coordinator/query/session.h"

namespace shoal::coordinator {

void Session::flushWriteBuffer() {
  transaction_->flushBuffered([&](const std::shared_ptr<const TableEntry>& table, std::vector<engine::Chunk>& chunks) {
    RowRouter router(cluster_, table, {}, transaction_.get());
    for (const auto& chunk : chunks) router.write(chunk);
    router.finish();
  });
}

uint64_t Session::runInsertOnConflict(const std::function<uint64_t(Transaction&, const ConflictUpdater&)>& insert,
                                      std::span<const engine::Value> parameters) {
  // The block's buffered rows go first: the key check must meet them.
  if (transaction_ && transaction_->bufferedRows() > 0) flushWriteBuffer();
  std::unique_ptr<Transaction> own;
  Transaction* transaction = transaction_.get();
  if (!transaction) {
    own = std::make_unique<Transaction>(cluster_.transactions, IsolationLevel::kReadCommitted);
    transaction = own.get();
  }
  std::vector<engine::LogicalType> parameterTypes;
  for (const auto& value : parameters) parameterTypes.push_back(value.type());
  const uint64_t rows = insert(*transaction, [&](const std::string& text, uint64_t readAt) {
    auto keep = cluster_.transactions.pinSnapshot(readAt);  // before beginStatement lets the INSERT's pins go
    auto script = std::make_shared<const sql::ParsedScript>(sql::ParsedScript::parse(text));
    auto update = prepare(script, 0, parameterTypes);
    transaction->beginStatement();  // a statement of its own: a new write id, reading at the key check's snapshot
    statementSnapshot_.emplace();
    statementSnapshot_->set_commit_seq(readAt);
    for (uint64_t write : transaction->writes()) statementSnapshot_->add_own_writes(write);
    statementSnapshotPin_ = std::move(keep);
    return runUpdate(cluster_, std::get<sql::UpdateRows>(update->bound->command), planExecutor(parameters), transaction)
        .rows;
  });
  if (own) recordCommitted(cluster_, own->tablesWritten(), own->commit());
  return rows;
}

void Session::rollBackOpenTransaction() {
  if (auto transaction = std::move(transaction_)) transaction->rollback();
  transactionState_ = TransactionState::kIdle;
}

void Session::recordError() {
  if (transactionState_ == TransactionState::kInBlock) {
    transactionState_ = TransactionState::kFailed;
  }
}

StatementOutcome Session::runTransaction(const sql::TransactionCommand& command, const std::string& tag) {
  StatementOutcome outcome;
  outcome.commandTag = tag;
  switch (command.action) {
    case sql::TransactionAction::kBegin: {
      if (transactionState_ != TransactionState::kIdle) {
        outcome.notices.push_back(Notice::warning("25001", "there is already a transaction in progress"));
        break;
      }
      const std::string requested =
          command.isolation.empty() ? settings_.show("default_transaction_isolation") : command.isolation;
      std::optional<IsolationLevel> isolation = isolationLevelOf(requested);
      if (!isolation) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid isolation level \"{}\"", requested);
      if (requested == "serializable") {
        outcome.notices.push_back(Notice::notice(
            "SERIALIZABLE runs as REPEATABLE READ here: snapshot isolation, with the first committer winning"));
      }
      settingsAtBegin_ = settings_;
      settingsAtCommit_ = settings_;
      settings_.set("transaction_isolation", requested);
      transaction_ = std::make_unique<Transaction>(cluster_.transactions, *isolation);
      transactionState_ = TransactionState::kInBlock;
      break;
    }
    case sql::TransactionAction::kCommit: {
      if (transactionState_ == TransactionState::kIdle) {
        outcome.notices.push_back(Notice::warning("25P01", "there is no transaction in progress"));
      }
      const bool failed = transactionState_ == TransactionState::kFailed;
      if (failed) outcome.commandTag = "ROLLBACK";
      // The rows still in the write buffer go first; if they fail (23505), so does the commit.
      std::exception_ptr sendFailure;
      if (!failed && transaction_ && transaction_->bufferedRows() > 0) {
        try {
          flushWriteBuffer();
        } catch (...) {
          sendFailure = std::current_exception();
        }
      }
      std::unique_ptr<Transaction> transaction = std::move(transaction_);
      // Whatever happens to the commit, the block is over.
      endTransactionSettings(!failed && !sendFailure, outcome);
      cursors_.endTransaction(!failed && !sendFailure);
      transactionState_ = TransactionState::kIdle;
      savepoints_.clear();
      if (sendFailure) {
        transaction->rollback();
        std::rethrow_exception(sendFailure);
      }
      if (transaction && !failed) {
        std::vector<proto::StorageStatistics> statistics = transaction->commit();
        recordCommitted(cluster_, transaction->tablesWritten(), statistics);
      } else if (transaction) {
        transaction->rollback();
      }
      break;
    }
    case sql::TransactionAction::kRollback:
      if (transactionState_ == TransactionState::kIdle) {
        outcome.notices.push_back(Notice::warning("25P01", "there is no transaction in progress"));
      }
      endTransactionSettings(false, outcome);
      cursors_.endTransaction(false);
      transactionState_ = TransactionState::kIdle;
      savepoints_.clear();
      if (auto transaction = std::move(transaction_)) transaction->rollback();
      break;
    case sql::TransactionAction::kSavepoint:
      if (transactionState_ == TransactionState::kIdle) {
        SHOAL_USER_FAIL(SqlState::kNoActiveSqlTransaction, "SAVEPOINT can only be used in transaction blocks");
      }
      savepoints_.push_back({command.savepoint, transaction_->openSavepointLevel(), cursors_.declarationMark(),
                             settings_, *settingsAtCommit_});
      break;
    case sql::TransactionAction::kRelease: {
      if (transactionState_ == TransactionState::kIdle) {
        SHOAL_USER_FAIL(SqlState::kNoActiveSqlTransaction, "RELEASE SAVEPOINT can only be used in transaction blocks");
      }
      auto savepoint = findSavepoint(command.savepoint);
      transaction_->releaseLevel(savepoint->level);
      savepoints_.erase(savepoint, savepoints_.end());
      break;
    }
    case sql::TransactionAction::kRollbackTo: {
      if (transactionState_ == TransactionState::kIdle) {
        SHOAL_USER_FAIL(SqlState::kNoActiveSqlTransaction,
                        "ROLLBACK TO SAVEPOINT can only be used in transaction blocks");
      }
      auto savepoint = findSavepoint(command.savepoint);
      transaction_->rollbackToLevel(savepoint->level);
      cursors_.closeDeclaredSince(savepoint->cursorMark);
      const auto reportedBefore = settings_.startupReport();
      settings_ = savepoint->settings;
      settingsAtCommit_ = savepoint->settingsAtEnd;
      for (const auto& [name, value] : settings_.startupReport()) {
        if (std::find(reportedBefore.begin(), reportedBefore.end(), std::pair{name, value}) == reportedBefore.end()) {
          outcome.parameterChanges.emplace_back(name, value);
        }
      }
      savepoints_.erase(savepoint + 1, savepoints_.end());  // the savepoint itself stays, as in PostgreSQL
      transactionState_ = TransactionState::kInBlock;
      break;
    }
  }
  return outcome;
}

void Session::endTransactionSettings(bool commit, StatementOutcome& outcome) {
  if (!settingsAtBegin_) return;
  const auto reportedBefore = settings_.startupReport();
  settings_ = commit ? *settingsAtCommit_ : *settingsAtBegin_;
  settingsAtBegin_.reset();
  settingsAtCommit_.reset();
  for (const auto& [name, value] : settings_.startupReport()) {
    if (std::find(reportedBefore.begin(), reportedBefore.end(), std::pair{name, value}) == reportedBefore.end()) {
      outcome.parameterChanges.emplace_back(name, value);
    }
  }
}

std::vector<Session::Savepoint>::iterator Session::findSavepoint(const std::string& name) {
  auto newest = std::find_if(savepoints_.rbegin(), savepoints_.rend(),
                             [&](const Savepoint& savepoint) { return savepoint.name == name; });
  if (newest == savepoints_.rend()) {
    SHOAL_USER_FAIL(SqlState::kInvalidSavepointSpecification, "savepoint \"{}\" does not exist", name);
  }
  return std::prev(newest.base());
}

}  // namespace shoal::coordinator
