#include "sql/binder/grant_binder.h"

#include <fmt/format.h>

#include "common/status.h"
#include "sql/binder/search_path.h"

namespace shoal::sql {
namespace {

constexpr std::string_view kInvalidGrantOperation = "0LP01";

/// A role named in GRANT or REVOKE: a name, CURRENT_USER / SESSION_USER / CURRENT_ROLE, or PUBLIC ("").
std::string granteeName(const pg_query::RoleSpec& role, const CatalogReader& catalog) {
  switch (role.roletype()) {
    case pg_query::ROLESPEC_CSTRING:
      return role.rolename();
    case pg_query::ROLESPEC_PUBLIC:
      return "";
    default: {
      const SessionInfo* session = catalog.session();
      return session != nullptr ? session->user : std::string(kOwnerRoleName);
    }
  }
}

void refuseGrantedBy(const pg_query::RoleSpec& grantor, const CatalogReader& catalog) {
  if (grantor.roletype() == pg_query::ROLESPEC_CSTRING || grantor.roletype() == pg_query::ROLESPEC_PUBLIC) {
    const SessionInfo* session = catalog.session();
    if (session == nullptr || grantor.rolename() != session->user) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "grantor must be current user");
    }
  }
}

AclObject objectKind(pg_query::ObjectType type) {
  switch (type) {
    case pg_query::OBJECT_TABLE:
      return AclObject::kTable;
    case pg_query::OBJECT_SCHEMA:
      return AclObject::kSchema;
    case pg_query::OBJECT_DATABASE:
      return AclObject::kDatabase;
    case pg_query::OBJECT_SEQUENCE:
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "privileges on sequences are not supported: Shoal has none");
    case pg_query::OBJECT_FUNCTION:
    case pg_query::OBJECT_PROCEDURE:
    case pg_query::OBJECT_ROUTINE:
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                      "privileges on functions are not supported: every role may execute every function");
    default:
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                      "privileges can be granted on tables, views, schemas and the database only");
  }
}

}  // namespace

GrantPrivileges bindGrant(const pg_query::GrantStmt& grant, const CatalogReader& catalog) {
  GrantPrivileges bound;
  bound.grant = grant.is_grant();
  bound.kind = objectKind(grant.objtype());
  if (grant.targtype() == pg_query::ACL_TARGET_DEFAULTS) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "ALTER DEFAULT PRIVILEGES is not supported");
  }
  if (grant.has_grantor()) refuseGrantedBy(grant.grantor(), catalog);
  bound.grantOption = grant.grant_option();
  bound.cascade = grant.behavior() == pg_query::DROP_CASCADE;
  const AclMode allowed = allPrivileges(bound.kind);
  if (grant.privileges_size() == 0) {
    bound.allPrivileges = true;
    bound.privileges = allowed;
  }
  for (const auto& node : grant.privileges()) {
    const auto& privilege = node.access_priv();
    if (privilege.cols_size() > 0) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "column privileges are not supported: grant on the whole table");
    }
    if (privilege.priv_name().empty()) {  // ALL (columns)
      bound.allPrivileges = true;
      bound.privileges = allowed;
      continue;
    }
    std::optional<AclMode> named = privilegeNamed(privilege.priv_name());
    if (!named) SHOAL_USER_FAIL(SqlState::kSyntaxError, "unrecognized privilege type \"{}\"", privilege.priv_name());
    if ((*named & allowed) == 0) {
      std::string keyword(privilegeKeyword(*named));
      SHOAL_USER_FAIL(kInvalidGrantOperation, "invalid privilege type {} for {}", keyword, aclObjectName(bound.kind));
    }
    bound.privileges |= *named;
  }
  for (const auto& object : grant.objects()) {
    if (grant.targtype() == pg_query::ACL_TARGET_ALL_IN_SCHEMA) {
      bound.allTablesInSchemas = true;
      bound.schemas.push_back(object.string().sval());
      continue;
    }
    switch (bound.kind) {
      case AclObject::kTable: {
        const auto& range = object.range_var();
        std::optional<QualifiedName> resolved = resolveRelation(catalog, range.schemaname(), range.relname());
        if (!resolved || (!catalog.findTable(*resolved) && !catalog.findView(*resolved))) {
          SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist",
                          range.schemaname().empty() ? range.relname() : range.schemaname() + "." + range.relname());
        }
        if (isSystemSchema(resolved->schema)) {
          SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                          "privileges on system relations are fixed: every role may read them");
        }
        bound.relations.push_back(*resolved);
        break;
      }
      case AclObject::kSchema:
        bound.schemas.push_back(object.string().sval());
        break;
      case AclObject::kDatabase: {
        const std::string& name = object.string().sval();
        const SessionInfo* session = catalog.session();
        if (session != nullptr && name != session->database) {
          SHOAL_USER_FAIL(SqlState::kInvalidCatalogName, "database \"{}\" does not exist", name);
        }
        break;
      }
    }
  }
  for (const auto& node : grant.grantees()) {
    bound.grantees.push_back(granteeName(node.role_spec(), catalog));
    if (bound.grant && bound.grantOption && bound.grantees.back().empty()) {
      SHOAL_USER_FAIL(kInvalidGrantOperation, "grant options can only be granted to roles");
    }
  }
  return bound;
}

GrantRoles bindGrantRole(const pg_query::GrantRoleStmt& grant, const CatalogReader& catalog) {
  GrantRoles bound;
  bound.grant = grant.is_grant();
  bound.adminOption = grant.admin_opt();
  if (grant.has_grantor()) refuseGrantedBy(grant.grantor(), catalog);
  for (const auto& node : grant.granted_roles()) bound.roles.push_back(node.access_priv().priv_name());
  for (const auto& node : grant.grantee_roles()) {
    std::string member = granteeName(node.role_spec(), catalog);
    if (member.empty()) SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"public\" does not exist");
    bound.members.push_back(std::move(member));
  }
  return bound;
}

}  // namespace shoal::sql
