#pragma once

#include <variant>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace pg_query {
class CreateStmt;
class DropStmt;
class TruncateStmt;
class InsertStmt;
class CallStmt;
class IntoClause;
class RenameStmt;
class AlterTableStmt;
class ColumnDef;
class Constraint;
class RangeVar;
class SelectStmt;
class Node;
class DeleteStmt;
class UpdateStmt;
}  // namespace pg_query

namespace shoal::sql {

/// Binds the statements that define, fill and empty user tables: CREATE
/// TABLE, DROP TABLE, TRUNCATE, ALTER TABLE ... RENAME, INSERT and CALL tpch_load.
class TableStatementBinder {
 public:
  TableStatementBinder(const CatalogReader& catalog, std::string_view text,
                       std::vector<engine::LogicalType>& parameterTypes)
      : catalog_(catalog), text_(text), parameterTypes_(parameterTypes) {}

  CreateTable bindCreate(const pg_query::CreateStmt& create);
  /// CREATE TABLE ... AS query, and SELECT ... INTO (`query` then has the INTO clause; create_table_as_binding.cpp).
  CreateTableAs bindCreateTableAs(const pg_query::IntoClause& into, const pg_query::SelectStmt& query,
                                  bool ifNotExists);
  DropTable bindDrop(const pg_query::DropStmt& drop);
  TruncateTable bindTruncate(const pg_query::TruncateStmt& truncate);
  RenameTable bindRename(const pg_query::RenameStmt& rename);
  /// ALTER TABLE ... ADD COLUMN and DROP COLUMN (alter_table_binding.cpp); 0A000 for the other actions.
  AlterTableColumns bindAlterColumns(const pg_query::AlterTableStmt& alter);
  /// INSERT ... VALUES of expressions without columns, or INSERT ... query.
  std::variant<InsertValues, InsertSelect> bindInsert(const pg_query::InsertStmt& insert);
  TpchLoad bindCall(const pg_query::CallStmt& call);
  /// DELETE and UPDATE (row_change_binding.cpp).
  DeleteRows bindDelete(const pg_query::DeleteStmt& statement);
  UpdateRows bindUpdate(const pg_query::UpdateStmt& statement);

 private:
  /// The user table named by a RangeVar (looked up on the search path when `schema` is empty), or at its
  /// position 42P01 (for a missing schema too), 42501 for a system relation or when the session lacks
  /// privileges `wanted` on it, and 0A000 for a view.
  TableDescription findTable(const std::string& schema, const std::string& name, int location, AclMode wanted) const;
  /// The schema and name of the relation CREATE makes: a temporary one (CREATE TEMP, or one named in pg_temp) in
  /// the session's temporary schema, any other in the schema named or the search path's first. Fails at the
  /// name's position with 3F000, 42P16 or 42501 (no CREATE privilege on the schema).
  QualifiedName bindCreationName(const pg_query::RangeVar& relation) const;
  /// ON COMMIT PRESERVE ROWS (the default) passes; DROP and DELETE ROWS fail with 0A000. `action` is a
  /// pg_query::OnCommitAction.
  void bindOnCommit(int action, int location) const;
  /// A PRIMARY KEY or UNIQUE constraint as CREATE TABLE declares it, before its columns are looked up.
  struct DeclaredKey {
    bool primary = false;
    std::string name;  // CONSTRAINT name, or empty
    std::vector<std::string> columns;
    int location = -1;
  };
  /// A column of CREATE TABLE or ALTER TABLE ADD COLUMN: its name and type, and whether it is NOT NULL. With
  /// `keys`, a PRIMARY KEY or UNIQUE on it is appended there. Constraints other than NULL, NOT NULL, PRIMARY KEY
  /// and UNIQUE (without `keys`: other than NULL and NOT NULL) fail with 0A000.
  std::pair<ColumnDescription, bool> bindColumnDefinition(const pg_query::ColumnDef& column,
                                                          std::vector<DeclaredKey>* keys) const;
  /// A PRIMARY KEY or UNIQUE constraint over `columns` (key_constraint_binding.cpp); what Shoal cannot enforce
  /// (DEFERRABLE, NULLS NOT DISTINCT, INCLUDE) fails with 0A000.
  DeclaredKey declaredKey(const pg_query::Constraint& constraint, std::vector<std::string> columns) const;
  /// The keys of CREATE TABLE (key_constraint_binding.cpp): the primary key (its columns made NOT NULL) and the
  /// UNIQUE constraints, named as PostgreSQL names them, those equal to an earlier key left out, as PostgreSQL
  /// does; the distribution defaults to hash on the columns every key shares.
  void bindKeys(const std::vector<DeclaredKey>& keys, CreateTable& bound) const;
  /// INSERT ... query into `table`, whose columns `targets` the query's columns fill (insert_select_binding.cpp).
  InsertSelect bindInsertSelect(const pg_query::InsertStmt& insert, const TableDescription& table,
                                std::vector<size_t> targets);
  /// INSERT's ON CONFLICT clause, if it has one (on_conflict_binding.cpp): 42P10 when its target is no unique
  /// key of `table`, 42704 for a constraint it does not have; DO UPDATE's SET and WHERE are checked here too.
  std::optional<OnConflict> bindOnConflict(const pg_query::InsertStmt& insert, const TableDescription& table) const;
  /// WITH (distribution = 'hash(column, ...)' | 'replicated' | 'random') of a new table.
  void bindTableOptions(const google::protobuf::RepeatedPtrField<pg_query::Node>& options, CreateTable& bound) const;
  [[noreturn]] void fail(std::string_view sqlState, int location, std::string message) const;
  /// The position of the column INSERT or UPDATE names as `name`; 42703 at `location` when the table has none.
  size_t targetColumn(const TableDescription& table, const std::string& name, int location) const;
  /// `value` as it fills `column`: PostgreSQL's assignment cast (42804 when there is none), and a string cut to
  /// the column's length refused rather than cut.
  engine::ExpressionPtr assignTo(const ColumnDescription& column, engine::ExpressionPtr value, int location) const;

  const CatalogReader& catalog_;
  std::string_view text_;
  std::vector<engine::LogicalType>& parameterTypes_;
};

}  // namespace shoal::sql
