#pragma once

#include <vector>

#include "coordinator/catalog/catalog_relations.h"
#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

/// The SQL standard's views of the catalog that Shoal has so far: information_schema.schemata, tables,
/// columns, views, table_constraints, key_column_usage and routines, with PostgreSQL 15's columns and values.
std::vector<SystemRelation> informationSchemaRelations(const CatalogRelationLister& relations,
                                                       const CatalogSchemaLister& schemas);

}  // namespace shoal::coordinator
