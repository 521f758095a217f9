#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/logical_type.h"
#include "engine/types/value.h"
#include "sql/binder/acl.h"
#include "sql/binder/session_functions.h"

namespace shoal::sql {

/// The schema every database starts with, where tables go when search_path is left alone.
inline constexpr std::string_view kPublicSchema = "public";
/// search_path's default, as PostgreSQL 15 has it.
inline constexpr std::string_view kDefaultSearchPath = "\"$user\", public";
/// The system schemas, whose relations the coordinator computes from its catalog. pg_catalog is searched
/// first for an unqualified name, as in PostgreSQL; information_schema's relations must be qualified.
inline constexpr std::string_view kPgCatalogSchema = "pg_catalog";
inline constexpr std::string_view kInformationSchema = "information_schema";
/// A session's temporary relations live in schema pg_temp_<its backend pid>, which "pg_temp" names in
/// search_path and in qualified names; it is made by the session's first CREATE TEMP and dropped at its end.
inline constexpr std::string_view kTemporarySchemaPrefix = "pg_temp_";
inline constexpr std::string_view kTemporarySchemaAlias = "pg_temp";
/// The schemas' OIDs, PostgreSQL 15's (clients that know them are not surprised: 11 is pg_catalog).
inline constexpr int64_t kPgCatalogNamespaceOid = 11;
inline constexpr int64_t kPublicNamespaceOid = 2200;
inline constexpr int64_t kInformationSchemaNamespaceOid = 13207;
/// The OID of the one database a coordinator serves (PostgreSQL's first database, "postgres", has 5).
inline constexpr int64_t kDatabaseOid = 5;
/// The role that owns every object, as pg_class.relowner and pg_get_userbyid show it (PostgreSQL's bootstrap
/// superuser has OID 10). Logins and roles are issue 27's.
inline constexpr int64_t kOwnerRoleOid = 10;
inline constexpr std::string_view kOwnerRoleName = "shoal";
/// PostgreSQL 15's owner of schema public: the role standing for the database's owner.
inline constexpr int64_t kDatabaseOwnerRoleOid = 6171;
inline constexpr std::string_view kDatabaseOwnerRoleName = "pg_database_owner";

/// A relation named with its schema: how the catalog keys tables and views.
struct QualifiedName {
  std::string schema;
  std::string name;

  /// "schema.name", as PostgreSQL's messages print it (unquoted).
  std::string toString() const { return schema.empty() ? name : schema + "." + name; }
  auto operator<=>(const QualifiedName&) const = default;
};

/// A schema, as pg_namespace lists it.
struct SchemaDescription {
  int64_t oid = 0;
  std::string name;
  /// The role that owns it (pg_namespace.nspowner).
  int64_t ownerOid = 0;
  /// COMMENT ON SCHEMA's text (pg_description); empty: none.
  std::string comment = {};
  /// Its privileges as aclitem texts (pg_namespace.nspacl); nullopt: the default.
  std::optional<std::vector<std::string>> acl = std::nullopt;
};

/// A relation's OID and name, and whether an unqualified name finds it (what pg_table_is_visible answers).
struct RelationVisibility {
  int64_t oid = 0;
  bool visible = false;
  std::string schema;
  std::string name;
  /// pg_class.relkind: 'r' a table, 'v' a view, 'i' an index.
  char kind = 'r';
};

/// A UNIQUE constraint of a table (its primary key aside): its name, as PostgreSQL gives it (<table>_<columns>_key
/// unless CONSTRAINT names it), and its table columns in key order.
struct UniqueConstraint {
  std::string name;
  std::vector<size_t> columns;
  bool operator==(const UniqueConstraint&) const = default;
};

/// How many UNIQUE constraints one table may have (their OIDs below are derived from the table's).
inline constexpr size_t kMaxUniqueConstraints = 32;

/// A user table's primary key or UNIQUE constraint, as pg_constraint and pg_index describe it: the constraint
/// and the unique index that backs it have one name (<table>_pkey for the primary key).
struct KeyDescription {
  int64_t tableOid = 0;
  std::string schema;
  std::string table;
  std::string name;
  /// 0: the primary key; k: the table's k-th UNIQUE constraint (its OIDs follow from it).
  size_t ordinal = 0;
  /// The key's columns, in key order, and their attribute numbers (1-based positions in the table).
  std::vector<std::string> columns;
  std::vector<int32_t> attributeNumbers;
};

/// The OIDs of a key's index and constraint: derived from its table's OID (16384 + the table's catalog id)
/// and its ordinal, so they are as stable as they are, above every relation OID and below 2^32.
inline constexpr int64_t kPrimaryKeyOidBase = int64_t{1} << 30;
inline constexpr int64_t kUniqueKeyOidBase = int64_t{1} << 31;
inline int64_t keyIndexOid(int64_t tableOid, size_t ordinal) {
  if (ordinal == 0) return kPrimaryKeyOidBase + 2 * tableOid;
  return kUniqueKeyOidBase +
         2 * (tableOid * static_cast<int64_t>(kMaxUniqueConstraints) + static_cast<int64_t>(ordinal - 1));
}
inline int64_t keyConstraintOid(int64_t tableOid, size_t ordinal) {
  return keyIndexOid(tableOid, ordinal) + 1;
}

/// A comment (COMMENT ON) as pg_description holds it: on relation `oid`, column `column` (0: the relation).
struct ObjectComment {
  int64_t oid = 0;
  int32_t column = 0;
  std::string text;
};

struct ColumnDescription {
  std::string name;
  engine::LogicalType type;
};

/// What loading learned about one column, for the optimizer's estimates.
struct ColumnSummary {
  uint64_t distinctCount = 0;
  uint64_t nullCount = 0;
  /// The smallest and largest non-NULL values (NULL values when unknown).
  engine::Value min;
  engine::Value max;
};

/// What the binder and optimizer need to know about a table or system view.
struct TableDescription {
  /// The schema it lives in: a system schema (pg_catalog, information_schema) or a user schema.
  std::string schema;
  std::string name;
  std::vector<ColumnDescription> columns;
  /// System views (shoal_nodes) are computed on the coordinator; user tables live on the workers.
  bool isSystemView = true;
  /// Rows in the table, when statistics exist (after a load).
  std::optional<uint64_t> rowCount;
  /// Per column (parallel to `columns`), when statistics exist.
  std::vector<std::optional<ColumnSummary>> columnSummaries;
  /// Table columns of the primary key (unique, so a join on them matches at most once).
  std::vector<size_t> primaryKey;
  std::vector<UniqueConstraint> uniqueKeys;
  /// Where the workers keep the rows: set only in plans decoded on a worker (see plan_serialization.h).
  uint64_t storageId = 0;
};

/// A view: the CREATE VIEW statement that defined it and the names of its columns.
struct ViewDescription {
  std::string schema;
  std::string name;
  /// The whole CREATE VIEW statement.
  std::string query;
  /// Explicit column names (CREATE VIEW v (a, b) AS ...); empty: the query's own.
  std::vector<std::string> columnNames;
  /// The search_path the view was created under: its query's unqualified names are looked up with it, so
  /// that a reader's own search_path cannot change what the view reads.
  std::string searchPath;
  /// The role that owns it: its query's relations are read with the owner's privileges, as in PostgreSQL.
  std::string owner = std::string(kOwnerRoleName);
};

/// The binder's view of the catalog. The coordinator owns the catalog and
/// implements this interface, so that sql/ never depends on coordinator/.
///
/// Lookups take a schema: sql/binder/search_path.h finds the schema of an unqualified name.
class CatalogReader {
 public:
  virtual ~CatalogReader() = default;
  /// Looks a table up in its schema: a system relation of pg_catalog or information_schema, or a user
  /// table (names already case-folded).
  virtual std::optional<TableDescription> findTable(const QualifiedName& name) const = 0;
  /// Looks a view up in its schema.
  virtual std::optional<ViewDescription> findView(const QualifiedName& /*name*/) const { return std::nullopt; }
  /// Every schema: the system schemas and the user's (public and those CREATE SCHEMA made).
  virtual std::vector<SchemaDescription> schemas() const;
  /// The search_path setting as SHOW shows it; PostgreSQL's default outside a session.
  virtual std::string searchPathSetting() const;
  /// Every relation with an OID (system relations, user tables, views and primary keys' indexes), visible
  /// when an unqualified name finds it on the search path.
  virtual std::vector<RelationVisibility> relationVisibility() const { return {}; }
  /// Every comment on a user relation or its columns, for obj_description() and col_description().
  virtual std::vector<ObjectComment> comments() const { return {}; }
  /// Every user table's primary key, for pg_get_indexdef() and pg_get_constraintdef().
  /// Every user table's primary key and UNIQUE constraints.
  virtual std::vector<KeyDescription> keys() const { return {}; }
  /// Every table and view name, for "did you mean" hints.
  virtual std::vector<std::string> relationNames() const { return {}; }
  /// The session the statement is bound for (current_user, ...); null outside a session.
  virtual const SessionInfo* session() const { return nullptr; }

  /// The role whose privileges the relations a statement reads and writes are checked with: the session's
  /// user, or inside a view the view's owner. The bootstrap superuser outside a session.
  virtual std::string privilegeRole() const;
  /// What role `role` may do with a relation (table, view or system relation), a schema, or the database;
  /// nullopt when there is no such role. A catalog without roles allows everything.
  virtual std::optional<HeldPrivileges> relationPrivileges(std::string_view /*role*/,
                                                           const QualifiedName& /*name*/) const {
    return HeldPrivileges::all();
  }
  virtual std::optional<HeldPrivileges> schemaPrivileges(std::string_view /*role*/,
                                                         const std::string& /*schema*/) const {
    return HeldPrivileges::all();
  }
  virtual std::optional<HeldPrivileges> databasePrivileges(std::string_view /*role*/) const {
    return HeldPrivileges::all();
  }
  /// Every role: OID and name (pg_get_userbyid, regrole).
  virtual std::vector<std::pair<int64_t, std::string>> roles() const {
    return {{kOwnerRoleOid, std::string(kOwnerRoleName)}, {kDatabaseOwnerRoleOid, std::string(kDatabaseOwnerRoleName)}};
  }
  /// The name of the role with OID `oid`; nullopt when there is none.
  std::optional<std::string> roleName(int64_t oid) const {
    for (auto& [each, name] : roles()) {
      if (each == oid) return name;
    }
    return std::nullopt;
  }
};

}  // namespace shoal::sql
