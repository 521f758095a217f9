#pragma once

#include "coordinator/catalog/system_catalog.h"
#include "coordinator/catalog/table_catalog.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// What the binder sees: the system relations (pg_catalog's first), then the user tables.
class ClusterCatalog final : public sql::CatalogReader {
 public:
  ClusterCatalog(const SystemCatalog& system, const TableCatalog& tables) : system_(system), tables_(tables) {}

  std::optional<sql::TableDescription> findTable(std::string_view name) const override;
  std::optional<sql::TableDescription> findSystemRelation(std::string_view schema,
                                                          std::string_view name) const override {
    return system_.findSystemRelation(schema, name);
  }
  std::optional<sql::ViewDescription> findView(std::string_view name) const override;
  std::vector<std::string> relationNames() const override;
  std::vector<sql::RelationVisibility> relationVisibility() const override { return system_.relationVisibility(); }
  std::vector<sql::ObjectComment> comments() const override { return system_.comments(); }
  std::vector<sql::PrimaryKeyDescription> primaryKeys() const override { return system_.primaryKeys(); }
  /// A view's columns: its query bound against this catalog (fails as reading the view would).
  std::vector<CatalogColumn> viewColumns(const ViewEntry& view) const;

 private:
  const SystemCatalog& system_;
  const TableCatalog& tables_;
};

}  // namespace shoal::coordinator
