#pragma once

#include <string_view>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// Whether `name` is one of the privilege inquiry functions: has_table_privilege, has_schema_privilege,
/// has_database_privilege.
bool isPrivilegeFunction(std::string_view name);

/// Binds privilege inquiry function `name` over its bound `arguments` ([user,] object, privileges): whether
/// the role (the session's user when not given) holds any of the privileges listed on the object, from the
/// catalog's privileges as the statement is bound. As in PostgreSQL: an object named by
/// text that does not exist fails (42P01, 3F000, 3D000), one named by an OID that names nothing gives NULL;
/// an unknown privilege fails with 22023, an unknown role with 42704; NULL in, NULL out. Names and
/// privileges must be constants (0A000 otherwise); an OID may be any expression (pg_class.oid). `location`
/// is the call's, for errors.
engine::ExpressionPtr bindPrivilegeFunction(std::string_view name, std::vector<engine::ExpressionPtr> arguments,
                                            const CatalogReader& catalog);

}  // namespace shoal::sql
