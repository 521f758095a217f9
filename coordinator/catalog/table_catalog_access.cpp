// TableCatalog's roles and privileges: who may log in, who owns what, and GRANT and REVOKE.
#include <fmt/format.h>

#include <algorithm>

#include "common/status.h"
#include "coordinator/catalog/system_relation.h"
#include "coordinator/catalog/table_catalog.h"

namespace shoal::coordinator {
namespace {

constexpr std::string_view kDependentObjectsStillExist = "2BP01";

}  // namespace

std::vector<RoleEntry> TableCatalog::roles() const {
  std::lock_guard lock(mutex_);
  return roles_.list();
}

std::optional<RoleEntry> TableCatalog::findRole(const std::string& name) const {
  std::lock_guard lock(mutex_);
  const RoleEntry* role = roles_.find(name);
  return role ? std::optional(*role) : std::nullopt;
}

void TableCatalog::createRole(const std::string& name, const RoleChanges& changes, const RoleCheck& authorize) {
  std::lock_guard lock(mutex_);
  if (authorize) authorize(roles_);
  Snapshot before = snapshotLocked();
  roles_.create(name, changes, kFirstUserOid + static_cast<int64_t>(nextId_++));
  persistLocked(before);
}

void TableCatalog::alterRole(const std::string& name, const RoleChanges& changes, const RoleCheck& authorize) {
  std::lock_guard lock(mutex_);
  if (authorize) authorize(roles_);
  Snapshot before = snapshotLocked();
  roles_.alter(name, changes);
  persistLocked(before);
}

std::vector<std::string> TableCatalog::dropRoles(const std::vector<std::string>& names, bool ifExists,
                                                 const RoleCheck& authorize) {
  std::lock_guard lock(mutex_);
  if (authorize) authorize(roles_);
  Snapshot before = snapshotLocked();
  std::vector<std::string> skipped;
  try {
    for (const auto& name : names) {
      if (ifExists && roles_.find(name) == nullptr) {
        skipped.push_back(name);
        continue;
      }
      const RoleEntry* role = roles_.find(name);
      if (role != nullptr) {
        const std::vector<std::string> dependents = roleDependentsLocked(role->oid);
        if (!dependents.empty()) {
          std::string detail;
          for (const auto& each : dependents) detail += (detail.empty() ? "" : "\n") + each;
          throw ShoalError(Status(kDependentObjectsStillExist,
                                  fmt::format("role \"{}\" cannot be dropped because some objects depend on it", name))
                               .withDetail(detail));
        }
      }
      roles_.drop(name);
    }
  } catch (...) {
    roles_ = std::move(before.roles);
    throw;
  }
  persistLocked(before);
  return skipped;
}

bool TableCatalog::grantRole(const std::string& role, const std::string& member, int64_t grantor, bool adminOption) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  const bool changed = roles_.grantMembership(role, member, grantor, adminOption);
  persistLocked(before);
  return changed;
}

bool TableCatalog::revokeRole(const std::string& role, const std::string& member, bool adminOptionOnly) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  const bool revoked = roles_.revokeMembership(role, member, adminOptionOnly);
  persistLocked(before);
  return revoked;
}

std::string TableCatalog::roleNameOf(int64_t oid) const {
  std::lock_guard lock(mutex_);
  const RoleEntry* role = roles_.findByOid(oid);
  return role != nullptr ? role->name : std::to_string(oid);
}

RoleCatalog TableCatalog::roleCatalog() const {
  std::lock_guard lock(mutex_);
  return roles_;
}

std::vector<std::string> TableCatalog::roleDependentsLocked(int64_t oid) const {
  // By the objects' OIDs, the order PostgreSQL lists them in.
  std::vector<std::pair<int64_t, std::string>> dependents;
  auto describe = [&](int64_t objectOid, const AccessRights& rights, std::string_view kind, const std::string& name) {
    if (rights.owner == oid) {
      dependents.emplace_back(objectOid, fmt::format("owner of {} {}", kind, name));
      return;  // the owner's own rights are implied by owning, not a dependency of their own
    }
    if (!rights.acl) return;
    for (const auto& item : *rights.acl) {
      if (item.grantee == oid || item.grantor == oid) {
        dependents.emplace_back(objectOid, fmt::format("privileges for {} {}", kind, name));
        return;
      }
    }
  };
  describe(sql::kDatabaseOid, databaseAccess_, "database", "shoal");
  for (const auto& [name, schema] : schemas_) describe(schema.oid, schema.access, "schema", name);
  // Relations in public are named bare, as PostgreSQL names those the default search path finds.
  auto shown = [](const sql::QualifiedName& name) {
    return name.schema == sql::kPublicSchema ? name.name : name.toString();
  };
  for (const auto& [name, table] : tables_) {
    describe(kFirstUserOid + static_cast<int64_t>(table->tableId), table->access, "table", shown(name));
  }
  for (const auto& [name, view] : views_) {
    describe(kFirstUserOid + static_cast<int64_t>(view.viewId), view.access, "view", shown(name));
  }
  std::stable_sort(dependents.begin(), dependents.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> described;
  for (auto& [objectOid, text] : dependents) described.push_back(std::move(text));
  return described;
}

std::optional<sql::HeldPrivileges> TableCatalog::relationPrivileges(const std::string& role,
                                                                    const sql::QualifiedName& name) const {
  std::lock_guard lock(mutex_);
  const RoleEntry* entry = roleLocked(role);
  if (entry == nullptr) return std::nullopt;
  if (auto table = tables_.find(name); table != tables_.end()) {
    return privilegesOf(roles_, *entry, table->second->access, sql::AclObject::kTable);
  }
  if (auto view = views_.find(name); view != views_.end()) {
    return privilegesOf(roles_, *entry, view->second.access, sql::AclObject::kTable);
  }
  return std::nullopt;
}

std::optional<sql::HeldPrivileges> TableCatalog::schemaPrivileges(const std::string& role,
                                                                  const std::string& schema) const {
  std::lock_guard lock(mutex_);
  const RoleEntry* entry = roleLocked(role);
  auto found = schemas_.find(schema);
  if (entry == nullptr || found == schemas_.end()) return std::nullopt;
  return privilegesOf(roles_, *entry, found->second.access, sql::AclObject::kSchema);
}

std::optional<sql::HeldPrivileges> TableCatalog::databasePrivileges(const std::string& role) const {
  std::lock_guard lock(mutex_);
  const RoleEntry* entry = roleLocked(role);
  if (entry == nullptr) return std::nullopt;
  return privilegesOf(roles_, *entry, databaseAccess_, sql::AclObject::kDatabase);
}

void TableCatalog::requireRelationOwner(const std::string& role, const sql::QualifiedName& name, bool isView) const {
  std::lock_guard lock(mutex_);
  const AccessRights* rights = nullptr;
  if (auto table = tables_.find(name); table != tables_.end()) rights = &table->second->access;
  if (auto view = views_.find(name); view != views_.end()) rights = &view->second.access;
  if (rights == nullptr) return;
  const RoleEntry* entry = roleLocked(role);
  if (entry == nullptr || !actsAsOwner(roles_, *entry, rights->owner)) {
    SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be owner of {} {}", isView ? "view" : "table", name.name);
  }
}

void TableCatalog::requireSchemaOwner(const std::string& role, const std::string& schema) const {
  std::lock_guard lock(mutex_);
  auto found = schemas_.find(schema);
  if (found == schemas_.end()) return;
  const RoleEntry* entry = roleLocked(role);
  if (entry == nullptr || !actsAsOwner(roles_, *entry, found->second.access.owner)) {
    SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be owner of schema {}", schema);
  }
}

AccessRights TableCatalog::databaseAccess() const {
  std::lock_guard lock(mutex_);
  return databaseAccess_;
}

void TableCatalog::changeRelationAccess(const sql::QualifiedName& name, const AccessChange& change) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  if (auto table = tables_.find(name); table != tables_.end()) {
    auto changed = std::make_shared<TableEntry>(*table->second);
    change(changed->access, roles_);
    table->second = std::move(changed);
  } else if (auto view = views_.find(name); view != views_.end()) {
    AccessRights changed = view->second.access;  // a change that fails leaves the rights as they were
    change(changed, roles_);
    view->second.access = std::move(changed);
  } else {
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.toString());
  }
  persistLocked(before);
}

void TableCatalog::changeSchemaAccess(const std::string& schema, const AccessChange& change) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  requireSchemaLocked(schema);
  AccessRights changed = schemas_[schema].access;
  change(changed, roles_);
  schemas_[schema].access = std::move(changed);
  persistLocked(before);
}

void TableCatalog::changeDatabaseAccess(const AccessChange& change) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  AccessRights changed = databaseAccess_;
  change(changed, roles_);
  databaseAccess_ = std::move(changed);
  persistLocked(before);
}

}  // namespace shoal::coordinator
