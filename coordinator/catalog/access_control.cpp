#include "coordinator/catalog/access_control.h"

#include <algorithm>

#include "common/status.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

using nlohmann::json;
using sql::AclMode;
using sql::AclObject;

std::vector<AclItem> effectiveAcl(const AccessRights& rights, AclObject kind) {
  if (rights.acl) return *rights.acl;
  const AclMode all = sql::allPrivileges(kind);
  // The owner grants on as owner, so its item carries no grant options (PostgreSQL prints "o=arwdDxt/o").
  std::vector<AclItem> acl = {{rights.owner, rights.owner, all, 0}};
  // A database's default also lets everyone connect and make temporary tables (listed first, as PostgreSQL does).
  if (kind == AclObject::kDatabase) {
    acl.insert(acl.begin(), AclItem{kPublicGrantee, rights.owner, sql::kAclConnect | sql::kAclTemporary, 0});
  }
  return acl;
}

std::set<int64_t> rolesActingAs(const RoleCatalog& roles, const RoleEntry& role) {
  std::set<int64_t> acting;
  std::vector<const RoleEntry*> pending = {&role};
  while (!pending.empty()) {
    const RoleEntry* each = pending.back();
    pending.pop_back();
    if (!acting.insert(each->oid).second) continue;
    // A role without INHERIT uses only its own privileges (PostgreSQL 15 reads the member's flag).
    if (!each->inherit) continue;
    std::vector<int64_t> parents;
    for (const auto& membership : each->memberOf) parents.push_back(membership.role);
    if (each->oid == sql::kOwnerRoleOid) parents.push_back(sql::kDatabaseOwnerRoleOid);
    for (int64_t parent : parents) {
      if (const RoleEntry* found = roles.findByOid(parent)) pending.push_back(found);
    }
  }
  return acting;
}

bool actsAsOwner(const RoleCatalog& roles, const RoleEntry& role, int64_t owner) {
  return role.superuser || rolesActingAs(roles, role).contains(owner);
}

sql::HeldPrivileges privilegesOf(const RoleCatalog& roles, const RoleEntry& role, const AccessRights& rights,
                                 AclObject kind) {
  const AclMode all = sql::allPrivileges(kind);
  if (role.superuser) return {all, all};
  const std::set<int64_t> acting = rolesActingAs(roles, role);
  if (acting.contains(rights.owner)) return {all, all};
  sql::HeldPrivileges held;
  for (const auto& item : effectiveAcl(rights, kind)) {
    if (item.grantee != kPublicGrantee && !acting.contains(item.grantee)) continue;
    held.privileges |= item.privileges;
    // Grant options are the role's own or its roles', never PUBLIC's.
    if (item.grantee != kPublicGrantee) held.grantOptions |= item.grantOptions;
  }
  if (kind == AclObject::kTable || kind == AclObject::kSchema) {
    if (acting.contains(kPgReadAllDataOid)) held.privileges |= sql::kAclSelect | sql::kAclUsage;
    if (acting.contains(kPgWriteAllDataOid)) {
      held.privileges |= sql::kAclInsert | sql::kAclUpdate | sql::kAclDelete | sql::kAclUsage;
    }
    held.privileges &= all;
  }
  return held;
}

std::vector<AclItem> grantInAcl(std::vector<AclItem> acl, int64_t grantee, int64_t grantor, AclMode privileges,
                                bool withGrantOption) {
  auto item = std::find_if(acl.begin(), acl.end(),
                           [&](const auto& each) { return each.grantee == grantee && each.grantor == grantor; });
  if (item == acl.end()) item = acl.insert(acl.end(), AclItem{grantee, grantor, 0, 0});
  item->privileges |= privileges;
  if (withGrantOption) item->grantOptions |= privileges;
  return acl;
}

std::vector<AclItem> revokeInAcl(std::vector<AclItem> acl, int64_t grantee, int64_t grantor, AclMode privileges,
                                 bool grantOptionOnly, bool cascade) {
  auto item = std::find_if(acl.begin(), acl.end(),
                           [&](const auto& each) { return each.grantee == grantee && each.grantor == grantor; });
  if (item == acl.end()) return acl;
  const AclMode lostOptions = item->grantOptions & privileges;
  item->grantOptions &= ~privileges;
  if (!grantOptionOnly) item->privileges &= ~privileges;
  if (item->privileges == 0) acl.erase(item);
  // What the grantee can no longer grant, now that no grantor gives it the option.
  AclMode remainingOptions = 0;
  for (const auto& each : acl) {
    if (each.grantee == grantee) remainingOptions |= each.grantOptions;
  }
  const AclMode lost = lostOptions & ~remainingOptions;
  if (lost == 0 || grantee == kPublicGrantee) return acl;
  std::vector<int64_t> dependents;
  for (const auto& each : acl) {
    if (each.grantor == grantee && each.grantee != grantee && (each.privileges & lost) != 0) {
      dependents.push_back(each.grantee);
    }
  }
  if (dependents.empty()) return acl;
  if (!cascade) {
    throw ShoalError(Status("2BP01", "dependent privileges exist").withHint("Use CASCADE to revoke them too."));
  }
  for (int64_t dependent : dependents) acl = revokeInAcl(std::move(acl), dependent, grantee, lost, false, true);
  return acl;
}

std::vector<std::string> aclTexts(const std::vector<AclItem>& acl, const std::function<std::string(int64_t)>& nameOf) {
  std::vector<std::string> texts;
  for (const auto& item : acl) {
    if (item.privileges == 0) continue;
    const std::string grantee = item.grantee == kPublicGrantee ? std::string() : nameOf(item.grantee);
    texts.push_back(grantee + "=" + sql::aclLetters(item.privileges, item.grantOptions) + "/" + nameOf(item.grantor));
  }
  return texts;
}

json accessToJson(const AccessRights& rights) {
  json out{{"owner", rights.owner}};
  if (rights.acl) {
    json items = json::array();
    for (const auto& item : *rights.acl) {
      items.push_back(json{{"grantee", item.grantee},
                           {"grantor", item.grantor},
                           {"privileges", item.privileges},
                           {"grant_options", item.grantOptions}});
    }
    out["acl"] = items;
  }
  return out;
}

AccessRights accessFromJson(const json& object, int64_t defaultOwner) {
  AccessRights rights;
  rights.owner = defaultOwner;
  if (!object.contains("access")) return rights;
  const json& access = object.at("access");
  rights.owner = access.at("owner");
  if (access.contains("acl")) {
    rights.acl.emplace();
    for (const auto& item : access.at("acl")) {
      rights.acl->push_back({item.at("grantee"), item.at("grantor"), item.at("privileges"), item.at("grant_options")});
    }
  }
  return rights;
}

}  // namespace shoal::coordinator
