#include "coordinator/catalog/role_catalog.h"

#include <algorithm>
#include <set>

#include "common/status.h"
#include "coordinator/auth/scram.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {
namespace {

using nlohmann::json;

constexpr std::string_view kUndefinedObject = "42704";
constexpr std::string_view kDuplicateObject = "42710";
constexpr std::string_view kDependentObjectsStillExist = "2BP01";
constexpr std::string_view kInvalidGrantOperation = "0LP01";
constexpr std::string_view kReservedName = "42939";

void apply(RoleEntry& role, const RoleChanges& changes) {
  if (changes.superuser) role.superuser = *changes.superuser;
  if (changes.login) role.login = *changes.login;
  if (changes.createDb) role.createDb = *changes.createDb;
  if (changes.createRole) role.createRole = *changes.createRole;
  if (changes.inherit) role.inherit = *changes.inherit;
  if (changes.password) {
    const auto& password = *changes.password;
    if (!password) {
      role.password.reset();
    } else {
      role.password = isScramVerifier(*password) ? *password : makeScramVerifier(*password);
    }
  }
}

RoleEntry bootstrapRole() {
  RoleEntry role;
  role.name = std::string(sql::kOwnerRoleName);
  role.oid = sql::kOwnerRoleOid;
  role.superuser = role.login = role.createDb = role.createRole = true;
  return role;
}

/// PostgreSQL 15's predefined roles, with pg_monitor's memberships.
std::vector<RoleEntry> predefinedRoles() {
  const std::vector<std::pair<int64_t, std::string_view>> named = {
      {kPgMonitorOid, "pg_monitor"},
      {kPgReadAllSettingsOid, "pg_read_all_settings"},
      {kPgReadAllStatsOid, "pg_read_all_stats"},
      {kPgStatScanTablesOid, "pg_stat_scan_tables"},
      {kPgSignalBackendOid, "pg_signal_backend"},
      {kPgCheckpointOid, "pg_checkpoint"},
      {kPgReadServerFilesOid, "pg_read_server_files"},
      {kPgWriteServerFilesOid, "pg_write_server_files"},
      {kPgExecuteServerProgramOid, "pg_execute_server_program"},
      {sql::kDatabaseOwnerRoleOid, sql::kDatabaseOwnerRoleName},
      {kPgReadAllDataOid, "pg_read_all_data"},
      {kPgWriteAllDataOid, "pg_write_all_data"},
  };
  std::vector<RoleEntry> roles;
  for (const auto& [oid, name] : named) {
    RoleEntry role;
    role.name = std::string(name);
    role.oid = oid;
    role.predefined = true;
    if (oid == kPgMonitorOid) {
      for (int64_t member : {kPgReadAllSettingsOid, kPgReadAllStatsOid, kPgStatScanTablesOid}) {
        role.memberOf.push_back({member, sql::kOwnerRoleOid, false});
      }
    }
    roles.push_back(std::move(role));
  }
  return roles;
}

}  // namespace

RoleCatalog::RoleCatalog() {
  loadJson(json::array());
}

const RoleEntry* RoleCatalog::findByOid(int64_t oid) const {
  for (const auto& [name, role] : roles_) {
    if (role.oid == oid) return &role;
  }
  return nullptr;
}

bool RoleCatalog::grantMembership(const std::string& role, const std::string& member, int64_t grantor,
                                  bool adminOption) {
  const RoleEntry* granted = find(role);
  if (granted == nullptr) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", role);
  auto found = roles_.find(member);
  if (found == roles_.end()) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", member);
  if (role == member) SHOAL_USER_FAIL(kInvalidGrantOperation, "role \"{}\" is a member of role \"{}\"", member, role);
  if (granted->oid == sql::kDatabaseOwnerRoleOid) {
    SHOAL_USER_FAIL(kInvalidGrantOperation, "role \"{}\" cannot have explicit members", role);
  }
  // A cycle: `role` already is (directly or not) a member of `member`.
  std::vector<int64_t> pending = {granted->oid};
  std::set<int64_t> seen;
  while (!pending.empty()) {
    const RoleEntry* each = findByOid(pending.back());
    pending.pop_back();
    if (each == nullptr || !seen.insert(each->oid).second) continue;
    if (each->oid == found->second.oid) {
      SHOAL_USER_FAIL(kInvalidGrantOperation, "role \"{}\" is a member of role \"{}\"", role, member);
    }
    for (const auto& membership : each->memberOf) pending.push_back(membership.role);
  }
  for (auto& membership : found->second.memberOf) {
    if (membership.role == granted->oid) {
      if (membership.adminOption || !adminOption) return false;
      membership.adminOption = true;
      return true;
    }
  }
  found->second.memberOf.push_back({granted->oid, grantor, adminOption});
  return true;
}

bool RoleCatalog::revokeMembership(const std::string& role, const std::string& member, bool adminOptionOnly) {
  const RoleEntry* granted = find(role);
  if (granted == nullptr) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", role);
  auto found = roles_.find(member);
  if (found == roles_.end()) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", member);
  auto& memberships = found->second.memberOf;
  auto membership =
      std::find_if(memberships.begin(), memberships.end(), [&](const auto& each) { return each.role == granted->oid; });
  if (membership == memberships.end()) return false;
  if (adminOptionOnly) {
    membership->adminOption = false;
  } else {
    memberships.erase(membership);
  }
  return true;
}

const RoleEntry* RoleCatalog::find(const std::string& name) const {
  auto found = roles_.find(name);
  return found == roles_.end() ? nullptr : &found->second;
}

std::vector<RoleEntry> RoleCatalog::list() const {
  std::vector<RoleEntry> all;
  for (const auto& [name, role] : roles_) all.push_back(role);
  return all;
}

void RoleCatalog::create(const std::string& name, const RoleChanges& changes, int64_t oid) {
  if (roles_.contains(name)) SHOAL_USER_FAIL(kDuplicateObject, "role \"{}\" already exists", name);
  RoleEntry role;
  role.name = name;
  role.oid = oid;
  apply(role, changes);
  roles_[name] = std::move(role);
}

void RoleCatalog::alter(const std::string& name, const RoleChanges& changes) {
  auto found = roles_.find(name);
  if (found == roles_.end()) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", name);
  if (found->second.predefined) {
    throw ShoalError(Status(kReservedName, fmt::format("role name \"{}\" is reserved", name))
                         .withDetail("Cannot alter reserved roles."));
  }
  apply(found->second, changes);
}

void RoleCatalog::drop(const std::string& name) {
  auto found = roles_.find(name);
  if (found == roles_.end()) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", name);
  if (found->second.oid == sql::kOwnerRoleOid || found->second.predefined) {
    SHOAL_USER_FAIL(kDependentObjectsStillExist, "cannot drop role {} because it is required by the database system",
                    name);
  }
  const int64_t oid = found->second.oid;
  roles_.erase(found);
  for (auto& [other, role] : roles_) {
    std::erase_if(role.memberOf, [&](const auto& membership) { return membership.role == oid; });
  }
}

json RoleCatalog::toJson() const {
  json all = json::array();
  for (const auto& [name, role] : roles_) {
    if (role.predefined) continue;
    json memberOf = json::array();
    for (const auto& membership : role.memberOf) {
      memberOf.push_back(
          json{{"role", membership.role}, {"grantor", membership.grantor}, {"admin", membership.adminOption}});
    }
    all.push_back(json{{"member_of", memberOf},
                       {"name", role.name},
                       {"oid", role.oid},
                       {"superuser", role.superuser},
                       {"login", role.login},
                       {"create_db", role.createDb},
                       {"create_role", role.createRole},
                       {"inherit", role.inherit},
                       {"password", role.password ? json(*role.password) : json(nullptr)}});
  }
  return all;
}

void RoleCatalog::loadJson(const json& roles) {
  roles_.clear();
  RoleEntry bootstrap = bootstrapRole();
  roles_[bootstrap.name] = bootstrap;
  for (auto& role : predefinedRoles()) roles_[role.name] = std::move(role);
  for (const auto& stored : roles) {
    RoleEntry role;
    role.name = stored.at("name");
    role.oid = stored.at("oid");
    role.superuser = stored.at("superuser");
    role.login = stored.at("login");
    role.createDb = stored.value("create_db", false);
    role.createRole = stored.value("create_role", false);
    role.inherit = stored.value("inherit", true);
    if (!stored.at("password").is_null()) role.password = stored.at("password").get<std::string>();
    for (const auto& membership : stored.value("member_of", json::array())) {
      role.memberOf.push_back({membership.at("role"), membership.at("grantor"), membership.at("admin")});
    }
    roles_[role.name] = std::move(role);
  }
}

}  // namespace shoal::coordinator
