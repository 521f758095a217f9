#pragma once

#include <string_view>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// True for the catalog functions clients call while browsing that take one OID: pg_get_userbyid and
/// pg_table_is_visible.
bool isCatalogFunction(std::string_view name);

/// Binds catalog function `name` over `oid` (a BIGINT, as Shoal's oid columns are) into plain expressions:
/// - pg_get_userbyid(oid): the name of the owner role or of pg_database_owner (which owns schema public),
///   else PostgreSQL's "unknown (OID=n)";
/// - pg_table_is_visible(oid): TRUE for a relation an unqualified name finds, FALSE for another one, NULL
///   for an OID that names no relation; the catalog's relations as of binding are compared with.
/// NULL in, NULL out, as in PostgreSQL.
engine::ExpressionPtr bindCatalogFunction(std::string_view name, engine::ExpressionPtr oid,
                                          const CatalogReader& catalog);

}  // namespace shoal::sql
