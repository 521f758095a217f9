#include "sql/binder/schema_binder.h"

#include "common/status.h"
#include "sql/binder/search_path.h"

namespace shoal::sql {

CreateSchema bindCreateSchema(const pg_query::CreateSchemaStmt& create, const CatalogReader& catalog) {
  CreateSchema bound;
  bound.ifNotExists = create.if_not_exists();
  const SessionInfo* session = catalog.session();
  const std::string user = catalog.privilegeRole();
  // Making a schema takes CREATE on the database, which only its owner holds unless granted.
  const auto onDatabase = catalog.databasePrivileges(user);
  if (!onDatabase || !onDatabase->has(kAclCreate)) {
    SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied for database {}",
                    session != nullptr ? session->database : std::string(kOwnerRoleName));
  }
  std::string owner = user;
  if (create.has_authrole()) {
    const auto& role = create.authrole();
    if (role.roletype() == pg_query::ROLESPEC_CSTRING) {
      owner = role.rolename();
      if (!catalog.databasePrivileges(owner)) {
        SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", owner);
      }
      bound.owner = owner;
    }
  }
  // CREATE SCHEMA AUTHORIZATION role names the schema after the role.
  bound.name = create.schemaname().empty() ? owner : create.schemaname();
  if (bound.name.starts_with("pg_")) {
    throw ShoalError(Status(SqlState::kReservedName, fmt::format("unacceptable schema name \"{}\"", bound.name))
                         .withDetail("The prefix \"pg_\" is reserved for system schemas."));
  }
  if (create.schema_elts_size() > 0) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                    "CREATE SCHEMA with elements is not supported; create the schema, then its tables");
  }
  return bound;
}

DropSchema bindDropSchema(const pg_query::DropStmt& drop) {
  DropSchema bound;
  bound.ifExists = drop.missing_ok();
  bound.cascade = drop.behavior() == pg_query::DROP_CASCADE;
  for (const auto& object : drop.objects()) bound.names.push_back(object.string().sval());
  return bound;
}

QualifiedName droppedRelationName(const pg_query::List& names, const CatalogReader& catalog) {
  const int count = names.items_size();
  if (count > 3) SHOAL_USER_FAIL(SqlState::kSyntaxError, "improper qualified name (too many dotted names)");
  if (count == 3) {
    const std::string& database = names.items(0).string().sval();
    const SessionInfo* session = catalog.session();
    if (session == nullptr || database != session->database) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "cross-database references are not implemented: {}.{}.{}",
                      database, names.items(1).string().sval(), names.items(2).string().sval());
    }
  }
  const std::string& name = names.items(count - 1).string().sval();
  if (count >= 2) return QualifiedName{names.items(count - 2).string().sval(), name};
  if (auto found = resolveRelation(catalog, "", name)) return *found;
  return QualifiedName{"", name};
}

}  // namespace shoal::sql
