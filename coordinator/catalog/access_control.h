#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coordinator/catalog/role_catalog.h"
#include "sql/binder/acl.h"

namespace shoal::coordinator {

/// The grantee that stands for every role (PUBLIC), as aclitem stores it.
inline constexpr int64_t kPublicGrantee = 0;

/// One entry of an access control list: what `grantor` granted `grantee`, as PostgreSQL's aclitem.
struct AclItem {
  int64_t grantee = kPublicGrantee;
  int64_t grantor = 0;
  sql::AclMode privileges = 0;
  sql::AclMode grantOptions = 0;  // a subset of privileges
};

/// Who owns an object and who may do what with it. `acl` is nullopt until the first GRANT or REVOKE: the
/// object then has its kind's default (the owner holds everything), as in PostgreSQL.
struct AccessRights {
  int64_t owner = 0;
  std::optional<std::vector<AclItem>> acl;
};

/// The ACL in force: `rights.acl`, or the default of an object of `kind` owned by `rights.owner`.
std::vector<AclItem> effectiveAcl(const AccessRights& rights, sql::AclObject kind);

/// The roles whose privileges `role` uses: itself and, through INHERIT, the roles it is a member of, to any
/// depth (the database owner is implicitly pg_database_owner).
std::set<int64_t> rolesActingAs(const RoleCatalog& roles, const RoleEntry& role);

/// What `role` may do with an object of `kind`: everything for a superuser; the owner's rights for a role
/// acting as the owner; else what the ACL grants it, the roles it acts as, and PUBLIC, with the predefined
/// pg_read_all_data and pg_write_all_data roles' privileges on tables and schemas.
sql::HeldPrivileges privilegesOf(const RoleCatalog& roles, const RoleEntry& role, const AccessRights& rights,
                                 sql::AclObject kind);

/// Whether `role` may act as the owner `owner` (ALTER, DROP, COMMENT, GRANT as grantor): a superuser or a
/// role that acts as the owner.
bool actsAsOwner(const RoleCatalog& roles, const RoleEntry& role, int64_t owner);

/// GRANT: adds `privileges` (with their grant options when `withGrantOption`) to what `grantor` granted
/// `grantee`.
std::vector<AclItem> grantInAcl(std::vector<AclItem> acl, int64_t grantee, int64_t grantor, sql::AclMode privileges,
                                bool withGrantOption);
/// REVOKE: takes `privileges` (only their grant options when `grantOptionOnly`) from what `grantor` granted
/// `grantee`. When the grantee thereby loses grant options it has granted on, those grants go too with
/// `cascade`; without it that fails with 2BP01, as in PostgreSQL.
std::vector<AclItem> revokeInAcl(std::vector<AclItem> acl, int64_t grantee, int64_t grantor, sql::AclMode privileges,
                                 bool grantOptionOnly, bool cascade);

/// aclitem texts of an ACL ("alice=r*/shoal", "=U/pg_database_owner"), as relacl and nspacl list them.
std::vector<std::string> aclTexts(const std::vector<AclItem>& acl, const std::function<std::string(int64_t)>& nameOf);

nlohmann::json accessToJson(const AccessRights& rights);
/// Reads what accessToJson wrote; an object stored before privileges existed is the bootstrap superuser's.
AccessRights accessFromJson(const nlohmann::json& object, int64_t defaultOwner);

}  // namespace shoal::coordinator
