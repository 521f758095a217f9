#pragma once

#include "coordinator/catalog/system_catalog.h"
#include "coordinator/catalog/table_catalog.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {

/// What the binder sees: the system views, then the user tables.
class ClusterCatalog final : public sql::CatalogReader {
 public:
  ClusterCatalog(const SystemCatalog& system, const TableCatalog& tables) : system_(system), tables_(tables) {}

  std::optional<sql::TableDescription> findTable(std::string_view name) const override;
  std::optional<sql::ViewDescription> findView(std::string_view name) const override;
  std::vector<std::string> relationNames() const override;

 private:
  const SystemCatalog& system_;
  const TableCatalog& tables_;
};

}  // namespace shoal::coordinator
