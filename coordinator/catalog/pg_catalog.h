#pragma once

#include <vector>

#include "coordinator/catalog/catalog_relations.h"
#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

/// pg_description's rows: the comments on user relations and their columns.
using CatalogCommentLister = std::function<std::vector<sql::ObjectComment>()>;
/// pg_roles' and pg_user's rows: the roles CREATE ROLE made, and the bootstrap superuser.
using CatalogRoleLister = std::function<std::vector<RoleEntry>()>;

/// pg_catalog's relations that Shoal has so far, computed from the cluster catalog when read: pg_namespace,
/// pg_class, pg_attribute, pg_type, pg_am, pg_database, pg_tables, pg_views, pg_roles, pg_user,
/// pg_description, pg_settings (the session's, through the scan context), pg_tablespace and pg_collation,
/// and, empty, pg_attrdef, pg_inherits, pg_matviews,
/// pg_extension, pg_enum, pg_auth_members and pg_sequence, with
/// PostgreSQL 15's columns. Catalog tables keep PostgreSQL's OIDs; its views take fixed ones of their own.
std::vector<SystemRelation> pgCatalogRelations(const CatalogRelationLister& relations,
                                               const CatalogSchemaLister& schemas, const CatalogCommentLister& comments,
                                               const CatalogRoleLister& roles);

/// The OID of pg_catalog's relation `name` as pg_class shows it (catalog tables: PostgreSQL's own).
int64_t pgCatalogRelationOid(std::string_view name);

}  // namespace shoal::coordinator
