#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// PostgreSQL's object identifier types: an OID that reads and prints as the name of what it identifies
/// ('lineitem'::regclass, c.oid::regclass::text). Shoal keeps every OID as a BIGINT; a cast to one of these
/// types resolves a name to its OID (as PostgreSQL does while planning a constant), and a cast of one of
/// them to text looks the name up. Both use the catalog as the statement is bound.
enum class ObjectIdentifierType { kOid, kRegclass, kRegtype, kRegnamespace, kRegrole, kRegproc };

/// The types Shoal has (not their arrays), by OID, as format_type names them.
std::span<const std::pair<int64_t, std::string_view>> baseTypeNames();

/// The OIDs of the types Shoal has and of their arrays, as pg_type lists them.
std::vector<int64_t> typeOids();

/// The object identifier type a type name ("regclass", "pg_catalog.regtype" folded to its last part) names.
std::optional<ObjectIdentifierType> objectIdentifierType(std::string_view typeName);

/// A relation name as text spells it ('lineitem', 'public.t', '"Mixed"'), split into schema (empty when
/// not given) and name, folded to lower case outside double quotes.
std::pair<std::string, std::string> splitQualifiedName(std::string_view text);

/// The OID of the relation `text` names ('public.t'), as 'text'::regclass finds it; nullopt for none.
std::optional<int64_t> findRelationOid(const CatalogReader& catalog, std::string_view text);

/// Resolves `text` to the OID it names as type `type`, failing as PostgreSQL does: 42P01 for a relation,
/// 3F000 for a schema, 42704 for a role, 22P02 for a malformed oid; '-' is OID 0. Types (regtype) are
/// resolved by the caller, which parses type names.
int64_t objectIdentifierFromText(ObjectIdentifierType type, std::string_view text, const CatalogReader& catalog);

/// `oid` (BIGINT) printed as type `type` prints it: the relation's, type's, schema's or role's name, '-'
/// for 0, the number for an OID that names nothing; NULL for NULL. Relations outside the search path are
/// schema-qualified, and names that need it quoted, as PostgreSQL prints them.
engine::ExpressionPtr objectIdentifierName(engine::ExpressionPtr oid, ObjectIdentifierType type,
                                           const CatalogReader& catalog);

}  // namespace shoal::sql
