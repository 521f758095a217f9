#include "coordinator/catalog/system_catalog.h"

#include "common/check.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

using engine::LogicalType;
using engine::Value;

namespace {

constexpr std::string_view kNodesView = "shoal_nodes";
constexpr std::string_view kTablesView = "shoal_tables";
constexpr std::string_view kColumnStatisticsView = "shoal_column_statistics";
constexpr std::string_view kQueriesView = "shoal_queries";

sql::TableDescription systemView(std::string name, std::vector<sql::ColumnDescription> columns) {
  sql::TableDescription description;
  description.name = std::move(name);
  description.columns = std::move(columns);
  description.isSystemView = true;
  return description;
}

sql::TableDescription nodesDescription() {
  return systemView(std::string(kNodesView), {{"node_id", LogicalType::integer()},
                                              {"name", LogicalType::text()},
                                              {"role", LogicalType::text()},
                                              {"address", LogicalType::text()},
                                              {"state", LogicalType::text()},
                                              {"seconds_since_heartbeat", LogicalType::doublePrecision()}});
}

sql::TableDescription tablesDescription() {
  return systemView(std::string(kTablesView), {{"table_name", LogicalType::text()},
                                               {"distribution", LogicalType::text()},
                                               {"distribution_columns", LogicalType::text()},
                                               {"primary_key", LogicalType::text()},
                                               {"workers", LogicalType::integer()},
                                               {"row_count", LogicalType::bigInt()}});
}

sql::TableDescription columnStatisticsDescription() {
  return systemView(std::string(kColumnStatisticsView), {{"table_name", LogicalType::text()},
                                                         {"column_name", LogicalType::text()},
                                                         {"data_type", LogicalType::text()},
                                                         {"row_count", LogicalType::bigInt()},
                                                         {"null_count", LogicalType::bigInt()},
                                                         {"distinct_count", LogicalType::bigInt()},
                                                         {"min_value", LogicalType::text()},
                                                         {"max_value", LogicalType::text()}});
}

sql::TableDescription queriesDescription() {
  return systemView(std::string(kQueriesView), {{"query_id", LogicalType::bigInt()},
                                                {"query_text", LogicalType::text()},
                                                {"state", LogicalType::text()},
                                                {"elapsed_seconds", LogicalType::doublePrecision()},
                                                {"rows", LogicalType::bigInt()},
                                                {"bytes_shuffled", LogicalType::bigInt()},
                                                {"messages_shuffled", LogicalType::bigInt()}});
}

/// Rows of values into chunks of at most kVectorSize rows of the view's column types.
std::vector<engine::Chunk> toChunks(const sql::TableDescription& description,
                                    const std::vector<std::vector<Value>>& rows) {
  std::vector<engine::Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, rows.size() - begin);
    std::vector<engine::Vector> columns;
    for (const auto& column : description.columns) columns.emplace_back(column.type, count);
    for (size_t i = 0; i < count; ++i) {
      for (size_t c = 0; c < columns.size(); ++c) columns[c].setValue(i, rows[begin + i][c]);
    }
    chunks.emplace_back(std::move(columns), count);
  }
  return chunks;
}

std::string columnNames(const TableEntry& table, const std::vector<size_t>& indexes) {
  std::string names;
  for (size_t index : indexes) names += (names.empty() ? "" : ", ") + table.columns[index].name;
  return names;
}

Value textOrNull(const Value& value) {
  return value.isNull() ? Value::null(LogicalType::text()) : Value::varchar(value.toString());
}

}  // namespace

std::optional<sql::TableDescription> SystemCatalog::findTable(std::string_view name) const {
  if (name == kNodesView) return nodesDescription();
  if (name == kTablesView) return tablesDescription();
  if (name == kColumnStatisticsView) return columnStatisticsDescription();
  if (name == kQueriesView) return queriesDescription();
  return std::nullopt;
}

std::vector<engine::Chunk> SystemCatalog::scan(std::string_view name) const {
  if (name == kTablesView) return scanTables();
  if (name == kColumnStatisticsView) return scanColumnStatistics();
  if (name == kQueriesView) return scanQueries();
  SHOAL_CHECK(name == kNodesView, "scan of unknown system view {}", name);
  return scanNodes();
}

std::vector<engine::Chunk> SystemCatalog::scanNodes() const {
  std::vector<std::vector<Value>> rows;
  for (const auto& node : registry_.nodes()) {
    rows.push_back({Value::integer(static_cast<int32_t>(node.nodeId)), Value::varchar(node.nodeName),
                    Value::varchar(node.role), Value::varchar(node.address), Value::varchar(node.state),
                    Value::doublePrecision(node.secondsSinceHeartbeat)});
  }
  return toChunks(nodesDescription(), rows);
}

std::vector<engine::Chunk> SystemCatalog::scanTables() const {
  std::vector<std::vector<Value>> rows;
  for (const auto& table : tables_.list()) {
    rows.push_back({Value::varchar(table->name), Value::varchar(std::string(distributionName(table->distribution))),
                    Value::varchar(columnNames(*table, table->distributionColumns)),
                    Value::varchar(columnNames(*table, table->primaryKey)),
                    Value::integer(static_cast<int32_t>(table->placement.size())),
                    Value::bigInt(static_cast<int64_t>(table->rowCount))});
  }
  return toChunks(tablesDescription(), rows);
}

std::vector<engine::Chunk> SystemCatalog::scanColumnStatistics() const {
  std::vector<std::vector<Value>> rows;
  for (const auto& table : tables_.list()) {
    for (size_t c = 0; c < table->columns.size(); ++c) {
      const auto& column = table->columns[c];
      worker::ColumnStatistics statistics(column.type);
      if (c < table->columnStatistics.size()) {
        statistics = worker::ColumnStatistics::deserialize(column.type, table->columnStatistics[c]);
      }
      rows.push_back({Value::varchar(table->name), Value::varchar(column.name), Value::varchar(column.type.toString()),
                      Value::bigInt(static_cast<int64_t>(statistics.rowCount())),
                      Value::bigInt(static_cast<int64_t>(statistics.nullCount())),
                      Value::bigInt(static_cast<int64_t>(statistics.distinctCount())), textOrNull(statistics.min()),
                      textOrNull(statistics.max())});
    }
  }
  return toChunks(columnStatisticsDescription(), rows);
}

std::vector<engine::Chunk> SystemCatalog::scanQueries() const {
  std::vector<std::vector<Value>> rows;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& query : queries_.snapshot()) {
    const auto end = query.state == "running" ? now : query.finished;
    rows.push_back(
        {Value::bigInt(static_cast<int64_t>(query.id)), Value::varchar(query.text), Value::varchar(query.state),
         Value::doublePrecision(std::chrono::duration<double>(end - query.started).count()),
         Value::bigInt(static_cast<int64_t>(query.rows)), Value::bigInt(static_cast<int64_t>(query.bytesShuffled)),
         Value::bigInt(static_cast<int64_t>(query.messagesShuffled))});
  }
  return toChunks(queriesDescription(), rows);
}

}  // namespace shoal::coordinator
