#include "coordinator/query/role_commands.h"

#include <fmt/format.h>

#include "common/status.h"

namespace shoal::coordinator {
namespace {

constexpr std::string_view kObjectInUse = "55006";

RoleChanges changesOf(const sql::RoleOptions& options) {
  RoleChanges changes;
  changes.superuser = options.superuser;
  changes.login = options.login;
  changes.createDb = options.createDb;
  changes.createRole = options.createRole;
  changes.inherit = options.inherit;
  changes.password = options.password;
  return changes;
}

/// The session's role among `roles`; a user whose role was dropped since it logged in may do nothing here.
const RoleEntry& sessionRole(const RoleCatalog& roles, const std::string& user) {
  const RoleEntry* role = roles.find(user);
  if (role == nullptr) {
    SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: role \"{}\" no longer exists", user);
  }
  return *role;
}

}  // namespace

// Each check runs under the catalog's lock, against the roles as they are when the change is made.

std::string runCreateRole(ClusterContext& cluster, const sql::CreateRole& command, const std::string& user) {
  cluster.tables.createRole(command.name, changesOf(command.options), [&](const RoleCatalog& roles) {
    const RoleEntry& self = sessionRole(roles, user);
    if (self.superuser) return;
    if (command.options.superuser.value_or(false)) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be superuser to create superusers");
    }
    if (!self.createRole) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied to create role");
  });
  return "CREATE ROLE";
}

std::string runAlterRole(ClusterContext& cluster, const sql::AlterRole& command, const std::string& user) {
  const sql::RoleOptions& options = command.options;
  cluster.tables.alterRole(command.name, changesOf(options), [&](const RoleCatalog& roles) {
    const RoleEntry& self = sessionRole(roles, user);
    const RoleEntry* target = roles.find(command.name);
    if (target == nullptr) SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", command.name);
    if (target->oid == sql::kOwnerRoleOid && options.superuser && !*options.superuser) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: bootstrap user must be superuser");
    }
    if (self.superuser) return;
    const bool onlyOwnPassword = target->name == self.name && !options.superuser && !options.login &&
                                 !options.createDb && !options.createRole && !options.inherit;
    if (onlyOwnPassword) return;
    if (target->superuser || options.superuser) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege,
                      "must be superuser to alter superuser roles or change superuser attribute");
    }
    if (!self.createRole) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied");
  });
  return "ALTER ROLE";
}

std::string runDropRole(ClusterContext& cluster, const sql::DropRole& command, const std::string& user,
                        std::vector<Notice>& notices) {
  auto authorize = [&](const RoleCatalog& roles) {
    const RoleEntry& self = sessionRole(roles, user);
    if (!self.superuser && !self.createRole) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied to drop role");
    }
    for (const auto& name : command.names) {
      if (name == user) SHOAL_USER_FAIL(kObjectInUse, "current user cannot be dropped");
      const RoleEntry* target = roles.find(name);
      if (target != nullptr && target->superuser && !self.superuser) {
        SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be superuser to drop superusers");
      }
    }
  };
  for (const auto& skipped : cluster.tables.dropRoles(command.names, command.ifExists, authorize)) {
    notices.push_back(Notice::notice(fmt::format("role \"{}\" does not exist, skipping", skipped)));
  }
  return "DROP ROLE";
}

}  // namespace shoal::coordinator
