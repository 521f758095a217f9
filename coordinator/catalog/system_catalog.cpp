#include "coordinator/catalog/system_catalog.h"

#include "common/check.h"
#include "coordinator/catalog/information_schema.h"
#include "coordinator/catalog/pg_catalog.h"
#include "coordinator/catalog/pg_stat_activity.h"
#include "coordinator/catalog/role_visibility.h"
#include "sql/parser/view_definition.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

using engine::LogicalType;
using engine::Value;

namespace {

// Shoal's own views, in pg_catalog beside PostgreSQL's statistics views, with fixed OIDs of ours.
constexpr int64_t kNodesOid = 12100;
constexpr int64_t kTablesOid = 12101;
constexpr int64_t kColumnStatisticsOid = 12102;
constexpr int64_t kQueriesOid = 12103;

std::string columnNames(const TableEntry& table, const std::vector<size_t>& indexes) {
  std::string names;
  for (size_t index : indexes) names += (names.empty() ? "" : ", ") + table.columns[index].name;
  return names;
}

Value textOrNull(const Value& value) {
  return value.isNull() ? Value::null(LogicalType::text()) : Value::varchar(value.toString());
}

std::vector<CatalogColumn> catalogColumns(const std::vector<sql::ColumnDescription>& columns) {
  std::vector<CatalogColumn> result;
  for (const auto& column : columns) result.push_back({column.name, column.type, false});
  return result;
}

}  // namespace

SystemCatalog::SystemCatalog(const MemberRegistry& registry, const TableCatalog& tables, const QueryLog& queries,
                             const SessionRegistry& sessions)
    : registry_(registry), tables_(tables), queries_(queries) {
  CatalogRelationLister lister = [this] { return listRelations(); };
  CatalogSchemaLister schemaLister = [this] { return schemas(); };
  for (auto& relation : pgCatalogRelations(
           lister, schemaLister, [this] { return comments(); }, [this] { return tables_.roles(); })) {
    relations_.push_back(std::move(relation));
  }
  for (auto& relation : shoalViews()) relations_.push_back(std::move(relation));
  relations_.push_back(pgStatActivity(sessions, tables));
  for (auto& relation : informationSchemaRelations(lister, schemaLister)) relations_.push_back(std::move(relation));
}

const SystemRelation* SystemCatalog::find(std::string_view schema, std::string_view name) const {
  for (const auto& relation : relations_) {
    if (relation.schema == schema && relation.name == name) return &relation;
  }
  return nullptr;
}

std::optional<sql::TableDescription> SystemCatalog::findTable(const sql::QualifiedName& name) const {
  const SystemRelation* relation = find(name.schema, name.name);
  if (relation == nullptr) return std::nullopt;
  return relation->description();
}

std::vector<sql::SchemaDescription> SystemCatalog::schemas() const {
  std::vector<sql::SchemaDescription> schemas = {
      {kPgCatalogNamespaceOid, std::string(kPgCatalogSchema), kOwnerRoleOid, "system catalog schema"},
      {kInformationSchemaNamespaceOid, std::string(kInformationSchema), kOwnerRoleOid}};
  const auto nameOf = [this](int64_t oid) { return tables_.roleNameOf(oid); };
  for (auto& schema : tables_.schemas()) {
    // public belongs to the database's owner, as in PostgreSQL 15; the others, to the roles that made them.
    sql::SchemaDescription description{schema.oid, std::move(schema.name), schema.access.owner,
                                       std::move(schema.comment)};
    if (schema.access.acl) description.acl = aclTexts(*schema.access.acl, nameOf);
    schemas.push_back(std::move(description));
  }
  return schemas;
}

std::vector<engine::Chunk> SystemCatalog::scan(std::string_view schema, std::string_view name,
                                               const SystemScanContext& context) const {
  const SystemRelation* relation = find(schema, name);
  SHOAL_CHECK(relation != nullptr, "scan of unknown system relation {}.{}", schema, name);
  return rowsToChunks(relation->columns, relation->rows(context));
}

std::vector<sql::RelationVisibility> SystemCatalog::relationVisibility() const {
  std::vector<sql::RelationVisibility> relations;
  for (const auto& system : relations_)
    relations.push_back({system.oid, false, system.schema, system.name, system.kind});
  for (const auto& table : tables_.list()) {
    const int64_t oid = kFirstUserOid + static_cast<int64_t>(table->tableId);
    relations.push_back({oid, false, table->schema, table->name, 'r'});
    if (!table->primaryKey.empty()) {  // the indexes behind the keys (pg_catalog_keys.h)
      relations.push_back({sql::keyIndexOid(oid, 0), false, table->schema, table->name + "_pkey", 'i'});
    }
    for (size_t k = 0; k < table->uniqueKeys.size(); ++k) {
      relations.push_back({sql::keyIndexOid(oid, k + 1), false, table->schema, table->uniqueKeys[k].name, 'i'});
    }
  }
  for (const auto& view : tables_.listViews()) {
    relations.push_back({kFirstUserOid + static_cast<int64_t>(view.viewId), false, view.schema, view.name, 'v'});
  }
  return relations;
}

std::vector<sql::ObjectComment> SystemCatalog::comments() const {
  std::vector<sql::ObjectComment> comments;
  for (auto& comment : tables_.comments()) {
    comments.push_back(
        {kFirstUserOid + static_cast<int64_t>(comment.relationId), comment.column, std::move(comment.text)});
  }
  return comments;
}

std::vector<sql::KeyDescription> SystemCatalog::keys() const {
  std::vector<sql::KeyDescription> keys;
  for (const auto& table : tables_.list()) {
    const int64_t oid = kFirstUserOid + static_cast<int64_t>(table->tableId);
    auto add = [&](const std::string& name, size_t ordinal, const std::vector<size_t>& columns) {
      sql::KeyDescription key{oid, table->schema, table->name, name, ordinal, {}, {}};
      for (size_t column : columns) {
        key.columns.push_back(table->columns[column].name);
        key.attributeNumbers.push_back(static_cast<int32_t>(column + 1));
      }
      keys.push_back(std::move(key));
    };
    if (!table->primaryKey.empty()) add(table->name + "_pkey", 0, table->primaryKey);
    for (size_t k = 0; k < table->uniqueKeys.size(); ++k)
      add(table->uniqueKeys[k].name, k + 1, table->uniqueKeys[k].columns);
  }
  return keys;
}

std::vector<CatalogRelation> SystemCatalog::listRelations() const {
  std::vector<CatalogRelation> relations;
  for (const auto& system : relations_) {
    const int64_t namespaceOid =
        system.schema == kPgCatalogSchema ? kPgCatalogNamespaceOid : kInformationSchemaNamespaceOid;
    relations.push_back({system.schema,
                         system.name,
                         system.oid,
                         namespaceOid,
                         system.kind,
                         false,
                         catalogColumns(system.columns),
                         {},
                         {},
                         std::nullopt,
                         std::nullopt});
  }
  std::map<std::string, int64_t, std::less<>> schemaOids;
  for (const auto& schema : schemas()) schemaOids[schema.name] = schema.oid;
  const auto nameOf = [this](int64_t oid) { return tables_.roleNameOf(oid); };
  const auto withAccess = [&](CatalogRelation& relation, const AccessRights& access) {
    relation.ownerOid = access.owner;
    relation.ownerName = nameOf(access.owner);
    if (access.acl) relation.acl = aclTexts(*access.acl, nameOf);
  };
  for (const auto& table : tables_.list()) {
    CatalogRelation relation{table->schema,
                             table->name,
                             kFirstUserOid + static_cast<int64_t>(table->tableId),
                             schemaOids[table->schema],
                             'r',
                             true,
                             table->columns,
                             table->primaryKey,
                             table->uniqueKeys,
                             std::nullopt,
                             std::nullopt};
    if (table->columnStatistics.size() == table->columns.size()) relation.rowCount = table->rowCount;
    withAccess(relation, table->access);
    relations.push_back(std::move(relation));
  }
  for (const auto& view : tables_.listViews()) {
    std::vector<CatalogColumn> columns;
    if (viewColumns_) {
      try {
        columns = viewColumns_(view);
      } catch (const ShoalError&) {
        // A view whose tables were dropped since no longer binds: listed without columns, as it cannot be read.
      }
    }
    CatalogRelation relation{view.schema,
                             view.name,
                             kFirstUserOid + static_cast<int64_t>(view.viewId),
                             schemaOids[view.schema],
                             'v',
                             true,
                             std::move(columns),
                             {},
                             {},
                             std::nullopt,
                             sql::viewQueryText(view.statement)};
    withAccess(relation, view.access);
    relations.push_back(std::move(relation));
  }
  return relations;
}

std::vector<SystemRelation> SystemCatalog::shoalViews() const {
  const std::string schema(kPgCatalogSchema);
  std::vector<SystemRelation> views;
  views.push_back({schema,
                   "shoal_nodes",
                   kNodesOid,
                   'v',
                   {{"node_id", LogicalType::integer()},
                    {"name", LogicalType::text()},
                    {"role", LogicalType::text()},
                    {"address", LogicalType::text()},
                    {"state", LogicalType::text()},
                    {"seconds_since_heartbeat", LogicalType::doublePrecision()},
                    {"rejoins", LogicalType::bigInt()}},
                   [this](const SystemScanContext&) {
                     SystemRows rows;
                     for (const auto& node : registry_.nodes()) {
                       rows.push_back({Value::integer(static_cast<int32_t>(node.nodeId)), Value::varchar(node.nodeName),
                                       Value::varchar(node.role), Value::varchar(node.address),
                                       Value::varchar(node.state), Value::doublePrecision(node.secondsSinceHeartbeat),
                                       Value::bigInt(static_cast<int64_t>(node.rejoins))});
                     }
                     return rows;
                   }});
  views.push_back({schema,
                   "shoal_tables",
                   kTablesOid,
                   'v',
                   {{"table_name", LogicalType::text()},
                    {"distribution", LogicalType::text()},
                    {"distribution_columns", LogicalType::text()},
                    {"primary_key", LogicalType::text()},
                    {"workers", LogicalType::integer()},
                    {"row_count", LogicalType::bigInt()}},
                   [this](const SystemScanContext&) {
                     SystemRows rows;
                     for (const auto& table : tables_.list()) {
                       rows.push_back({Value::varchar(table->name),
                                       Value::varchar(std::string(distributionName(table->distribution))),
                                       Value::varchar(columnNames(*table, table->distributionColumns)),
                                       Value::varchar(columnNames(*table, table->primaryKey)),
                                       Value::integer(static_cast<int32_t>(table->placement.size())),
                                       Value::bigInt(static_cast<int64_t>(table->rowCount))});
                     }
                     return rows;
                   }});
  views.push_back({schema,
                   "shoal_column_statistics",
                   kColumnStatisticsOid,
                   'v',
                   {{"table_name", LogicalType::text()},
                    {"column_name", LogicalType::text()},
                    {"data_type", LogicalType::text()},
                    {"row_count", LogicalType::bigInt()},
                    {"null_count", LogicalType::bigInt()},
                    {"distinct_count", LogicalType::bigInt()},
                    {"min_value", LogicalType::text()},
                    {"max_value", LogicalType::text()}},
                   [this](const SystemScanContext&) {
                     SystemRows rows;
                     for (const auto& table : tables_.list()) {
                       for (size_t c = 0; c < table->columns.size(); ++c) {
                         const auto& column = table->columns[c];
                         worker::ColumnStatistics statistics(column.type);
                         if (c < table->columnStatistics.size()) {
                           statistics = worker::ColumnStatistics::deserialize(column.type, table->columnStatistics[c]);
                         }
                         rows.push_back({Value::varchar(table->name), Value::varchar(column.name),
                                         Value::varchar(column.type.toString()),
                                         Value::bigInt(static_cast<int64_t>(statistics.rowCount())),
                                         Value::bigInt(static_cast<int64_t>(statistics.nullCount())),
                                         Value::bigInt(static_cast<int64_t>(statistics.distinctCount())),
                                         textOrNull(statistics.min()), textOrNull(statistics.max())});
                       }
                     }
                     return rows;
                   }});
  views.push_back({schema,
                   "shoal_queries",
                   kQueriesOid,
                   'v',
                   {{"query_id", LogicalType::bigInt()},
                    {"usename", LogicalType::text()},
                    {"query_text", LogicalType::text()},
                    {"state", LogicalType::text()},
                    {"elapsed_seconds", LogicalType::doublePrecision()},
                    {"rows", LogicalType::bigInt()},
                    {"bytes_shuffled", LogicalType::bigInt()},
                    {"messages_shuffled", LogicalType::bigInt()},
                    {"messages_consumed_locally", LogicalType::bigInt()},
                    {"messages_stolen", LogicalType::bigInt()}},
                   [this](const SystemScanContext& context) {
                     SystemRows rows;
                     const auto now = std::chrono::steady_clock::now();
                     const RoleVisibility visibility(tables_, context.user);
                     for (const auto& query : queries_.snapshot()) {
                       const auto end = query.state == "running" ? now : query.finished;
                       rows.push_back(
                           {Value::bigInt(static_cast<int64_t>(query.id)), Value::varchar(query.user),
                            Value::varchar(visibility.sees(query.user) ? query.text : "<insufficient privilege>"),
                            Value::varchar(query.state),
                            Value::doublePrecision(std::chrono::duration<double>(end - query.started).count()),
                            Value::bigInt(static_cast<int64_t>(query.rows)),
                            Value::bigInt(static_cast<int64_t>(query.shuffle.bytes)),
                            Value::bigInt(static_cast<int64_t>(query.shuffle.messages)),
                            Value::bigInt(static_cast<int64_t>(query.shuffle.consumedLocally)),
                            Value::bigInt(static_cast<int64_t>(query.shuffle.stolen))});
                     }
                     return rows;
                   }});
  return views;
}

}  // namespace shoal::coordinator
