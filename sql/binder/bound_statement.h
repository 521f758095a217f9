#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// An aggregate call: COUNT(*), COUNT(x), SUM, AVG, MIN or MAX over an
/// expression of the scanned table's columns.
struct BoundAggregate {
  engine::AggregateFunction function;
  engine::ExpressionPtr argument;  // null for COUNT(*)
  engine::LogicalType resultType;
};

/// SELECT over at most one table, with column indexes into the table: the
/// shape the coordinator executes until the engine issue runs whole plans.
/// Lowered from an optimized LogicalPlan (sql/plan/single_table_lowering.h).
struct BoundSelect {
  /// The table scanned, or none for a SELECT without FROM (one row, no columns).
  std::optional<TableDescription> from;
  /// Filter over the table's columns; null when there is no WHERE.
  engine::ExpressionPtr where;
  /// When non-empty the query aggregates: one output row, and the projections
  /// read the aggregates' results (column i is aggregates[i]), not the table.
  std::vector<BoundAggregate> aggregates;
  std::vector<engine::ExpressionPtr> projections;
  std::vector<std::string> columnNames;
  std::optional<int64_t> limit;
  int64_t offset = 0;
};

/// A query (SELECT, UNION, WITH ...), bound into a logical plan. The session
/// optimizes it when it prepares the statement.
struct BoundQuery {
  LogicalPlan plan;
  /// The optimized plan lowered to what the coordinator executes (set by the session).
  std::optional<BoundSelect> executable;
};

/// EXPLAIN [VERBOSE] query.
struct Explain {
  LogicalPlan plan;
  bool verbose = false;
  /// EXPLAIN ANALYZE: run the query and show each operator's actual rows.
  bool analyze = false;
  /// The text EXPLAIN returns, one row per line (set by the session once it has optimized the plan).
  std::vector<std::string> lines;
  /// EXPLAIN INSERT INTO t SELECT ...: t (the plan is the insert's).
  std::optional<QualifiedName> insertInto;
};

/// CREATE [OR REPLACE] VIEW name [(columns)] AS query: checked by binding the query once.
struct CreateView {
  QualifiedName name;
  /// The search_path the view's query is bound with, now and at each use.
  std::string searchPath;
  /// The whole CREATE VIEW statement, which the binder parses again at each use.
  std::string query;
  std::vector<std::string> columnNames;
  bool orReplace = false;
  /// Not declared TEMP, but temporary since it reads a temporary relation (the session tells the client so).
  bool becameTemporary = false;
};

/// DROP VIEW: each name with the schema the search path found it in (or as written, when there is none).
struct DropView {
  std::vector<QualifiedName> names;
  bool ifExists = false;
};

/// CREATE SCHEMA [IF NOT EXISTS] name.
struct CreateSchema {
  std::string name;
  bool ifNotExists = false;
  /// AUTHORIZATION role: who owns it; empty: the session's user.
  std::string owner;
};

/// The attributes CREATE ROLE and ALTER ROLE name; those left out are nullopt.
struct RoleOptions {
  std::optional<bool> superuser, login, createDb, createRole, inherit;
  /// PASSWORD 'text' (the text, or a SCRAM verifier) or PASSWORD NULL (nullopt inside).
  std::optional<std::optional<std::string>> password;
};

/// CREATE ROLE / CREATE USER (which can log in unless told NOLOGIN) name [WITH] options.
struct CreateRole {
  std::string name;
  RoleOptions options;
};

/// ALTER ROLE / ALTER USER name [WITH] options.
struct AlterRole {
  std::string name;
  RoleOptions options;
};

/// DROP ROLE / DROP USER [IF EXISTS] name, ...
struct DropRole {
  std::vector<std::string> names;
  bool ifExists = false;
};

/// GRANT privileges ON objects TO roles [WITH GRANT OPTION], or REVOKE [GRANT OPTION FOR] privileges ON
/// objects FROM roles [CASCADE].
struct GrantPrivileges {
  bool grant = true;
  AclObject kind = AclObject::kTable;
  /// ON [TABLE] t, ...: each relation in the schema the search path found it in.
  std::vector<QualifiedName> relations;
  /// ON SCHEMA s, ..., or ON ALL TABLES IN SCHEMA s, ... (`allTablesInSchemas`).
  std::vector<std::string> schemas;
  bool allTablesInSchemas = false;
  /// The privileges named; ALL [PRIVILEGES] names every privilege of the kind.
  AclMode privileges = 0;
  bool allPrivileges = false;
  /// The roles, by name; an empty name stands for PUBLIC.
  std::vector<std::string> grantees;
  /// WITH GRANT OPTION, or REVOKE GRANT OPTION FOR.
  bool grantOption = false;
  bool cascade = false;
};

/// GRANT role, ... TO member, ... [WITH ADMIN OPTION], or REVOKE [ADMIN OPTION FOR] role, ... FROM member, ...
struct GrantRoles {
  bool grant = true;
  std::vector<std::string> roles;
  std::vector<std::string> members;
  bool adminOption = false;
};

/// DROP SCHEMA [IF EXISTS] name, ... [CASCADE | RESTRICT].
struct DropSchema {
  std::vector<std::string> names;
  bool ifExists = false;
  bool cascade = false;
};

/// DEALLOCATE [PREPARE] name | ALL, and DISCARD ALL / PLANS (which also forget prepared statements).
struct Deallocate {
  std::string name;  // empty: every prepared statement
  /// DISCARD ALL: settings go back to their defaults too.
  bool resetSettings = false;
};

enum class TransactionAction { kBegin, kCommit, kRollback, kSavepoint, kRelease, kRollbackTo };

struct TransactionCommand {
  TransactionAction action;
  /// SAVEPOINT, RELEASE and ROLLBACK TO: the savepoint's name.
  std::string savepoint;
  /// BEGIN ISOLATION LEVEL ...: the level as PostgreSQL spells the setting ("repeatable read"); empty: the default.
  std::string isolation;
};

/// SET name = value, SET name TO DEFAULT, RESET name, RESET ALL.
struct SetVariable {
  std::string name;                  // empty for RESET ALL
  std::optional<std::string> value;  // nullopt: back to the default
  /// SELECT set_config(name, value, is_local): the new value comes back as a row of this column.
  std::optional<std::string> resultColumn;
  /// SET LOCAL, or set_config's is_local: the value lasts until the transaction ends.
  bool local = false;
};

struct ShowVariable {
  std::string name;
};

/// The distribution a CREATE TABLE asked for, by WITH (distribution = '...').
struct DistributionSpec {
  enum class Kind { kHash, kReplicated, kRandom } kind = Kind::kRandom;
  std::vector<size_t> columns;  // for kHash
};

struct CreateTable {
  /// In the schema named, or the first of the search path.
  QualifiedName name;
  bool ifNotExists = false;
  std::vector<ColumnDescription> columns;
  std::vector<bool> notNull;
  std::vector<size_t> primaryKey;
  std::vector<UniqueConstraint> uniqueKeys;  // none equal to the primary key or to another
  DistributionSpec distribution;
};

/// DROP TABLE: each name with the schema the search path found it in (or as written, when there is none).
struct DropTable {
  std::vector<QualifiedName> names;
  bool ifExists = false;
};

/// ALTER TABLE [IF EXISTS] name followed by any number of ADD [COLUMN] [IF NOT EXISTS] column type [NOT NULL] and
/// DROP [COLUMN] [IF EXISTS] column. The session checks them against the catalog when it runs and rewrites the
/// table's rows into new storage of the new columns, applying the drops first, as PostgreSQL does.
struct AlterTableColumns {
  struct AddedColumn {
    ColumnDescription column;
    bool notNull = false;
    bool ifNotExists = false;
  };
  struct DroppedColumn {
    std::string name;
    bool ifExists = false;
  };
  /// As the search path found it (or as written, when it found none).
  QualifiedName table;
  bool ifExists = false;
  std::vector<DroppedColumn> drops;
  std::vector<AddedColumn> adds;
};

struct TruncateTable {
  std::vector<QualifiedName> names;
};

/// ALTER TABLE [IF EXISTS] name RENAME TO new_name, and ALTER TABLE name RENAME [COLUMN] column TO new_name. The
/// session checks the names against the catalog when it runs.
struct RenameTable {
  /// As the search path found it (or as written, when it found none).
  QualifiedName table;
  std::optional<std::string> column;
  std::string newName;
  bool ifExists = false;
};

/// INSERT INTO t [(columns)] VALUES (...), ...: rows of constant expressions,
/// already cast to the target columns' types; columns not listed get NULL.
/// INSERT's ON CONFLICT clause: the unique key that arbitrates, and what becomes of a row that conflicts on it.
struct OnConflict {
  /// The arbiter's columns: those of the unique keys (primary key or UNIQUE) the conflict target names, or
  /// empty for DO NOTHING without a conflict target, where any unique key arbitrates.
  std::vector<size_t> arbiterColumns;
  bool doUpdate = false;
  /// DO UPDATE: the UPDATE of the rows the conflicting ones meet, as SQL whose FROM list names
  /// kExcludedRowsPlaceholder where a VALUES list of the conflicting rows goes (called excluded).
  std::string updateStatement;
};
inline constexpr std::string_view kExcludedRowsPlaceholder = "shoal_excluded_rows";

struct InsertValues {
  QualifiedName table;
  /// rows[r][c] is the value of table column c (null pointer: NULL).
  std::vector<std::vector<engine::ExpressionPtr>> rows;
  std::optional<OnConflict> onConflict;
};

/// INSERT INTO t [(columns)] query: the query's rows under an assignment cast to the columns they fill; the
/// table's other columns are NULL. The plan outputs the table's columns, in order and of their types.
struct InsertSelect {
  QualifiedName table;
  LogicalPlan plan;
  std::optional<OnConflict> onConflict;
};

/// DELETE FROM t [USING ...] [WHERE ...] [RETURNING ...]: a plan of the rows to delete, its first column their
/// row ids (kRowIdColumn), then the RETURNING list's columns (none without one).
struct DeleteRows {
  QualifiedName table;
  LogicalPlan plan;
  bool returning = false;
};

/// UPDATE t SET ... [FROM ...] [WHERE ...]: a plan of the rows to change, its first column their row ids, then
/// their new values of every column of t, in order and of the columns' types.
struct UpdateRows {
  QualifiedName table;
  LogicalPlan plan;
  std::vector<size_t> assignedColumns;  // the columns SET names, in table order
  size_t newValueColumns = 0;           // the plan's columns after the row id that are new values
  bool returning = false;               // RETURNING: the plan's columns after the new values are returned
};

/// CREATE TABLE name [(column names)] [WITH (distribution = ...)] AS query [WITH [NO] DATA], and SELECT ... INTO
/// name: a table of the query's columns, filled with its rows by the same statement (the table goes again when
/// that fails).
struct CreateTableAs {
  CreateTable table;
  /// The query's rows, whose columns are the table's (insert.table names it).
  InsertSelect insert;
  bool withData = true;
};

/// How COPY's rows are written, in either direction: PostgreSQL's text, CSV and binary formats, and dbgen's
/// .tbl (Shoal's own, for COPY FROM). The binder fills in each format's defaults and checks the options as
/// PostgreSQL 15 does; the options below are the text formats' (binary has none).
struct CopyFormat {
  enum class Kind { kText, kCsv, kTbl, kBinary } kind = Kind::kText;
  char delimiter = '\t';
  /// What stands for NULL: "\\N" in text, "" in CSV and .tbl.
  std::string nullText = "\\N";
  char quote = '"';   // CSV
  char escape = '"';  // CSV: doubles a quote (or itself) inside a quoted field
  bool header = false;
  /// COPY FROM ... HEADER MATCH: the header line must name the columns the fields fill.
  bool headerMatch = false;
  /// CSV COPY TO: columns quoted even when they need not be (FORCE_QUOTE), one flag per output column.
  std::vector<bool> forceQuote;
  /// CSV COPY FROM, one flag per input field (empty: none): FORCE_NOT_NULL, whose unquoted null string is a
  /// value, and FORCE_NULL, whose quoted null string is NULL too.
  std::vector<bool> forceNotNull;
  std::vector<bool> forceNull;
};

/// COPY t [(columns)] FROM 'file' | STDIN [WITH (...)].
struct CopyFrom {
  QualifiedName table;
  /// The table columns a line's fields fill, in order (COPY t (b, a) FROM); empty: all, in table order.
  std::vector<size_t> columns;
  std::optional<std::string> path;  // nullopt: STDIN
  CopyFormat format;
  /// The session's TimeZone: a timestamptz field without a zone is a local time there.
  std::string timeZone = "UTC";
};

/// COPY t [(columns)] TO STDOUT and COPY (query) TO STDOUT: the rows of a query, written in `format`.
struct CopyTo {
  LogicalPlan plan;
  CopyFormat format;
  /// COPY ... TO 'file': refused (members of pg_write_server_files get 0A000, the others 42501).
  std::optional<std::string> path;
};

/// CALL tpch_load(scale_factor [, generators]).
struct TpchLoad {
  double scaleFactor = 1;
  /// How many workers run the generator, each for its own part; 0: one per host.
  uint32_t generators = 0;
  /// Every table but nation and region DISTRIBUTED RANDOMLY (the paper's "chunked" layout) instead of hashed.
  bool chunked = false;
};

struct BoundStatement;

/// DECLARE name [NO SCROLL] CURSOR [WITH HOLD | WITHOUT HOLD] FOR query.
struct DeclareCursor {
  std::string name;
  LogicalPlan plan;
  bool withHold = false;
};

/// FETCH [FORWARD n | NEXT | ALL] FROM name, and MOVE (which skips the rows instead).
struct FetchCursor {
  std::string name;
  std::optional<uint64_t> count;  // nullopt: ALL
  bool move = false;
};

/// CLOSE name, or CLOSE ALL (`name` empty).
struct CloseCursor {
  std::string name;
};

/// PREPARE name [(types)] AS statement: the statement, bound once (EXECUTE runs it with its arguments).
struct PrepareStatement {
  std::string name;
  std::shared_ptr<BoundStatement> statement;  // moved into the session's prepared statement
};

/// EXECUTE name [(arguments)]: the arguments are expressions without columns, cast to the prepared
/// statement's parameter types when it runs.
struct ExecuteStatement {
  std::string name;
  std::vector<engine::ExpressionPtr> arguments;
};

/// COMMENT ON TABLE, VIEW or COLUMN, checked against the catalog.
struct CommentOn {
  /// COMMENT ON SCHEMA: the schema is relation.schema, and relation.name is empty.
  bool onSchema = false;
  QualifiedName relation;
  int32_t column = 0;  // 1-based; 0: the relation itself
  std::string text;    // empty (or NULL in the statement): the comment goes
};

/// A statement ready to run: what the session needs, with no parse tree left.
struct BoundStatement {
  std::variant<BoundQuery, Explain, CreateView, DropView, Deallocate, TransactionCommand, SetVariable, ShowVariable,
               CreateTable, DropTable, TruncateTable, RenameTable, AlterTableColumns, InsertValues, InsertSelect,
               CreateTableAs, CopyFrom, CopyTo, TpchLoad, PrepareStatement, ExecuteStatement, DeclareCursor,
               FetchCursor, CloseCursor, CommentOn, CreateSchema, DropSchema, CreateRole, AlterRole, DropRole,
               GrantPrivileges, GrantRoles, DeleteRows, UpdateRows>
      command;
  /// Types of $1..$n, resolved from the client's declared OIDs and from context.
  std::vector<engine::LogicalType> parameterTypes;
  /// The tag CommandComplete carries, before any row count ("SELECT", "BEGIN", "SET").
  std::string commandTag;
};

}  // namespace shoal::sql
