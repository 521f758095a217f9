#include "coordinator/catalog/cluster_catalog.h"

#include <fmt/format.h>

#include "engine/expression/sql_keywords.h"
#include "sql/binder/binder.h"
#include "sql/binder/search_path.h"
#include "sql/parser/parsed_script.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

std::optional<sql::TableDescription> ClusterCatalog::findTable(const sql::QualifiedName& name) const {
  if (sql::isSystemSchema(name.schema)) return system_.findTable(name);
  auto table = tables_.find(name);
  if (!table) return std::nullopt;
  sql::TableDescription description;
  description.schema = table->schema;
  description.name = table->name;
  description.isSystemView = false;
  for (const auto& column : table->columns) description.columns.push_back({column.name, column.type});
  description.primaryKey = table->primaryKey;
  if (table->columnStatistics.size() == table->columns.size()) {
    description.rowCount = table->rowCount;
    for (size_t i = 0; i < table->columns.size(); ++i) {
      auto statistics = worker::ColumnStatistics::deserialize(table->columns[i].type, table->columnStatistics[i]);
      description.columnSummaries.push_back(
          sql::ColumnSummary{statistics.distinctCount(), statistics.nullCount(), statistics.min(), statistics.max()});
    }
  }
  return description;
}

std::optional<sql::ViewDescription> ClusterCatalog::findView(const sql::QualifiedName& name) const {
  auto view = tables_.findView(name);
  if (!view) return std::nullopt;
  return sql::ViewDescription{view->schema, view->name, view->statement, view->columnNames, view->searchPath};
}

std::vector<sql::RelationVisibility> ClusterCatalog::relationVisibility() const {
  auto relations = system_.relationVisibility();
  sql::markVisibility(relations, sql::lookupSchemas(*this));
  return relations;
}

std::vector<CatalogColumn> ClusterCatalog::viewColumns(const ViewEntry& view) const {
  sql::ParsedScript script = sql::ParsedScript::parse(
      fmt::format("SELECT * FROM {}.{}", engine::quoteIdentifier(view.schema), engine::quoteIdentifier(view.name)));
  sql::BoundStatement bound = sql::Binder(*this).bind(script, 0);
  const auto& plan = std::get<sql::BoundQuery>(bound.command).plan;
  const auto outputs = plan.root->outputColumns();
  std::vector<CatalogColumn> columns;
  for (size_t i = 0; i < outputs.size(); ++i) columns.push_back({plan.columnNames[i], outputs[i].type, false});
  return columns;
}

std::vector<std::string> ClusterCatalog::relationNames() const {
  std::vector<std::string> names = tables_.relationNames();
  for (std::string_view view : {"shoal_nodes", "shoal_tables", "shoal_column_statistics"}) names.emplace_back(view);
  return names;
}

}  // namespace shoal::coordinator
