#pragma once

#include "pg_query/pg_query.pb.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// GRANT and REVOKE of privileges on tables and views, schemas and the database, with PostgreSQL's errors:
/// 0LP01 for a privilege the kind of object does not have, 42P01 / 3F000 / 3D000 for a missing object,
/// 0A000 for column privileges, other kinds of object, default privileges and GRANTED BY. Who may grant
/// what is the coordinator's to check.
GrantPrivileges bindGrant(const pg_query::GrantStmt& grant, const CatalogReader& catalog);

/// GRANT role TO member and REVOKE role FROM member.
GrantRoles bindGrantRole(const pg_query::GrantRoleStmt& grant, const CatalogReader& catalog);

}  // namespace shoal::sql
