#pragma once

#include "pg_query/pg_query.pb.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]: the name checked as PostgreSQL checks it
/// (42939 for a pg_ prefix); schema elements (CREATE SCHEMA s CREATE TABLE ...) are refused with 0A000.
CreateSchema bindCreateSchema(const pg_query::CreateSchemaStmt& create, const CatalogReader& catalog);

/// DROP SCHEMA [IF EXISTS] name, ... [CASCADE | RESTRICT].
DropSchema bindDropSchema(const pg_query::DropStmt& drop);

/// The relation a DROP names ([database.][schema.]name), with the schema the search path finds it in when
/// it is unqualified; unqualified and found nowhere, its schema stays empty.
QualifiedName droppedRelationName(const pg_query::List& names, const CatalogReader& catalog);

}  // namespace shoal::sql
