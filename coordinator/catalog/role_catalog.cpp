#include "coordinator/catalog/role_catalog.h"

#include "common/status.h"
#include "coordinator/auth/scram.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {
namespace {

using nlohmann::json;

constexpr std::string_view kUndefinedObject = "42704";
constexpr std::string_view kDuplicateObject = "42710";
constexpr std::string_view kDependentObjectsStillExist = "2BP01";

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

}  // namespace

RoleCatalog::RoleCatalog() {
  RoleEntry bootstrap = bootstrapRole();
  roles_[bootstrap.name] = bootstrap;
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
  apply(found->second, changes);
}

void RoleCatalog::drop(const std::string& name) {
  auto found = roles_.find(name);
  if (found == roles_.end()) SHOAL_USER_FAIL(kUndefinedObject, "role \"{}\" does not exist", name);
  if (found->second.oid == sql::kOwnerRoleOid) {
    SHOAL_USER_FAIL(kDependentObjectsStillExist, "cannot drop role {} because it is required by the database system",
                    name);
  }
  roles_.erase(found);
}

json RoleCatalog::toJson() const {
  json all = json::array();
  for (const auto& [name, role] : roles_) {
    all.push_back(json{{"name", role.name},
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
    roles_[role.name] = std::move(role);
  }
}

}  // namespace shoal::coordinator
