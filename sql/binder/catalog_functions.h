#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// The argument types of the catalog functions clients call while browsing, nullopt for another name:
/// pg_get_userbyid(oid), pg_table_is_visible(oid), pg_type_is_visible(oid), pg_encoding_to_char(integer),
/// format_type(oid, integer), pg_get_serial_sequence(text, text), pg_relation_is_publishable(oid),
/// pg_get_statisticsobjdef_columns(oid) and the routine functions of routine_functions.h.
/// Shoal's oid columns are BIGINT.
std::optional<std::vector<engine::LogicalType>> catalogFunctionSignature(std::string_view name);

/// Binds catalog function `name` over `arguments` (of its signature's types) into plain expressions, with
/// PostgreSQL 15's answers:
/// - pg_get_userbyid(oid): the name of the owner role or of pg_database_owner (which owns schema public),
///   else "unknown (OID=n)";
/// - pg_table_is_visible(oid): TRUE for a relation an unqualified name finds, FALSE for another one, NULL
///   for an OID that names no relation; the catalog's relations as of binding are compared with;
/// - pg_type_is_visible(oid): TRUE for Shoal's types (all in pg_catalog), NULL for another OID;
/// - pg_encoding_to_char(n): "UTF8" for 6, "SQL_ASCII" for 0, else "";
/// - format_type(type, typmod): "character varying(25)", "numeric(15,2)", ... for Shoal's types, "???" for
///   another OID;
/// - pg_get_serial_sequence(table, column): NULL, as Shoal has no sequences;
/// - pg_relation_is_publishable(oid): TRUE for a user table, FALSE for a view or system relation, NULL for
///   an OID that names no relation;
/// - pg_get_statisticsobjdef_columns(oid): NULL, as Shoal has no extended statistics.
/// NULL in, NULL out, as in PostgreSQL.
engine::ExpressionPtr bindCatalogFunction(std::string_view name, std::vector<engine::ExpressionPtr> arguments,
                                          const CatalogReader& catalog);

/// pg_get_indexdef(index oid [, column integer, pretty boolean]) and pg_get_constraintdef(constraint oid
/// [, pretty boolean]) for the primary keys, Shoal's only indexes and constraints, as PostgreSQL 15 prints
/// them: "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a, b)", a key column's name for column n
/// (all of it for 0, '' past the last), "PRIMARY KEY (a, b)"; NULL for an OID that names none. `arguments`
/// are BIGINT, then INTEGER and BOOLEAN (the pretty flag changes nothing for these).
/// pg_get_viewdef(view oid): a view's query, as pg_views.definition shows it (as written, not deparsed);
/// NULL for an OID that names no view.
engine::ExpressionPtr bindViewDefinition(engine::ExpressionPtr oid, const CatalogReader& catalog);

engine::ExpressionPtr bindKeyDefinition(std::string_view name, std::vector<engine::ExpressionPtr> arguments,
                                        const CatalogReader& catalog);

}  // namespace shoal::sql
