#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/catalog/table_catalog.h"

namespace shoal::coordinator {

/// A relation as pg_class, pg_attribute and information_schema describe it: a user table or view, or one
/// of the system relations.
struct CatalogRelation {
  std::string schema;
  std::string name;
  int64_t oid = 0;
  int64_t namespaceOid = 0;
  /// pg_class.relkind: 'r' a table, 'v' a view.
  char kind = 'r';
  bool isUserRelation = false;
  std::vector<CatalogColumn> columns;
  /// A user table's primary key columns (indexes into `columns`).
  std::vector<size_t> primaryKey;
  std::vector<sql::UniqueConstraint> uniqueKeys;
  /// Rows, for a user table whose statistics exist.
  std::optional<uint64_t> rowCount;
  /// A view's query, as it was written (PostgreSQL shows it deparsed by pg_get_viewdef instead).
  std::optional<std::string> viewDefinition;
  /// Its owner, and its privileges as aclitem texts (nullopt: the default, which relacl shows as NULL).
  int64_t ownerOid = sql::kOwnerRoleOid;
  std::string ownerName = std::string(sql::kOwnerRoleName);
  std::optional<std::vector<std::string>> acl = std::nullopt;
};

/// Every relation there is, system relations first, then the user tables and views by name.
using CatalogRelationLister = std::function<std::vector<CatalogRelation>()>;
/// Every schema there is: the system schemas, then the user's.
using CatalogSchemaLister = std::function<std::vector<sql::SchemaDescription>()>;

}  // namespace shoal::coordinator
