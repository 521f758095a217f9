#pragma once

#include "pg_query/pg_query.pb.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// CREATE ROLE / USER, ALTER ROLE / USER and DROP ROLE / USER, with PostgreSQL's options and errors (42601
/// for an option given twice; 0A000 for memberships, connection limits and expiry, which Shoal lacks).
/// Whether the session may run them is the coordinator's to check.
CreateRole bindCreateRole(const pg_query::CreateRoleStmt& create);
AlterRole bindAlterRole(const pg_query::AlterRoleStmt& alter, const CatalogReader& catalog);
DropRole bindDropRole(const pg_query::DropRoleStmt& drop, const CatalogReader& catalog);

}  // namespace shoal::sql
