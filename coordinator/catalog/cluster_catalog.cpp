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
  description.uniqueKeys = table->uniqueKeys;
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
  // Binding reads the view as its owner.
  return sql::ViewDescription{view->schema,      view->name,       view->statement,
                              view->columnNames, view->searchPath, tables_.roleNameOf(view->access.owner)};
}

namespace {

/// What every role may do with a system relation or schema: read it, use it.
std::optional<sql::HeldPrivileges> systemPrivileges(const TableCatalog& tables, std::string_view role,
                                                    sql::AclMode granted) {
  const auto entry = tables.findRole(std::string(role));
  if (!entry) return std::nullopt;
  if (entry->superuser) return sql::HeldPrivileges::all();
  return sql::HeldPrivileges{granted, 0};
}

}  // namespace

std::optional<sql::HeldPrivileges> ClusterCatalog::relationPrivileges(std::string_view role,
                                                                      const sql::QualifiedName& name) const {
  if (sql::isSystemSchema(name.schema)) return systemPrivileges(tables_, role, sql::kAclSelect);
  return tables_.relationPrivileges(std::string(role), name);
}

std::optional<sql::HeldPrivileges> ClusterCatalog::schemaPrivileges(std::string_view role,
                                                                    const std::string& schema) const {
  if (sql::isSystemSchema(schema)) return systemPrivileges(tables_, role, sql::kAclUsage);
  return tables_.schemaPrivileges(std::string(role), schema);
}

std::vector<std::pair<int64_t, std::string>> ClusterCatalog::roles() const {
  std::vector<std::pair<int64_t, std::string>> roles;
  for (const auto& role : tables_.roles()) roles.emplace_back(role.oid, role.name);
  return roles;
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
