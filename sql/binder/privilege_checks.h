#pragma once

#include <string>
#include <string_view>

#include "sql/binder/catalog_reader.h"

namespace shoal::sql {

/// Fails with 42501 ("permission denied for table t", or "for view v") unless the catalog's privilege role
/// (CatalogReader::privilegeRole) holds every privilege in `wanted` on relation `name`, and USAGE on its
/// schema ("permission denied for schema s"). `text` and `location` place the error in the statement (-1:
/// nowhere).
void requireRelationPrivilege(const CatalogReader& catalog, const QualifiedName& name, AclMode wanted, bool isView,
                              std::string_view text, int location);

/// Fails with 42501 ("permission denied for schema s") unless the privilege role holds `wanted` on schema
/// `schema`.
void requireSchemaPrivilege(const CatalogReader& catalog, const std::string& schema, AclMode wanted,
                            std::string_view text, int location);

}  // namespace shoal::sql
