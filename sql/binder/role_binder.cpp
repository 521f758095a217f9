#include "sql/binder/role_binder.h"

#include <fmt/format.h>

#include "common/status.h"

namespace shoal::sql {
namespace {

bool flag(const pg_query::DefElem& option) {
  if (option.arg().has_boolean()) return option.arg().boolean().boolval();
  if (option.arg().has_integer()) return option.arg().integer().ival() != 0;
  return true;
}

RoleOptions bindOptions(const google::protobuf::RepeatedPtrField<pg_query::Node>& options) {
  RoleOptions bound;
  std::vector<std::string> seen;
  for (const auto& node : options) {
    const auto& option = node.def_elem();
    const std::string& name = option.defname();
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      SHOAL_USER_FAIL(SqlState::kSyntaxError, "conflicting or redundant options");
    }
    seen.push_back(name);
    if (name == "superuser") {
      bound.superuser = flag(option);
    } else if (name == "canlogin") {
      bound.login = flag(option);
    } else if (name == "createdb") {
      bound.createDb = flag(option);
    } else if (name == "createrole") {
      bound.createRole = flag(option);
    } else if (name == "inherit") {
      bound.inherit = flag(option);
    } else if (name == "password") {
      bound.password = option.has_arg() && option.arg().has_string()
                           ? std::optional<std::string>(option.arg().string().sval())
                           : std::nullopt;
    } else if ((name == "isreplication" || name == "bypassrls") && !flag(option)) {
      // NOREPLICATION and NOBYPASSRLS: what every Shoal role is.
    } else {
      const std::string shown = name == "isreplication"     ? "REPLICATION"
                                : name == "bypassrls"       ? "BYPASSRLS"
                                : name == "connectionlimit" ? "CONNECTION LIMIT"
                                : name == "validUntil"      ? "VALID UNTIL"
                                : name == "sysid"           ? "SYSID"
                                                            : "IN ROLE, ROLE and ADMIN";
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "{} is not supported for roles yet", shown);
    }
  }
  return bound;
}

std::string roleName(const pg_query::RoleSpec& role, const CatalogReader& catalog) {
  if (role.roletype() == pg_query::ROLESPEC_CSTRING) return role.rolename();
  if (role.roletype() == pg_query::ROLESPEC_PUBLIC) {
    SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"public\" does not exist");
  }
  const SessionInfo* session = catalog.session();
  return session != nullptr ? session->user : std::string(kOwnerRoleName);
}

void refuseReservedName(const std::string& name) {
  if (name.starts_with("pg_")) {
    throw ShoalError(Status(SqlState::kReservedName, fmt::format("role name \"{}\" is reserved", name))
                         .withDetail("Role names starting with \"pg_\" are reserved."));
  }
  if (name == "public" || name == "none") {
    SHOAL_USER_FAIL(SqlState::kReservedName, "role name \"{}\" is reserved", name);
  }
}

}  // namespace

CreateRole bindCreateRole(const pg_query::CreateRoleStmt& create) {
  if (create.stmt_type() == pg_query::ROLESTMT_GROUP) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "CREATE GROUP is not supported: create a role");
  }
  CreateRole bound;
  bound.name = create.role();
  refuseReservedName(bound.name);
  bound.options = bindOptions(create.options());
  // CREATE USER is CREATE ROLE ... LOGIN.
  if (!bound.options.login) bound.options.login = create.stmt_type() == pg_query::ROLESTMT_USER;
  return bound;
}

AlterRole bindAlterRole(const pg_query::AlterRoleStmt& alter, const CatalogReader& catalog) {
  AlterRole bound;
  bound.name = roleName(alter.role(), catalog);
  bound.options = bindOptions(alter.options());
  return bound;
}

DropRole bindDropRole(const pg_query::DropRoleStmt& drop, const CatalogReader& catalog) {
  DropRole bound;
  bound.ifExists = drop.missing_ok();
  for (const auto& role : drop.roles()) bound.names.push_back(roleName(role.role_spec(), catalog));
  return bound;
}

}  // namespace shoal::sql
