#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "coordinator/catalog/catalog_relations.h"
#include "coordinator/catalog/system_relation.h"
#include "coordinator/catalog/table_catalog.h"
#include "coordinator/membership/member_registry.h"
#include "coordinator/query/query_log.h"
#include "coordinator/query/session_registry.h"
#include "engine/vector/chunk.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// The system relations, computed on the coordinator when read: pg_catalog's (pg_class, pg_attribute, ...)
/// and information_schema's views of the cluster catalog, and Shoal's own views in pg_catalog:
/// shoal_nodes (membership), shoal_tables (user tables, their distribution and size),
/// shoal_column_statistics (what the optimizer knows of each column) and shoal_queries (the statements
/// clients ran, running and recent), besides pg_stat_activity (the sessions).
class SystemCatalog final : public sql::CatalogReader {
 public:
  /// The columns of a user view, as binding its query gives them.
  using ViewColumns = std::function<std::vector<CatalogColumn>(const ViewEntry&)>;

  SystemCatalog(const MemberRegistry& registry, const TableCatalog& tables, const QueryLog& queries,
                const SessionRegistry& sessions);

  /// A relation of pg_catalog or information_schema.
  std::optional<sql::TableDescription> findTable(const sql::QualifiedName& name) const override;
  /// The system schemas and the user's.
  std::vector<sql::SchemaDescription> schemas() const override;

  /// Every relation, its `visible` left for the caller to set from its search path (sql::markVisibility).
  std::vector<sql::RelationVisibility> relationVisibility() const override;
  std::vector<sql::ObjectComment> comments() const override;
  std::vector<sql::KeyDescription> keys() const override;

  /// The current rows of a system relation, in chunks of at most kVectorSize rows.
  std::vector<engine::Chunk> scan(std::string_view schema, std::string_view name,
                                  const SystemScanContext& context) const;

  /// Binding a view's query needs the whole catalog, which is built on this one: set once, after.
  void setViewColumns(ViewColumns viewColumns) { viewColumns_ = std::move(viewColumns); }

 private:
  const SystemRelation* find(std::string_view schema, std::string_view name) const;
  /// Every relation, for pg_class, pg_attribute and information_schema.
  std::vector<CatalogRelation> listRelations() const;
  std::vector<SystemRelation> shoalViews() const;

  const MemberRegistry& registry_;
  const TableCatalog& tables_;
  const QueryLog& queries_;
  ViewColumns viewColumns_;
  std::vector<SystemRelation> relations_;
};

}  // namespace shoal::coordinator
