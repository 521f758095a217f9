#include "coordinator/catalog/cluster_catalog.h"

namespace shoal::coordinator {

std::optional<sql::TableDescription> ClusterCatalog::findTable(std::string_view name) const {
  if (auto view = system_.findTable(name)) return view;
  auto table = tables_.find(name);
  if (!table) return std::nullopt;
  sql::TableDescription description;
  description.name = table->name;
  description.isSystemView = false;
  for (const auto& column : table->columns) description.columns.push_back({column.name, column.type});
  return description;
}

}  // namespace shoal::coordinator
