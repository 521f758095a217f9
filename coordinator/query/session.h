#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/copy_executor.h"
#include "coordinator/query/cursors.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/query/query_result.h"
#include "coordinator/query/session_catalog.h"
#include "coordinator/query/session_settings.h"
#include "coordinator/query/upsert.h"
#include "coordinator/transaction/session_transaction.h"
#include "sql/binder/bound_statement.h"
#include "sql/parser/parsed_script.h"

namespace shoal::coordinator {

/// One parsed and bound statement, ready to run any number of times with
/// different parameters (pgwire's prepared statement).
struct PreparedStatement {
  std::shared_ptr<const sql::ParsedScript> script;
  size_t statementIndex = 0;
  /// nullopt for an empty query string.
  std::optional<sql::BoundStatement> bound;
  /// The columns a SELECT yields (empty for other statements), for Describe.
  std::vector<ResultColumn> resultColumns;
  /// The statement is PREPARE's inner one (script's statement statementIndex is the PREPARE).
  bool insidePrepare = false;
  /// LIMIT $1 or OFFSET $2: the plan's row counts are known only with the values, so each run binds again.
  bool bindsWithParameterValues = false;
  /// PREPARE name AS ...: the statement that EXECUTE name runs.
  std::shared_ptr<const PreparedStatement> prepares;
  /// The search_path it was bound under: run under another, it binds again (its names may now find other
  /// relations), as PostgreSQL plans a cached statement again when search_path changes.
  std::string searchPath;
  /// The TimeZone it was bound under: its casts to and from timestamptz carry it, so under another it
  /// binds again.
  std::string timeZone;
  /// The catalog's version it was bound at (TableCatalog::version): after a GRANT, REVOKE or any other change
  /// it binds again, so that privileges are checked as of each run, as PostgreSQL's executor checks them.
  uint64_t catalogVersion = 0;
};

/// When the session's transaction and statement began (microseconds since 1970 UTC): now() and
/// statement_timestamp(), bound as constants.
struct SessionClock {
  int64_t transactionStart = 0;
  int64_t statementStart = 0;
  /// setseed()'s state: the seed of the next statement's random(), 0 when unseeded (random_values.h).
  uint64_t randomSeed = 0;
};

/// What running one statement produced.
struct StatementOutcome {
  /// The CommandComplete tag, e.g. "BEGIN"; for a result, "SELECT", which pgwire completes with the
  /// number of rows it sent (a streamed result's count is known only then).
  std::string commandTag;
  /// The rows, for statements that return them.
  std::optional<QueryResult> result;
  /// COPY ... TO STDOUT: `result`'s rows go to the client as COPY data in this format, not as DataRows.
  std::optional<sql::CopyFormat> copyOut;
  /// Warnings for the client (pgwire NoticeResponse).
  std::vector<Notice> notices;
  /// Reported settings that changed (pgwire ParameterStatus).
  std::vector<std::pair<std::string, std::string>> parameterChanges;
};

/// The protocol-independent state of one client connection: settings, the
/// transaction block and the running query's cancel flag. Used by one
/// connection thread; only the cancel flag is touched from other threads.
class Session {
 public:
  enum class TransactionState : char { kIdle = 'I', kInBlock = 'T', kFailed = 'E' };

  /// `session`: who connected, to which database, under which backend process id.
  Session(ClusterContext& cluster, sql::SessionInfo session);
  /// Drops the session's temporary tables and views, as PostgreSQL does when a session ends.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Forgets a cancel request that arrived while nothing ran (PostgreSQL ignores those).
  void clearCancelRequest() { cancelRequested_.store(false); }
  /// Where the statements this session runs are recorded (shoal_queries).
  QueryLog& queryLog() { return cluster_.queries; }

  /// Binds statement `index` of `script`. `declaredTypes` are the client's
  /// parameter types (kUnknown: infer).
  std::shared_ptr<const PreparedStatement> prepare(std::shared_ptr<const sql::ParsedScript> script, size_t index,
                                                   std::vector<engine::LogicalType> declaredTypes = {});

  /// Starts COPY FROM STDIN on the client's connection (pgwire's copy-in mode).
  using CopyInOpener = std::function<std::unique_ptr<CopyInput>(size_t numColumns, bool binary)>;

  /// Runs a prepared statement. In a failed transaction block only COMMIT,
  /// ROLLBACK and ROLLBACK TO run; anything else fails with 25P02. Under a
  /// savepoint, statements that write fail with 0A000: nothing could undo them. `openCopyIn` serves
  /// COPY FROM STDIN (without it, such a COPY fails).
  StatementOutcome execute(const PreparedStatement& statement, std::span<const engine::Value> parameters,
                           const CopyInOpener& openCopyIn = {});

  /// The client went away: rolls back the open transaction block, if any.
  void rollBackOpenTransaction();
  /// The statement is over (the client is told it may send the next): its snapshot no longer keeps old row
  /// versions from compaction. A transaction block's stay with the block's statements.
  void releaseStatementSnapshot() { statementSnapshotPin_.reset(); }

  /// Records that a statement failed: a transaction block becomes failed.
  void recordError();

  /// The session's prepared statements, by name, whether made by PREPARE or by the protocol's Parse (they
  /// share one namespace, as in PostgreSQL; "" is the protocol's unnamed statement).
  std::shared_ptr<const PreparedStatement> findPrepared(const std::string& name) const;
  /// Keeps `statement` under `name`; 42P05 when a named one already exists (the unnamed one is replaced).
  void addPrepared(const std::string& name, std::shared_ptr<const PreparedStatement> statement);
  /// Forgets `name`; false when there was none.
  bool dropPrepared(const std::string& name) { return preparedStatements_.erase(name) > 0; }
  /// The columns of open cursor `name` (a portal, to the protocol's Describe), or nullopt.
  std::optional<std::vector<ResultColumn>> cursorColumns(const std::string& name) const {
    return cursors_.columnsOf(name);
  }

  TransactionState transactionState() const { return transactionState_; }
  /// When the current transaction began (microseconds since 1970 UTC): the block's, or the last statement's.
  int64_t transactionStart() const { return clock_.transactionStart; }
  const std::string& user() const { return catalog_.session()->user; }
  /// Whether the session's role is a superuser (now: a role altered since the login counts as it is now).
  bool isSuperuser() const;
  /// Whether the session's user is a superuser or has the privileges of role `roleOid` (pg_read_server_files).
  bool hasPrivilegesOf(int64_t roleOid) const;
  const std::string& database() const { return catalog_.session()->database; }
  /// Runs this session's plans, under its settings (memory limit, recursion limit).
  /// Runs this session's plans, under its settings (memory limit, recursion limit), reading at the statement's
  /// snapshot (with the transaction block's own writes).
  PlanExecutor planExecutor(std::span<const engine::Value> parameters) const {
    PlanExecutor executor(cluster_, systemScan(), parameters, cancelRequested_, settings_.queryMemoryLimitBytes(),
                          settings_.maxRecursiveIterations());
    executor.readingAt(statementSnapshot());
    return executor;
  }
  /// What the running statement reads: taken at its first read (READ COMMITTED), or at the transaction's
  /// first (REPEATABLE READ).
  const proto::SnapshotProto& statementSnapshot() const;
  SystemScanContext systemScan() const {
    return {catalog_.session()->database, [this] { return settings_.pgSettingsRows(); }, user()};
  }
  SessionSettings& settings() { return settings_; }

  /// Asks the running query to stop (from the cancel-request thread).
  void requestCancel() { cancelRequested_.store(true); }
  /// A cancel or statement timeout arrived for the running statement; sending its rows checks it too.
  bool cancelRequested() const { return cancelRequested_.load(); }

 private:
  StatementOutcome runTransaction(const sql::TransactionCommand& command, const std::string& tag);
  StatementOutcome runSet(const sql::SetVariable& command, const std::string& tag);
  /// `outcome` carrying one row of one text column `column` holding `value` (SELECT set_config(...)).
  static StatementOutcome settingResult(StatementOutcome outcome, const std::string& column, const std::string& value);
  StatementOutcome runExplain(const sql::Explain& command, std::span<const engine::Value> parameters);
  StatementOutcome runShow(const sql::ShowVariable& command);
  StatementOutcome runCursorCommand(const sql::DeclareCursor& command, std::span<const engine::Value> parameters);
  StatementOutcome runExecute(const sql::ExecuteStatement& command, std::span<const engine::Value> parameters,
                              const CopyInOpener& openCopyIn);
  /// A statement starts: statement_timestamp() moves, and now() too outside a transaction block.
  void startStatementClock();
  /// Optimizes `prepared`'s plan and records the columns it yields.
  void describe(PreparedStatement& prepared);
  /// `statement` bound again with its parameters' values (LIMIT $1).
  sql::BoundStatement bindWithValues(const PreparedStatement& statement, std::span<const engine::Value> parameters);
  /// Makes the session's temporary schema (pg_temp_N) before its first temporary relation.
  void createTemporarySchema();
  template <class Command>
  StatementOutcome runTableStatement(const Command& command, std::span<const engine::Value> parameters,
                                     const CopyInOpener& openCopyIn);

  ClusterContext& cluster_;
  SessionClock clock_;
  /// What the binder sees: the cluster's relations and this session.
  SessionCatalog catalog_;
  SessionSettings settings_;
  TransactionState transactionState_ = TransactionState::kIdle;
  /// The transaction block's writes and snapshot (null outside a block: each statement is its own).
  std::unique_ptr<Transaction> transaction_;
  mutable std::optional<proto::SnapshotProto> statementSnapshot_;  // reset as each statement starts
  mutable std::shared_ptr<const void> statementSnapshotPin_;       // keeps its row versions from compaction
  /// Sends the rows the transaction block buffered (INSERT ... VALUES) to their workers.
  void flushWriteBuffer();
  /// Runs a statement; DDL in a block is recorded so that ROLLBACK reverts it (catalog_changes.h).
  StatementOutcome runRecordingCatalogChanges(const sql::BoundStatement& bound,
                                              const std::function<StatementOutcome()>& run);
  /// INSERT ... ON CONFLICT (`insert`: runUpsertValues or runUpsertSelect), in the block or in a transaction of
  /// its own that also holds DO UPDATE's UPDATE; returns the rows inserted or updated.
  uint64_t runInsertOnConflict(const std::function<uint64_t(Transaction&, const ConflictUpdater&)>& insert,
                               std::span<const engine::Value> parameters);
  /// Rows a block buffers before it sends them without waiting for a read.
  static constexpr size_t kMaxBufferedRows = 50000;
  /// The isolation level BEGIN or SET TRANSACTION asked for, as a setting value; nullopt: an unknown one (22023).
  static std::optional<IsolationLevel> isolationLevelOf(const std::string& value);
  /// The transaction block's savepoints, oldest first (a name may repeat; the newest one counts).
  struct Savepoint {
    std::string name;
    size_t level = 0;  // the transaction's savepoint level (Transaction::openSavepointLevel)
    uint64_t cursorMark = 0;
    SessionSettings settings;       // as the savepoint found them
    SessionSettings settingsAtEnd;  // what COMMIT would keep then: without SET LOCAL's values
  };
  /// A transaction block's settings as BEGIN found them (ROLLBACK returns to them), and what COMMIT keeps:
  /// the block's SETs without its SET LOCALs.
  std::optional<SessionSettings> settingsAtBegin_;
  std::optional<SessionSettings> settingsAtCommit_;
  /// Ends the block's settings: COMMIT keeps its SETs, ROLLBACK none; the reported ones that change are told.
  void endTransactionSettings(bool commit, StatementOutcome& outcome);
  std::vector<Savepoint> savepoints_;
  /// The newest savepoint called `name`; 3B001 when there is none.
  std::vector<Savepoint>::iterator findSavepoint(const std::string& name);
  std::map<std::string, std::shared_ptr<const PreparedStatement>> preparedStatements_;
  Cursors cursors_;
  std::atomic<bool> cancelRequested_{false};
};

}  // namespace shoal::coordinator
