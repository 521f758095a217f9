#include "coordinator/query/grant_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "common/status.h"
#include "sql/binder/search_path.h"

namespace shoal::coordinator {
namespace {

using sql::AclMode;
using sql::AclObject;

constexpr std::string_view kPrivilegeNotGranted = "01007";
constexpr std::string_view kPrivilegeNotRevoked = "01006";

/// One object GRANT or REVOKE changes.
struct GrantTarget {
  AclObject kind;
  sql::QualifiedName relation;  // kTable
  std::string schema;           // kSchema
  /// How messages name it: the relation or schema name, or the database's.
  std::string name;
};

std::vector<GrantTarget> targetsOf(ClusterContext& cluster, const sql::GrantPrivileges& command,
                                   const std::string& database) {
  std::vector<GrantTarget> targets;
  const auto schemas = cluster.tables.schemas();
  auto requireSchema = [&](const std::string& name) {
    if (sql::isSystemSchema(name)) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                      "privileges on system schemas are fixed: every role may use them");
    }
    if (std::none_of(schemas.begin(), schemas.end(), [&](const auto& schema) { return schema.name == name; })) {
      SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", name);
    }
  };
  switch (command.kind) {
    case AclObject::kTable:
      for (const auto& relation : command.relations) {
        targets.push_back({AclObject::kTable, relation, "", relation.name});
      }
      if (command.allTablesInSchemas) {
        for (const auto& schema : command.schemas) {
          requireSchema(schema);
          for (const auto& table : cluster.tables.list()) {
            if (table->schema == schema)
              targets.push_back({AclObject::kTable, table->qualifiedName(), "", table->name});
          }
          for (const auto& view : cluster.tables.listViews()) {
            if (view.schema == schema) targets.push_back({AclObject::kTable, view.qualifiedName(), "", view.name});
          }
        }
      }
      break;
    case AclObject::kSchema:
      for (const auto& schema : command.schemas) {
        requireSchema(schema);
        targets.push_back({AclObject::kSchema, {}, schema, schema});
      }
      break;
    case AclObject::kDatabase:
      targets.push_back({AclObject::kDatabase, {}, "", database});
      break;
  }
  return targets;
}

/// The role GRANT and REVOKE act for on an object they do not own: of the roles `self` acts as, the one that
/// holds the most of `wanted` with grant option (itself first), and what it may grant.
std::pair<int64_t, AclMode> bestGrantor(const RoleCatalog& roles, const RoleEntry& self, const AccessRights& rights,
                                        AclObject kind, AclMode wanted) {
  std::pair<int64_t, AclMode> best{self.oid, 0};
  std::vector<int64_t> candidates = {self.oid};
  for (int64_t role : rolesActingAs(roles, self)) {
    if (role != self.oid) candidates.push_back(role);
  }
  for (int64_t candidate : candidates) {
    AclMode options = 0;
    for (const auto& item : effectiveAcl(rights, kind)) {
      if (item.grantee == candidate) options |= item.grantOptions;
    }
    if (std::popcount(options & wanted) > std::popcount(best.second & wanted)) best = {candidate, options};
  }
  return best;
}

[[noreturn]] void permissionDenied(const GrantTarget& target) {
  SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied for {} {}", aclObjectName(target.kind),
                  target.name);
}

}  // namespace

std::string runGrantPrivileges(ClusterContext& cluster, const sql::GrantPrivileges& command, const std::string& user,
                               std::vector<Notice>& notices) {
  const auto self = cluster.tables.findRole(user);
  if (!self) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: role \"{}\" no longer exists", user);
  std::vector<int64_t> grantees;
  for (const auto& name : command.grantees) {
    if (name.empty()) {
      grantees.push_back(kPublicGrantee);
      continue;
    }
    auto role = cluster.tables.findRole(name);
    if (!role) SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", name);
    grantees.push_back(role->oid);
  }
  for (const auto& target : targetsOf(cluster, command, "shoal")) {
    auto change = [&](AccessRights& rights, const RoleCatalog& roles) {
      const RoleEntry& acting = *roles.find(user);
      int64_t grantor = rights.owner;
      AclMode grantable = sql::allPrivileges(target.kind);
      if (!actsAsOwner(roles, acting, rights.owner)) {
        std::tie(grantor, grantable) = bestGrantor(roles, acting, rights, target.kind, command.privileges);
        if (grantable == 0 && privilegesOf(roles, acting, rights, target.kind).privileges == 0) {
          permissionDenied(target);
        }
      }
      const AclMode changed = command.privileges & grantable;
      if (changed == 0 || (!command.allPrivileges && changed != command.privileges)) {
        const bool none = changed == 0;
        std::string message =
            command.grant
                ? fmt::format("{} privileges were granted for \"{}\"", none ? "no" : "not all", target.name)
                : fmt::format("{} privileges could be revoked for \"{}\"", none ? "no" : "not all", target.name);
        notices.push_back(
            Notice::warning(command.grant ? kPrivilegeNotGranted : kPrivilegeNotRevoked, std::move(message)));
      }
      std::vector<AclItem> acl = effectiveAcl(rights, target.kind);
      for (int64_t grantee : grantees) {
        acl = command.grant
                  ? grantInAcl(std::move(acl), grantee, grantor, changed, command.grantOption)
                  : revokeInAcl(std::move(acl), grantee, grantor, changed, command.grantOption, command.cascade);
      }
      rights.acl = std::move(acl);
    };
    switch (target.kind) {
      case AclObject::kTable:
        cluster.tables.changeRelationAccess(target.relation, change);
        break;
      case AclObject::kSchema:
        cluster.tables.changeSchemaAccess(target.schema, change);
        break;
      case AclObject::kDatabase:
        cluster.tables.changeDatabaseAccess(change);
        break;
    }
  }
  return command.grant ? "GRANT" : "REVOKE";
}

std::string runGrantRoles(ClusterContext& cluster, const sql::GrantRoles& command, const std::string& user,
                          std::vector<Notice>& notices) {
  const auto self = cluster.tables.findRole(user);
  if (!self) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: role \"{}\" no longer exists", user);
  for (const auto& roleName : command.roles) {
    auto role = cluster.tables.findRole(roleName);
    if (!role) SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", roleName);
    if (!self->superuser) {
      if (role->superuser) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be superuser to alter superusers");
      const bool admin = std::any_of(self->memberOf.begin(), self->memberOf.end(), [&](const auto& membership) {
        return membership.role == role->oid && membership.adminOption;
      });
      if (!self->createRole && !admin) {
        SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must have admin option on role \"{}\"", roleName);
      }
    }
    for (const auto& member : command.members) {
      if (command.grant) {
        if (!cluster.tables.grantRole(roleName, member, self->oid, command.adminOption)) {
          notices.push_back(
              Notice::notice(fmt::format("role \"{}\" is already a member of role \"{}\"", member, roleName)));
        }
      } else if (!cluster.tables.revokeRole(roleName, member, command.adminOption)) {
        notices.push_back(
            Notice::warning("01000", fmt::format("role \"{}\" is not a member of role \"{}\"", member, roleName)));
      }
    }
  }
  return command.grant ? "GRANT ROLE" : "REVOKE ROLE";
}

}  // namespace shoal::coordinator
