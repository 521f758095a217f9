#pragma once

#include <string>
#include <vector>

#include "coordinator/catalog/catalog_relations.h"
#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

// A user table's primary key and UNIQUE constraints as PostgreSQL shows them: each a constraint (pg_constraint)
// and the unique btree index that backs it (pg_index, and a relation of kind 'i' in pg_class and
// pg_attribute), of one name (<table>_pkey for the primary key), with the OIDs catalog_reader.h derives from
// the table's.

/// One key of a table: the primary key (ordinal 0) or its ordinal-th UNIQUE constraint.
struct RelationKey {
  std::string name;
  std::vector<size_t> columns;
  size_t ordinal = 0;
  bool primary() const { return ordinal == 0; }
};

/// PostgreSQL's name of a primary key's constraint and index.
std::string primaryKeyName(const CatalogRelation& table);

/// `table`'s keys: its primary key, if it has one, then its UNIQUE constraints.
std::vector<RelationKey> relationKeys(const CatalogRelation& table);

/// The index behind a key of `table` as a relation of kind 'i': its columns are the key's, in key order.
CatalogRelation keyIndex(const CatalogRelation& table, const RelationKey& key);

/// pg_index's and pg_constraint's columns and rows: one row for each user table's key. pg_index's
/// vectors (indkey, indclass, ...) are int2vector and oidvector; pg_constraint's oid[] columns are bigint[],
/// as Shoal keeps OIDs in bigint.
std::vector<sql::ColumnDescription> indexColumns();
SystemRows indexRows(const CatalogRelationLister& relations);
std::vector<sql::ColumnDescription> constraintColumns();
SystemRows constraintRows(const CatalogRelationLister& relations);

/// pg_opclass: PostgreSQL 15's default btree operator classes of Shoal's types, which pg_index.indclass names.
std::vector<sql::ColumnDescription> operatorClassColumns();
SystemRows operatorClassRows();

/// The btree access method's OID in pg_am (PostgreSQL's).
inline constexpr int64_t kBtreeAccessMethodOid = 403;

}  // namespace shoal::coordinator
