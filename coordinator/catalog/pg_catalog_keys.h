#pragma once

#include <string>
#include <vector>

#include "coordinator/catalog/catalog_relations.h"
#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

// A user table's primary key as PostgreSQL shows it: a constraint (pg_constraint) and the unique btree index
// that backs it (pg_index, and a relation of kind 'i' in pg_class and pg_attribute), both named <table>_pkey,
// with the OIDs catalog_reader.h derives from the table's.

/// PostgreSQL's name of a primary key's constraint and index.
std::string primaryKeyName(const CatalogRelation& table);

/// The index behind `table`'s primary key as a relation of kind 'i': its columns are the key's, in key order.
CatalogRelation primaryKeyIndex(const CatalogRelation& table);

/// pg_index's and pg_constraint's columns and rows: one row for each user table's primary key. pg_index
/// leaves out indkey, indcollation, indclass and indoption until Shoal has int2vector and oidvector (a query
/// naming them gets 42703, not a wrong answer); pg_constraint's int2[] and oid[] columns are integer[] and
/// bigint[], as Shoal keeps smallint in integer and OIDs in bigint.
std::vector<sql::ColumnDescription> indexColumns();
SystemRows indexRows(const CatalogRelationLister& relations);
std::vector<sql::ColumnDescription> constraintColumns();
SystemRows constraintRows(const CatalogRelationLister& relations);

/// The btree access method's OID in pg_am (PostgreSQL's).
inline constexpr int64_t kBtreeAccessMethodOid = 403;

}  // namespace shoal::coordinator
