#include "coordinator/query/session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>

#include "coordinator/query/alter_table_columns.h"
#include "coordinator/query/catalog_changes.h"
#include "coordinator/query/grant_commands.h"
#include "coordinator/query/insert_select.h"
#include "coordinator/query/load_transaction.h"
#include "coordinator/query/plan_executor.h"
#include "coordinator/query/role_commands.h"
#include "coordinator/query/row_changes.h"
#include "coordinator/query/row_router.h"
#include "coordinator/query/session_registry.h"
#include "coordinator/query/table_commands.h"
#include "coordinator/query/tpch_loader.h"
#include "engine/expression/cast.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/expression/random_values.h"
#include "engine/expression/sql_keywords.h"
#include "sql/binder/binder.h"
#include "sql/binder/type_coercion.h"
#include "sql/optimizer/optimizer.h"
#include "sql/parser/parameter_rebinding.h"
#include "sql/plan/plan_printer.h"

namespace shoal::coordinator {

namespace {

/// `session`, reading its settings from `settings` (which outlives it: both are the Session's).
sql::SessionInfo withSettings(sql::SessionInfo session, const SessionSettings& settings, SessionClock& clock) {
  session.setting = [&settings](std::string_view name) { return settings.show(name); };
  session.transactionStart = [&clock] { return clock.transactionStart; };
  session.statementStart = [&clock] { return clock.statementStart; };
  session.setRandomSeed = [&clock](uint64_t seed) { clock.randomSeed = seed; };
  session.nextRandomSeed = [&clock] {
    const uint64_t seed = clock.randomSeed;
    if (seed != 0) clock.randomSeed = engine::nextRandomSeed(seed);
    return seed;
  };
  return session;
}

/// The statement's result: `plan`'s output columns from `first` on (a row change's RETURNING).
void describeColumnsFrom(const sql::LogicalPlan& plan, size_t first, PreparedStatement& prepared) {
  std::vector<sql::PlanColumn> outputs = plan.root->outputColumns();
  for (size_t i = first; i < outputs.size(); ++i) {
    prepared.resultColumns.push_back(ResultColumn{plan.columnNames[i], outputs[i].type});
  }
}

}  // namespace

Session::Session(ClusterContext& cluster, sql::SessionInfo session)
    : cluster_(cluster), catalog_(cluster.catalog, withSettings(std::move(session), settings_, clock_)) {
  settings_.set("session_authorization", user());
}

Session::~Session() {
  const std::string temporary = sql::temporarySchemaOf(catalog_);
  try {
    rollBackOpenTransaction();  // its DDL first, which may concern the temporary schema
    auto lock = lockDdlOutsideBlocks();
    dropTemporarySchemas(cluster_, {temporary});
  } catch (const std::exception& error) {
    // The coordinator drops what is left at its next start.
    spdlog::warn("session {}: dropping its temporary schema {} failed: {}", catalog_.session()->backendPid, temporary,
                 error.what());
  }
}

void Session::createTemporarySchema() {
  coordinator::createTemporarySchema(cluster_, sql::temporarySchemaOf(catalog_), user());
}

std::shared_ptr<const PreparedStatement> Session::prepare(std::shared_ptr<const sql::ParsedScript> script, size_t index,
                                                          std::vector<engine::LogicalType> declaredTypes) {
  // Planning checks the cancel flag: a cancel that came after the previous statement ended is not this one's.
  cancelRequested_.store(false);
  auto prepared = std::make_shared<PreparedStatement>();
  prepared->script = script;
  prepared->statementIndex = index;
  prepared->searchPath = catalog_.searchPathSetting();
  prepared->timeZone = settings_.show("TimeZone");
  prepared->catalogVersion = cluster_.tables.version();
  if (index >= script->numStatements()) return prepared;
  startStatementClock();
  sql::Binder binder(catalog_);
  prepared->bound = binder.bind(*script, index, std::move(declaredTypes));
  const std::string text(script->statementText(index));
  // A statement that reads the clock (now(), 'today') binds again at each run, with the run's time.
  const bool readsClock = sql::readsTheClock(text);
  const bool rebindsWithValues = sql::rebindsWithParameterValues(text) || readsClock;
  if (auto* prepare = std::get_if<sql::PrepareStatement>(&prepared->bound->command)) {
    auto inner = std::make_shared<PreparedStatement>();
    inner->script = script;
    inner->statementIndex = index;
    inner->bound = std::move(*prepare->statement);
    inner->insidePrepare = true;
    inner->bindsWithParameterValues = rebindsWithValues;
    inner->searchPath = prepared->searchPath;
    inner->catalogVersion = prepared->catalogVersion;
    describe(*inner);
    prepared->prepares = std::move(inner);
  } else if (auto* fetch = std::get_if<sql::FetchCursor>(&prepared->bound->command)) {
    // Describe shows the cursor's columns, if it is open by now (FETCH fails later if not).
    if (auto columns = cursors_.columnsOf(fetch->name); columns && !fetch->move) prepared->resultColumns = *columns;
  } else if (auto* execute = std::get_if<sql::ExecuteStatement>(&prepared->bound->command)) {
    // Describe shows what the prepared statement yields, if it exists by now (EXECUTE fails later if not).
    if (auto target = findPrepared(execute->name)) prepared->resultColumns = target->resultColumns;
  } else {
    prepared->bindsWithParameterValues = readsClock || (rebindsWithValues && !prepared->bound->parameterTypes.empty());
    describe(*prepared);
  }
  return prepared;
}

void Session::describe(PreparedStatement& prepared) {
  if (auto* query = std::get_if<sql::BoundQuery>(&prepared.bound->command)) {
    sql::optimize(query->plan, &cancelRequested_);
    std::vector<sql::PlanColumn> outputs = query->plan.root->outputColumns();
    for (size_t i = 0; i < outputs.size(); ++i) {
      prepared.resultColumns.push_back(ResultColumn{query->plan.columnNames[i], outputs[i].type});
    }
  } else if (auto* insert = std::get_if<sql::InsertSelect>(&prepared.bound->command)) {
    sql::optimize(insert->plan, &cancelRequested_);
  } else if (auto* deletion = std::get_if<sql::DeleteRows>(&prepared.bound->command)) {
    sql::optimize(deletion->plan, &cancelRequested_);
    if (deletion->returning) describeColumnsFrom(deletion->plan, 1, prepared);
  } else if (auto* update = std::get_if<sql::UpdateRows>(&prepared.bound->command)) {
    sql::optimize(update->plan, &cancelRequested_);
    if (update->returning) describeColumnsFrom(update->plan, 1 + update->newValueColumns, prepared);
  } else if (auto* create = std::get_if<sql::CreateTableAs>(&prepared.bound->command)) {
    sql::optimize(create->insert.plan, &cancelRequested_);
  } else if (auto* copyTo = std::get_if<sql::CopyTo>(&prepared.bound->command)) {
    if (!copyTo->path) sql::optimize(copyTo->plan, &cancelRequested_);  // COPY TO a file is refused when it runs
  } else if (auto* explain = std::get_if<sql::Explain>(&prepared.bound->command)) {
    sql::optimize(explain->plan, &cancelRequested_);
    if (!explain->analyze) explain->lines = sql::explainPlan(*explain->plan.root, explain->verbose);
    prepared.resultColumns.push_back(ResultColumn{"QUERY PLAN", engine::LogicalType::text()});
  } else if (auto* show = std::get_if<sql::ShowVariable>(&prepared.bound->command)) {
    if (show->name == "all") {
      for (std::string name : {"name", "setting", "description"}) {
        prepared.resultColumns.push_back(ResultColumn{name, engine::LogicalType::text()});
      }
    } else {
      std::string column = show->name;  // an unknown name fails when the statement runs
      try {
        column = settings_.canonicalName(show->name);
      } catch (const ShoalError&) {
      }
      prepared.resultColumns.push_back(ResultColumn{column, engine::LogicalType::text()});
    }
  } else if (auto* set = std::get_if<sql::SetVariable>(&prepared.bound->command); set && set->resultColumn) {
    prepared.resultColumns.push_back(ResultColumn{*set->resultColumn, engine::LogicalType::text()});
  }
}

sql::BoundStatement Session::bindWithValues(const PreparedStatement& statement,
                                            std::span<const engine::Value> parameters) {
  cancelRequested_.store(false);  // as in prepare(): a late cancel of the previous statement is not this one's
  sql::Binder binder(catalog_);
  const sql::ParsedScript& script = *statement.script;
  sql::BoundStatement bound =
      statement.insidePrepare
          ? binder.bindPrepared(script, statement.statementIndex, statement.bound->parameterTypes, parameters)
          : binder.bind(script, statement.statementIndex, statement.bound->parameterTypes, parameters);
  if (auto* query = std::get_if<sql::BoundQuery>(&bound.command)) sql::optimize(query->plan, &cancelRequested_);
  if (auto* insert = std::get_if<sql::InsertSelect>(&bound.command)) sql::optimize(insert->plan, &cancelRequested_);
  if (auto* deletion = std::get_if<sql::DeleteRows>(&bound.command)) sql::optimize(deletion->plan, &cancelRequested_);
  if (auto* update = std::get_if<sql::UpdateRows>(&bound.command)) sql::optimize(update->plan, &cancelRequested_);
  if (auto* create = std::get_if<sql::CreateTableAs>(&bound.command)) {
    sql::optimize(create->insert.plan, &cancelRequested_);
  }
  if (auto* explain = std::get_if<sql::Explain>(&bound.command)) {
    sql::optimize(explain->plan, &cancelRequested_);
    if (!explain->analyze) explain->lines = sql::explainPlan(*explain->plan.root, explain->verbose);
  }
  return bound;
}

std::shared_ptr<const PreparedStatement> Session::findPrepared(const std::string& name) const {
  auto found = preparedStatements_.find(name);
  return found == preparedStatements_.end() ? nullptr : found->second;
}

void Session::addPrepared(const std::string& name, std::shared_ptr<const PreparedStatement> statement) {
  if (!name.empty() && preparedStatements_.contains(name)) {
    SHOAL_USER_FAIL(SqlState::kDuplicatePreparedStatement, "prepared statement \"{}\" already exists", name);
  }
  preparedStatements_[name] = std::move(statement);
}

const proto::SnapshotProto& Session::statementSnapshot() const {
  if (!statementSnapshot_) {
    if (transaction_) {
      statementSnapshot_ = transaction_->snapshotForStatement();
    } else {
      TransactionManager::PinnedSnapshot pinned = cluster_.transactions.pinVisibleSnapshot();
      statementSnapshot_.emplace();
      statementSnapshot_->set_commit_seq(pinned.commitSeq);
      statementSnapshotPin_ = std::move(pinned.pin);  // until the next statement starts
    }
  }
  return *statementSnapshot_;
}

std::optional<IsolationLevel> Session::isolationLevelOf(const std::string& value) {
  std::string level = value;
  std::transform(level.begin(), level.end(), level.begin(), [](unsigned char c) { return std::tolower(c); });
  if (level == "read uncommitted" || level == "read committed") return IsolationLevel::kReadCommitted;
  if (level == "repeatable read" || level == "serializable") return IsolationLevel::kRepeatableRead;
  return std::nullopt;
}

void Session::startStatementClock() {
  statementSnapshot_.reset();
  clock_.statementStart = SessionRegistry::nowMicros();
  if (transactionState_ == TransactionState::kIdle) clock_.transactionStart = clock_.statementStart;
}

// Defined before execute(), its one caller: clang 15 does not instantiate a member template that a generic
// lambda names before the template's definition.
template <class Command>
StatementOutcome Session::runTableStatement(const Command& command, std::span<const engine::Value> parameters,
                                            const CopyInOpener& openCopyIn) {
  // Rows written join the transaction block (transaction_), if there is one; so does DDL (execute() records it).
  StatementOutcome outcome;
  if constexpr (std::is_same_v<Command, sql::CreateTable>) {
    if (sql::isTemporarySchema(command.name.schema)) createTemporarySchema();
    outcome.commandTag = runCreateTable(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::DropTable>) {
    outcome.commandTag = runDropTable(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::TruncateTable>) {
    if (transaction_) {
      // In a block TRUNCATE deletes every row the block sees, so that ROLLBACK undoes it; outside one it gives
      // the table new, empty storage at once.
      for (const auto& name : command.names) {
        auto script = std::make_shared<const sql::ParsedScript>(sql::ParsedScript::parse(fmt::format(
            "DELETE FROM {}.{}", engine::quoteIdentifier(name.schema), engine::quoteIdentifier(name.name))));
        auto deletion = prepare(script, 0);
        runDelete(cluster_, std::get<sql::DeleteRows>(deletion->bound->command), planExecutor(parameters),
                  transaction_.get());
      }
      outcome.commandTag = "TRUNCATE TABLE";
    } else {
      outcome.commandTag = runTruncateTable(cluster_, command);
    }
  } else if constexpr (std::is_same_v<Command, sql::RenameTable>) {
    outcome.commandTag = runRenameTable(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::AlterTableColumns>) {
    outcome.commandTag = runAlterTableColumns(cluster_, command, user(), outcome.notices, planExecutor(parameters));
  } else if constexpr (std::is_same_v<Command, sql::CreateSchema>) {
    outcome.commandTag = runCreateSchema(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::CreateRole>) {
    outcome.commandTag = runCreateRole(cluster_, command, user());
  } else if constexpr (std::is_same_v<Command, sql::AlterRole>) {
    outcome.commandTag = runAlterRole(cluster_, command, user());
  } else if constexpr (std::is_same_v<Command, sql::DropRole>) {
    outcome.commandTag = runDropRole(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::GrantPrivileges>) {
    outcome.commandTag = runGrantPrivileges(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::GrantRoles>) {
    outcome.commandTag = runGrantRoles(cluster_, command, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::DropSchema>) {
    outcome.commandTag = runDropSchema(cluster_, command, catalog_, user(), outcome.notices);
  } else if constexpr (std::is_same_v<Command, sql::InsertValues>) {
    if (command.onConflict) {
      outcome.commandTag =
          fmt::format("INSERT 0 {}", runInsertOnConflict(
                                         [&](Transaction& transaction, const ConflictUpdater& update) {
                                           return runUpsertValues(cluster_, command, parameters, transaction, update);
                                         },
                                         parameters));
    } else if (transaction_) {
      // In a block the rows wait in the transaction's write buffer (flushed before its next read).
      std::shared_ptr<const TableEntry> table;
      std::vector<engine::Chunk> chunks = insertValuesRows(cluster_, command, parameters, table);
      transaction_->bufferRows(std::move(table), std::move(chunks));
      if (transaction_->bufferedRows() >= kMaxBufferedRows) flushWriteBuffer();
      outcome.commandTag = fmt::format("INSERT 0 {}", command.rows.size());
    } else {
      outcome.commandTag = runInsertValues(cluster_, command, parameters);
    }
  } else if constexpr (std::is_same_v<Command, sql::InsertSelect>) {
    if (command.onConflict) {
      outcome.commandTag = fmt::format(
          "INSERT 0 {}", runInsertOnConflict(
                             [&](Transaction& transaction, const ConflictUpdater& update) {
                               return runUpsertSelect(cluster_, command, planExecutor(parameters), transaction, update);
                             },
                             parameters));
    } else {
      outcome.commandTag =
          fmt::format("INSERT 0 {}", runInsertSelect(cluster_, command, planExecutor(parameters), transaction_.get()));
    }
  } else if constexpr (std::is_same_v<Command, sql::DeleteRows> || std::is_same_v<Command, sql::UpdateRows>) {
    RowChangeOutcome change;
    if constexpr (std::is_same_v<Command, sql::DeleteRows>) {
      change = runDelete(cluster_, command, planExecutor(parameters), transaction_.get());
    } else {
      change = runUpdate(cluster_, command, planExecutor(parameters), transaction_.get());
    }
    outcome.commandTag = std::move(change.commandTag);
    outcome.result = std::move(change.returned);
  } else if constexpr (std::is_same_v<Command, sql::CreateTableAs>) {
    if (sql::isTemporarySchema(command.table.name.schema)) createTemporarySchema();
    outcome.commandTag =
        runCreateTableAs(cluster_, command, user(), outcome.notices, planExecutor(parameters), transaction_.get());
  } else if constexpr (std::is_same_v<Command, sql::CopyFrom>) {
    std::unique_ptr<CopyInput> input;
    if (command.path) {
      // As on PostgreSQL: the coordinator's files are a superuser's to read, so that no login can read them
      // through COPY (or learn whether they exist).
      if (!hasPrivilegesOf(kPgReadServerFilesOid)) {
        throw ShoalError(
            Status(SqlState::kInsufficientPrivilege,
                   "must be superuser or have privileges of the pg_read_server_files role to COPY from a file")
                .withHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone."));
      }
      input = openCopyFile(*command.path);
    } else {
      if (!openCopyIn) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "COPY FROM STDIN is not possible here");
      auto table = cluster_.tables.find(command.table);
      input = openCopyIn(!command.columns.empty() ? command.columns.size()
                         : table                  ? table->columns.size()
                                                  : 0,
                         command.format.kind == sql::CopyFormat::Kind::kBinary);
    }
    outcome.commandTag =
        runCopy(cluster_, command, *input, cancelRequested_, settings_.queryMemoryLimitBytes(), transaction_.get());
  } else {
    static_assert(std::is_same_v<Command, sql::TpchLoad>);
    // It drops and recreates the eight TPC-H tables, whoever made them.
    if (!isSuperuser())
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: tpch_load needs a superuser");
    outcome.commandTag =
        runTpchLoad(cluster_, command.scaleFactor, command.generators, command.chunked, user(), outcome.notices);
  }
  return outcome;
}

StatementOutcome Session::execute(const PreparedStatement& statement, std::span<const engine::Value> parameters,
                                  const CopyInOpener& openCopyIn) {
  SHOAL_CHECK(statement.bound.has_value(), "execute of an empty statement");
  std::optional<sql::BoundStatement> rebound;
  startStatementClock();
  const bool otherSearchPath = statement.searchPath != catalog_.searchPathSetting();
  const bool otherTimeZone = statement.timeZone != settings_.show("TimeZone");
  const bool otherCatalog = statement.catalogVersion != cluster_.tables.version();
  if (statement.bindsWithParameterValues || otherSearchPath || otherTimeZone || otherCatalog) {
    rebound = bindWithValues(statement, parameters);
  }
  if ((otherSearchPath || otherCatalog) && !statement.resultColumns.empty()) {
    // The client was told the result's columns when it prepared the statement.
    const auto* query = std::get_if<sql::BoundQuery>(&rebound->command);
    const auto outputs = query ? query->plan.root->outputColumns() : std::vector<sql::PlanColumn>{};
    bool same = outputs.size() == statement.resultColumns.size();
    for (size_t i = 0; same && i < outputs.size(); ++i) same = outputs[i].type == statement.resultColumns[i].type;
    if (!same && query) SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "cached plan must not change result type");
  }
  const sql::BoundStatement& bound = rebound ? *rebound : *statement.bound;
  bool endsFailure = false;
  if (auto* transaction = std::get_if<sql::TransactionCommand>(&bound.command)) {
    endsFailure = transaction->action == sql::TransactionAction::kCommit ||
                  transaction->action == sql::TransactionAction::kRollback ||
                  transaction->action == sql::TransactionAction::kRollbackTo;
  }
  if (transactionState_ == TransactionState::kFailed && !endsFailure) {
    SHOAL_USER_FAIL(SqlState::kInFailedTransaction,
                    "current transaction is aborted, commands ignored until end of transaction block");
  }
  if (transaction_ && transaction_->bufferedRows() > 0 && !std::holds_alternative<sql::InsertValues>(bound.command)) {
    const auto* transaction = std::get_if<sql::TransactionCommand>(&bound.command);
    const bool rollsBack = transaction && (transaction->action == sql::TransactionAction::kRollback ||
                                           transaction->action == sql::TransactionAction::kRollbackTo);
    const bool commits = transaction && transaction->action == sql::TransactionAction::kCommit;
    // Rows buffered since the last savepoint: ROLLBACK TO any savepoint drops them all. COMMIT sends them
    // itself (runTransaction), so that a duplicate key among them fails the commit and ends the block.
    if (rollsBack) {
      transaction_->dropBuffered();
    } else if (!commits) {
      flushWriteBuffer();
    }
  }
  if (transaction_) transaction_->beginStatement();
  cancelRequested_.store(false);
  const auto run = [&]() -> StatementOutcome {
    return std::visit(
        [&](const auto& command) -> StatementOutcome {
          using Command = std::decay_t<decltype(command)>;
          if constexpr (std::is_same_v<Command, sql::BoundQuery>) {
            StatementOutcome outcome;
            outcome.result = planExecutor(parameters).run(command.plan);
            outcome.commandTag = "SELECT";  // pgwire adds the count once it has sent the (streamed) rows
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::CopyTo>) {
            if (command.path) {
              // Writing the coordinator's files would let a login replace them: PostgreSQL keeps it to
              // superusers and pg_write_server_files, and Shoal does not write server files at all yet.
              if (!hasPrivilegesOf(kPgWriteServerFilesOid)) {
                throw ShoalError(
                    Status(SqlState::kInsufficientPrivilege,
                           "must be superuser or have privileges of the pg_write_server_files role to COPY to a file")
                        .withHint(
                            "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone."));
              }
              SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                              "COPY TO a file is not supported: COPY TO STDOUT, or psql's \\copy, writes the client's");
            }
            StatementOutcome outcome;
            outcome.result = planExecutor(parameters).run(command.plan);
            outcome.copyOut = command.format;
            outcome.commandTag = "COPY";  // pgwire adds the count once it has sent the rows
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::Explain>) {
            return runExplain(command, parameters);
          } else if constexpr (std::is_same_v<Command, sql::CreateView>) {
            ViewEntry view;
            view.schema = command.name.schema;
            view.name = command.name.name;
            view.statement = command.query;
            view.columnNames = command.columnNames;
            view.searchPath = command.searchPath;
            if (command.orReplace) cluster_.tables.requireRelationOwner(user(), command.name, true);
            view.access.owner = cluster_.tables.findRole(user()).value_or(RoleEntry{}).oid;
            StatementOutcome outcome;
            if (sql::isTemporarySchema(view.schema)) createTemporarySchema();
            if (command.becameTemporary) {
              outcome.notices.push_back(Notice::notice(fmt::format("view \"{}\" will be a temporary view", view.name)));
            }
            cluster_.tables.createView(std::move(view), command.orReplace);
            outcome.commandTag = bound.commandTag;
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::Deallocate>) {
            if (command.name.empty()) {
              preparedStatements_.clear();
            } else if (!dropPrepared(command.name)) {
              SHOAL_USER_FAIL(SqlState::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist",
                              command.name);
            }
            StatementOutcome outcome;
            outcome.commandTag = bound.commandTag;
            if (command.resetSettings) {
              settings_.resetAll();
              for (auto& [name, value] : settings_.startupReport()) outcome.parameterChanges.emplace_back(name, value);
            }
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::DropView>) {
            StatementOutcome outcome;
            for (const auto& name : command.names) cluster_.tables.requireRelationOwner(user(), name, true);
            for (const auto& name : command.names) {
              if (!cluster_.tables.dropView(name, command.ifExists)) {
                outcome.notices.push_back(
                    Notice::notice(fmt::format("view \"{}\" does not exist, skipping", name.name)));
              }
            }
            outcome.commandTag = bound.commandTag;
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::CommentOn>) {
            if (command.onSchema) {
              cluster_.tables.requireSchemaOwner(user(), command.relation.schema);
              cluster_.tables.setSchemaComment(command.relation.schema, command.text);
            } else {
              cluster_.tables.requireRelationOwner(user(), command.relation,
                                                   cluster_.tables.find(command.relation) == nullptr);
              cluster_.tables.setComment(command.relation, command.column, command.text);
            }
            StatementOutcome outcome;
            outcome.commandTag = bound.commandTag;
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::TransactionCommand>) {
            return runTransaction(command, bound.commandTag);
          } else if constexpr (std::is_same_v<Command, sql::SetVariable>) {
            return runSet(command, bound.commandTag);
          } else if constexpr (std::is_same_v<Command, sql::ShowVariable>) {
            return runShow(command);
          } else if constexpr (std::is_same_v<Command, sql::PrepareStatement>) {
            addPrepared(command.name, statement.prepares);
            StatementOutcome outcome;
            outcome.commandTag = bound.commandTag;
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::ExecuteStatement>) {
            return runExecute(command, parameters, openCopyIn);
          } else if constexpr (std::is_same_v<Command, sql::DeclareCursor>) {
            return runCursorCommand(command, parameters);
          } else if constexpr (std::is_same_v<Command, sql::FetchCursor>) {
            StatementOutcome outcome;
            if (command.move) {
              outcome.commandTag = "MOVE " + std::to_string(cursors_.move(command.name, command.count));
            } else {
              outcome.result = cursors_.fetch(command.name, command.count);
              outcome.commandTag = "FETCH";  // pgwire adds the count once it has sent the rows
            }
            return outcome;
          } else if constexpr (std::is_same_v<Command, sql::CloseCursor>) {
            cursors_.close(command.name);
            StatementOutcome outcome;
            outcome.commandTag = bound.commandTag;
            return outcome;
          } else {
            return runTableStatement(command, parameters, openCopyIn);
          }
        },
        bound.command);
  };
  return runRecordingCatalogChanges(bound, run);
}

StatementOutcome Session::runRecordingCatalogChanges(const sql::BoundStatement& bound,
                                                     const std::function<StatementOutcome()>& run) {
  if (!changesCatalog(bound)) return run();
  if (!transaction_) {
    auto lock = lockDdlOutsideBlocks();
    return run();
  }
  if (!transaction_->catalogChanges()) {
    transaction_->setCatalogChanges(std::make_unique<BlockCatalogChanges>(cluster_, transaction_->id()));
  }
  StatementOutcome outcome;
  // The session made it, above: it is a BlockCatalogChanges.
  static_cast<BlockCatalogChanges*>(transaction_->catalogChanges())->record([&] { outcome = run(); });
  return outcome;
}

bool Session::isSuperuser() const {
  const auto role = cluster_.tables.findRole(user());
  return role && role->superuser;
}

bool Session::hasPrivilegesOf(int64_t roleOid) const {
  const RoleCatalog roles = cluster_.tables.roleCatalog();
  const RoleEntry* self = roles.find(user());
  return self != nullptr && (self->superuser || rolesActingAs(roles, *self).contains(roleOid));
}

StatementOutcome Session::runSet(const sql::SetVariable& command, const std::string& tag) {
  StatementOutcome outcome;
  outcome.commandTag = tag;
  if (command.name.empty() && !command.resultColumn) {
    settings_.resetAll();
    if (settingsAtCommit_ && !command.local) settingsAtCommit_->resetAll();
    for (auto& [name, value] : settings_.startupReport()) {
      outcome.parameterChanges.emplace_back(name, value);
    }
    return outcome;
  }
  if (command.name == "transaction_isolation" && command.value) {
    std::optional<IsolationLevel> level = isolationLevelOf(*command.value);
    if (!level) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid isolation level \"{}\"", *command.value);
    if (!transaction_) {
      // As PostgreSQL: outside a block there is no transaction to set.
      outcome.notices.push_back(Notice::warning("25P01", "SET TRANSACTION can only be used in transaction blocks"));
      return outcome;
    }
    transaction_->setIsolation(*level);
  }
  if (command.local && transactionState_ == TransactionState::kIdle) {
    // Until the transaction ends, which outside a block is this statement's end.
    if (!command.resultColumn) {
      outcome.notices.push_back(Notice::warning("25P01", "SET LOCAL can only be used in transaction blocks"));
      return outcome;
    }
    const SessionSettings before = settings_;
    settings_.set(command.name, command.value);
    const std::string applied = settings_.show(command.name);
    settings_ = before;
    return settingResult(std::move(outcome), *command.resultColumn, applied);
  }
  if (auto reported = settings_.set(command.name, command.value)) {
    outcome.parameterChanges.emplace_back(*reported, settings_.show(command.name));
  }
  // In a block, a plain SET is also what COMMIT keeps; SET LOCAL's value ends with the block.
  if (settingsAtCommit_ && !command.local) settingsAtCommit_->set(command.name, command.value);
  if (command.resultColumn)
    return settingResult(std::move(outcome), *command.resultColumn, settings_.show(command.name));
  return outcome;
}

StatementOutcome Session::settingResult(StatementOutcome outcome, const std::string& column, const std::string& value) {
  // What SELECT set_config(...) returns: one row of one text column.
  QueryResult result;
  result.columns.push_back(ResultColumn{column, engine::LogicalType::text()});
  engine::Vector values(engine::LogicalType::text(), 1);
  values.setString(0, value);
  result.chunks.emplace_back(std::vector<engine::Vector>{}, 1);
  result.chunks.back().addColumn(std::move(values));
  outcome.result = std::move(result);
  outcome.commandTag = "SELECT";
  return outcome;
}

StatementOutcome Session::runExplain(const sql::Explain& command, std::span<const engine::Value> parameters) {
  if (command.analyze) {
    // Run the query on the dispatcher, counting each operator's rows, and show them beside the estimates.
    std::map<const sql::LogicalOperator*, uint64_t> actualRows;
    planExecutor(parameters).run(command.plan, &actualRows);
    sql::Explain analyzed{sql::LogicalPlan{}, command.verbose, false,
                          sql::explainPlan(*command.plan.root, command.verbose, &actualRows), std::nullopt};
    return runExplain(analyzed, parameters);
  }
  std::vector<std::string> text = command.lines;
  bool routedOnWorkers = false;
  if (command.plan.root) {
    // A plan that runs over several workers shows its fragments, their exchanges and where each one runs.
    PlanExecutor executor = planExecutor(parameters);
    if (auto distributed = executor.distribute(command.plan)) {
      text = distributed->explain(command.verbose);
      auto table = command.insertInto ? cluster_.tables.find(*command.insertInto) : nullptr;
      routedOnWorkers = table && workerRoutedGather(*distributed, *table) != nullptr;
    }
  }
  if (command.insertInto) {
    for (auto& line : text) line.insert(0, "  ");
    text.insert(text.begin(), {fmt::format("Insert on {}", command.insertInto->name),
                               routedOnWorkers ? "  rows routed to the workers that own them by each worker"
                                               : "  rows routed to the workers that own them from the coordinator"});
  }
  StatementOutcome outcome;
  engine::Vector lines(engine::LogicalType::text(), text.size());
  for (size_t i = 0; i < text.size(); ++i) lines.setString(i, text[i]);
  QueryResult result;
  result.columns.push_back(ResultColumn{"QUERY PLAN", engine::LogicalType::text()});
  result.chunks.emplace_back(std::vector<engine::Vector>{}, text.size());
  result.chunks.back().addColumn(std::move(lines));
  outcome.result = std::move(result);
  outcome.commandTag = "EXPLAIN";
  return outcome;
}

StatementOutcome Session::runCursorCommand(const sql::DeclareCursor& command,
                                           std::span<const engine::Value> parameters) {
  if (transactionState_ == TransactionState::kIdle && !command.withHold) {
    SHOAL_USER_FAIL(SqlState::kNoActiveSqlTransaction, "DECLARE CURSOR can only be used in transaction blocks");
  }
  // The rows stream from the workers as FETCH takes them (a distributed plan's are gathered first).
  cursors_.declare(command.name, planExecutor(parameters).run(command.plan), command.withHold,
                   transactionState_ != TransactionState::kIdle);
  StatementOutcome outcome;
  outcome.commandTag = "DECLARE CURSOR";
  return outcome;
}

StatementOutcome Session::runExecute(const sql::ExecuteStatement& command, std::span<const engine::Value> parameters,
                                     const CopyInOpener& openCopyIn) {
  std::shared_ptr<const PreparedStatement> target = findPrepared(command.name);
  if (!target || command.name.empty()) {
    SHOAL_USER_FAIL(SqlState::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", command.name);
  }
  const std::vector<engine::LogicalType>& types = target->bound->parameterTypes;
  if (command.arguments.size() != types.size()) {
    throw ShoalError(
        Status(SqlState::kSyntaxError,
               fmt::format("wrong number of parameters for prepared statement \"{}\"", command.name))
            .withDetail(fmt::format("Expected {} parameters but got {}.", types.size(), command.arguments.size())));
  }
  // Each argument is computed once, then cast to its parameter's type as an assignment would be.
  std::vector<engine::Value> values;
  engine::ExpressionEvaluator evaluator(parameters);
  for (size_t i = 0; i < types.size(); ++i) {
    engine::Vector value = evaluator.evaluate(*command.arguments[i], engine::Chunk(1));
    if (!(value.type() == types[i])) {
      if (!sql::assignmentCastExists(value.type(), types[i])) {
        throw ShoalError(Status(SqlState::kDatatypeMismatch,
                                fmt::format("parameter ${} of type {} cannot be coerced to the expected type {}", i + 1,
                                            value.type().toString(), types[i].toString()))
                             .withHint("You will need to rewrite or cast the expression."));
      }
      value = engine::castVector(value, types[i], &settings_.timeZone());
    }
    values.push_back(value.getValue(0));
  }
  return execute(*target, values, openCopyIn);
}

StatementOutcome Session::runShow(const sql::ShowVariable& command) {
  StatementOutcome outcome;
  std::vector<std::array<std::string, 3>> rows;
  QueryResult result;
  if (command.name == "all") {
    rows = settings_.showAll();
    for (std::string name : {"name", "setting", "description"}) {
      result.columns.push_back(ResultColumn{name, engine::LogicalType::text()});
    }
  } else {
    rows.push_back({settings_.show(command.name)});
    result.columns.push_back(ResultColumn{settings_.canonicalName(command.name), engine::LogicalType::text()});
  }
  result.chunks.emplace_back(std::vector<engine::Vector>{}, rows.size());
  for (size_t column = 0; column < result.columns.size(); ++column) {
    engine::Vector values(engine::LogicalType::text(), rows.size());
    for (size_t row = 0; row < rows.size(); ++row) values.setString(row, rows[row][column]);
    result.chunks.back().addColumn(std::move(values));
  }
  outcome.result = std::move(result);
  outcome.commandTag = "SHOW";
  return outcome;
}

}  // namespace shoal::coordinator
