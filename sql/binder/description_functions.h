#pragma once

#include <string_view>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// The schemas' comments (COMMENT ON SCHEMA, and PostgreSQL's own on pg_catalog and public), as pg_description
/// holds them.
std::vector<ObjectComment> schemaComments(const std::vector<SchemaDescription>& schemas);

/// Whether `name` is one of the comment lookups: obj_description, col_description, shobj_description.
bool isDescriptionFunction(std::string_view name);

/// Binds a comment lookup over its bound `arguments`, answering from the comments as the statement is bound
/// (COMMENT ON), as PostgreSQL 15 answers from pg_description:
/// - obj_description(oid, 'pg_class') and col_description(oid, attnum): a relation's or column's comment;
/// - obj_description(oid, 'pg_namespace'): PostgreSQL's comments on schemas public and pg_catalog;
/// - obj_description(oid): either;
/// - shobj_description(oid, catalog): NULL (Shoal's database, tablespaces and roles carry no comments).
/// NULL where there is no comment, and for NULL arguments. A catalog other than pg_class and pg_namespace,
/// whose built-in comments Shoal does not have, fails with 0A000; a wrong number or type of arguments
/// with 42883 (`undefined`).
engine::ExpressionPtr bindDescriptionFunction(std::string_view name, std::vector<engine::ExpressionPtr> arguments,
                                              const CatalogReader& catalog);

}  // namespace shoal::sql
