#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coordinator/catalog/access_control.h"
#include "coordinator/catalog/catalog_store.h"
#include "coordinator/catalog/role_catalog.h"
#include "engine/types/logical_type.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// How a table's rows are spread over the workers.
enum class Distribution : uint32_t {
  kHash = 0,        // by the CRC32 of the distribution columns, one partition per worker
  kReplicated = 1,  // every worker holds every row
  kRandom = 2,      // "chunked": whole blocks of rows round-robin over the workers
};

std::string_view distributionName(Distribution distribution);

struct CatalogColumn {
  std::string name;
  engine::LogicalType type;
  bool notNull = false;
};

/// A user table: its definition, where its partitions live and what the
/// optimizer knows of its contents.
struct TableEntry {
  uint64_t tableId = 0;
  std::string schema = std::string(sql::kPublicSchema);
  std::string name;
  std::vector<CatalogColumn> columns;
  std::vector<size_t> primaryKey;  // column indexes
  std::vector<sql::UniqueConstraint> uniqueKeys;
  Distribution distribution = Distribution::kRandom;
  std::vector<size_t> distributionColumns;
  /// Partition i lives on the worker named placement[i].
  std::vector<std::string> placement;
  /// Names the workers' storage of the current contents; TRUNCATE starts a new one.
  uint64_t storageId = 0;
  uint64_t rowCount = 0;
  /// Serialized ColumnStatistics per column (empty until the first load).
  std::vector<std::string> columnStatistics;
  /// Its owner (the role that created it) and its privileges.
  AccessRights access{sql::kOwnerRoleOid, std::nullopt};

  sql::QualifiedName qualifiedName() const { return {schema, name}; }
  std::vector<engine::LogicalType> columnTypes() const;
  std::optional<size_t> findColumn(std::string_view columnName) const;
};

/// A view: the CREATE VIEW statement that defined it, bound anew at each use.
struct ViewEntry {
  std::string schema = std::string(sql::kPublicSchema);
  std::string name;
  std::string statement;
  std::vector<std::string> columnNames;
  /// Assigned by the catalog when the view is created (from the ids tables take) and kept by CREATE OR
  /// REPLACE: pg_class shows the view under an OID made of it.
  uint64_t viewId = 0;
  /// The search_path it was created under, which its query is bound with.
  std::string searchPath = std::string(sql::kDefaultSearchPath);
  AccessRights access{sql::kOwnerRoleOid, std::nullopt};

  sql::QualifiedName qualifiedName() const { return {schema, name}; }
};

/// A user schema: public, or one CREATE SCHEMA made.
struct SchemaEntry {
  std::string name;
  /// public keeps PostgreSQL's 2200; the others take kFirstUserOid + an id of the catalog's.
  int64_t oid = 0;
  /// COMMENT ON SCHEMA's text; empty: none (the first public has PostgreSQL's "standard public schema").
  std::string comment = {};
  AccessRights access = {sql::kOwnerRoleOid, std::nullopt};
};

/// What DROP SCHEMA removed: the schemas, and the tables and views that went with them (CASCADE).
struct DroppedSchemas {
  std::vector<std::shared_ptr<const TableEntry>> tables;
  std::vector<ViewEntry> views;
  /// "table s.t", "view s.v": each object dropped with them, in order, for DROP's notice.
  std::vector<std::string> objects;
};

/// The user schemas, tables and views, owned by the coordinator and kept by its CatalogStore (a file in its data
/// directory, or etcd) after every change; a change the store refuses is undone. Thread-safe; entries are
/// immutable snapshots, replaced on change.
/// A table entry as the catalog document holds it, and back (XX001 for a malformed one).
nlohmann::json entryToJson(const TableEntry& entry);
TableEntry entryFromJson(const nlohmann::json& value);

class TableCatalog {
 public:
  /// Loads what `store` holds (no store keeps the catalog in memory only).
  explicit TableCatalog(std::unique_ptr<CatalogStore> store);
  ~TableCatalog();

  std::shared_ptr<const TableEntry> find(const sql::QualifiedName& name) const;
  /// find(), failing with 42P01 when the table is gone (dropped since the statement was bound).
  std::shared_ptr<const TableEntry> require(const sql::QualifiedName& name) const;
  std::vector<std::shared_ptr<const TableEntry>> list() const;

  /// Adds a table to its schema, assigning its table and storage ids. Fails with 42P07 when the name is
  /// taken, 3F000 when the schema does not exist.
  std::shared_ptr<const TableEntry> create(TableEntry entry);
  /// Removes a table and returns it; 42P01 when there is none.
  std::shared_ptr<const TableEntry> drop(const sql::QualifiedName& name);
  /// Gives a table new, empty storage; returns the entry as it was.
  std::shared_ptr<const TableEntry> truncate(const sql::QualifiedName& name);
  /// A storage id no table has used, for storage that a table will take later (replaceTable).
  uint64_t newStorageId();
  /// ALTER TABLE ADD/DROP COLUMN: puts `replacement` (the same table with new columns and new storage) in the
  /// place of `expected`, column comments moving with their columns (`sourceColumns[i]`: the column of
  /// `expected` that column i of `replacement` was, nullopt for an added one). 40001 when the table changed
  /// since `expected` was read.
  void replaceTable(const std::shared_ptr<const TableEntry>& expected, std::shared_ptr<const TableEntry> replacement,
                    const std::vector<std::optional<size_t>>& sourceColumns);
  /// Transactional DDL (uncommitted_changes.cpp). A DDL statement of transaction `transactionId` runs between
  /// begin and end; the catalog keeps what it was before (and after), durably with the rest, until the
  /// transaction keeps its changes (COMMIT) or reverts them (ROLLBACK, or ROLLBACK TO: all but the first `keep`
  /// statements). A revert restores each entry the statements changed, unless someone changed it since, and
  /// returns the tables whose storage the statements made and no entry uses any more.
  void beginUncommittedChange(uint64_t transactionId);
  void endUncommittedChange(uint64_t transactionId);
  void keepUncommittedChanges(uint64_t transactionId);
  std::vector<std::shared_ptr<const TableEntry>> revertUncommittedChanges(uint64_t transactionId, size_t keep);
  size_t uncommittedChanges(uint64_t transactionId) const;
  /// At startup: the DDL of transactions that were open when the coordinator stopped is reverted (its storage
  /// dropped when the workers are back), unless `committed` says their commit was decided.
  void recoverUncommittedChanges(const std::function<bool(uint64_t)>& committed);

  /// ALTER TABLE RENAME: 42P07 when a relation of the new name exists in its schema.
  void renameTable(const sql::QualifiedName& name, const std::string& newName);
  /// ALTER TABLE RENAME COLUMN: 42703 when there is no such column, 42701 when the new name is taken.
  void renameColumn(const sql::QualifiedName& name, const std::string& column, const std::string& newName);
  std::optional<ViewEntry> findView(const sql::QualifiedName& name) const;
  std::vector<ViewEntry> listViews() const;
  /// Every table and view name, unqualified.
  std::vector<std::string> relationNames() const;
  /// Adds (or with `orReplace` replaces) a view; 42P07 when a table or view has the name, 3F000 when its
  /// schema does not exist.
  void createView(ViewEntry view, bool orReplace);
  /// Removes a view; 42P01 when there is none (unless `ifExists`). Returns whether one was dropped.
  bool dropView(const sql::QualifiedName& name, bool ifExists);

  std::vector<SchemaEntry> schemas() const;
  /// COMMENT ON SCHEMA: sets (or with an empty `text` removes) a schema's comment; 3F000 when it is missing.
  void setSchemaComment(const std::string& name, const std::string& text);
  /// Adds a schema owned by role `owner`; 42P06 when it exists (unless `ifNotExists`). Returns whether one
  /// was made.
  bool createSchema(const std::string& name, bool ifNotExists, int64_t owner);
  /// Removes schemas, with their tables and views when `cascade` (2BP01 when one holds any and not
  /// `cascade`); 3F000 for a missing one (DROP SCHEMA IF EXISTS leaves those out). All or nothing, in one
  /// change of the catalog. The messages name a relation as PostgreSQL does, unqualified when the session's
  /// search path (`lookup`, sql::lookupSchemas) finds it.
  DroppedSchemas dropSchemas(const std::vector<std::string>& names, bool cascade,
                             const std::vector<std::string>& lookup);

  /// What a committed load added to one table.
  struct LoadedTable {
    sql::QualifiedName name;
    uint64_t storageId = 0;
    uint64_t rows = 0;                          // added
    std::vector<std::string> columnStatistics;  // serialized, per column, of the rows added
    uint64_t rowsDeleted = 0;
  };
  /// Adds a committed transaction's rows and statistics to its tables (and takes its deleted rows off) (those whose
  /// storage is still the load's), in one change of the catalog.
  void recordLoad(const std::vector<LoadedTable>& tables);
  /// Writes the whole catalog to its store again (after etcd came back without its data).
  void republish();
  /// Storage that DROP, TRUNCATE or DROP SCHEMA could not drop on a worker that was down, kept with the
  /// catalog until the worker is back and has dropped it (StorageDropRetrier).
  void addPendingDrop(const std::string& worker, uint64_t storageId);
  std::map<std::string, std::vector<uint64_t>> pendingDrops() const;
  void clearPendingDrops(const std::string& worker, const std::vector<uint64_t>& storageIds);

  /// Goes up at every change: a prepared statement bound at an older version binds again.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  /// A comment (COMMENT ON) on a table or view, or on one of its columns.
  struct Comment {
    uint64_t relationId = 0;  // the table's tableId or the view's viewId
    int32_t column = 0;       // 1-based; 0: the relation itself
    std::string text;
  };
  /// Sets the comment on relation `name` (column `column`, 0 for the relation), or removes it when `text`
  /// is empty; 42P01 when there is no such relation. The caller has checked the column.
  void setComment(const sql::QualifiedName& name, int32_t column, const std::string& text);
  /// Every comment; a relation's go when it is dropped.
  std::vector<Comment> comments() const;

  /// The roles (role_catalog.h), kept in the same document.
  std::vector<RoleEntry> roles() const;
  std::optional<RoleEntry> findRole(const std::string& name) const;
  /// Checks whether the session may change the roles, against the roles as they are under the catalog's
  /// lock (so a concurrent change cannot slip between the check and the change); throws when not.
  using RoleCheck = std::function<void(const RoleCatalog& roles)>;
  /// 42710 when the name is taken.
  void createRole(const std::string& name, const RoleChanges& changes, const RoleCheck& authorize = {});
  /// 42704 when there is no such role.
  void alterRole(const std::string& name, const RoleChanges& changes, const RoleCheck& authorize = {});
  /// Drops the named roles, all or none: 42704 for a missing one unless `ifExists`, when it is returned
  /// among the skipped names instead.
  /// A role that owns objects or holds privileges cannot be dropped (2BP01, naming them).
  std::vector<std::string> dropRoles(const std::vector<std::string>& names, bool ifExists,
                                     const RoleCheck& authorize = {});
  /// GRANT role TO member (0LP01 for a cycle; false: it changed nothing) and REVOKE role FROM member (false:
  /// it was not a member).
  bool grantRole(const std::string& role, const std::string& member, int64_t grantor, bool adminOption);
  bool revokeRole(const std::string& role, const std::string& member, bool adminOptionOnly);
  /// Every role, with their memberships.
  RoleCatalog roleCatalog() const;
  /// The name of the role with OID `oid`, or the OID as text when there is none (as aclitem shows one).
  std::string roleNameOf(int64_t oid) const;

  // Privileges (table_catalog_access.cpp).
  /// What role `role` may do with a user relation, a user schema or the database; nullopt when the role or
  /// the object does not exist.
  std::optional<sql::HeldPrivileges> relationPrivileges(const std::string& role, const sql::QualifiedName& name) const;
  std::optional<sql::HeldPrivileges> schemaPrivileges(const std::string& role, const std::string& schema) const;
  std::optional<sql::HeldPrivileges> databasePrivileges(const std::string& role) const;
  /// Fails with 42501 ("must be owner of table t") unless role `role` may act as the owner of a relation
  /// (a table unless `isView`) or a schema. A missing object passes: the command reports it.
  void requireRelationOwner(const std::string& role, const sql::QualifiedName& name, bool isView) const;
  void requireSchemaOwner(const std::string& role, const std::string& schema) const;
  /// The database's owner and privileges (GRANT ... ON DATABASE).
  AccessRights databaseAccess() const;
  /// GRANT and REVOKE: runs `change` on an object's rights under the catalog's lock and saves the result.
  /// 42P01 / 3F000 when the object does not exist.
  using AccessChange = std::function<void(AccessRights& rights, const RoleCatalog& roles)>;
  void changeRelationAccess(const sql::QualifiedName& name, const AccessChange& change);
  void changeSchemaAccess(const std::string& schema, const AccessChange& change);
  void changeDatabaseAccess(const AccessChange& change);

 private:
  using CommentKey = std::pair<uint64_t, int32_t>;  // relation id, column
  struct UncommittedChange {
    uint64_t transactionId;
    nlohmann::json before;                // changeableSectionsLocked() before the statement
    std::optional<nlohmann::json> after;  // and after it (none while it runs)
  };
  using TableMap = std::map<sql::QualifiedName, std::shared_ptr<const TableEntry>>;
  using ViewMap = std::map<sql::QualifiedName, ViewEntry>;
  struct Snapshot {
    TableMap tables;
    ViewMap views;
    std::map<std::string, SchemaEntry> schemas;
    uint64_t nextId;
    std::map<CommentKey, std::string> comments;
    RoleCatalog roles;
    AccessRights databaseAccess;
    std::map<std::string, std::vector<uint64_t>> pendingDrops;
    std::vector<UncommittedChange> uncommitted;
  };
  /// Fails with 3F000 unless schema `name` exists.
  void requireSchemaLocked(const std::string& name) const;
  /// `name` quoted, with its schema unless an unqualified name finds it through `lookup`.
  std::string relationNameLocked(const sql::QualifiedName& name, const std::vector<std::string>& lookup) const;
  /// What depends on role `oid`: "owner of table t", "privileges for view v", ... (DROP ROLE's detail).
  std::vector<std::string> roleDependentsLocked(int64_t oid) const;
  /// The role named `role` (nullopt when none).
  const RoleEntry* roleLocked(const std::string& role) const { return roles_.find(role); }
  /// Drops the comments of relation `relationId` (when it is dropped).
  void dropCommentsLocked(uint64_t relationId);
  Snapshot snapshotLocked() const;
  /// Saves the catalog to its store, or restores `before` and rethrows when the store fails.
  void persistLocked(Snapshot& before);
  nlohmann::json documentLocked() const;
  /// The parts of the document that DDL changes (relations, schemas, comments, roles, the database's rights).
  nlohmann::json changeableSectionsLocked() const;
  /// Replaces the catalog's contents with `document`'s; returns whether views got ids they lacked.
  bool loadDocumentLocked(const nlohmann::json& document);
  std::vector<std::shared_ptr<const TableEntry>> revertLocked(uint64_t transactionId, size_t keep);
  void loadFromStore();

  const std::unique_ptr<CatalogStore> store_;
  mutable std::mutex mutex_;
  TableMap tables_;                                                // guarded by mutex_
  ViewMap views_;                                                  // guarded by mutex_
  std::map<std::string, SchemaEntry> schemas_;                     // guarded by mutex_
  uint64_t nextId_ = 1;                                            // guarded by mutex_
  std::map<CommentKey, std::string> comments_;                     // guarded by mutex_
  RoleCatalog roles_;                                              // guarded by mutex_
  AccessRights databaseAccess_{sql::kOwnerRoleOid, std::nullopt};  // guarded by mutex_
  std::map<std::string, std::vector<uint64_t>> pendingDrops_;      // guarded by mutex_; by worker name
  std::vector<UncommittedChange> uncommitted_;                     // guarded by mutex_; oldest first
  std::atomic<uint64_t> version_{0};
};

}  // namespace shoal::coordinator
