#include "coordinator/query/alter_table_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "coordinator/query/insert_select.h"
#include "coordinator/query/table_commands.h"
#include "coordinator/query/table_scan_plan.h"
#include "engine/expression/expression.h"
#include "sql/optimizer/optimizer.h"

namespace shoal::coordinator {

namespace {

/// The table as the statement leaves it: its columns, and for each the column of the old table it copies
/// (nullopt for an added column, which starts NULL).
struct NewDefinition {
  std::shared_ptr<TableEntry> table;
  std::vector<std::optional<size_t>> sources;
  bool changed = false;
};

/// Applies the drops, then the adds (PostgreSQL's order), with PostgreSQL's errors and notices.
NewDefinition applyChanges(const TableEntry& old, const sql::AlterTableColumns& command, std::vector<Notice>& notices) {
  NewDefinition result;
  std::vector<CatalogColumn> columns = old.columns;
  for (size_t i = 0; i < columns.size(); ++i) result.sources.emplace_back(i);
  auto position = [&](const std::string& name) {
    return std::find_if(columns.begin(), columns.end(), [&](const auto& column) { return column.name == name; }) -
           columns.begin();
  };
  for (const auto& drop : command.drops) {
    const auto at = static_cast<size_t>(position(drop.name));
    if (at == columns.size()) {
      if (!drop.ifExists) {
        SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", drop.name,
                        old.name);
      }
      notices.push_back(Notice::notice(
          fmt::format("column \"{}\" of relation \"{}\" does not exist, skipping", drop.name, old.name)));
      continue;
    }
    const size_t oldIndex = *result.sources[at];  // the drops come first: every column is still an old one
    if (std::find(old.distributionColumns.begin(), old.distributionColumns.end(), oldIndex) !=
        old.distributionColumns.end()) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                      "cannot drop column \"{}\" of table \"{}\": the table is distributed on it", drop.name, old.name);
    }
    columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(at));
    result.sources.erase(result.sources.begin() + static_cast<std::ptrdiff_t>(at));
    result.changed = true;
  }
  if (columns.empty()) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                    "cannot drop every column of table \"{}\": a Shoal table needs at least one column", old.name);
  }
  for (const auto& add : command.adds) {
    const std::string& name = add.column.name;
    if (static_cast<size_t>(position(name)) != columns.size()) {
      if (!add.ifNotExists) {
        SHOAL_USER_FAIL(SqlState::kDuplicateColumn, "column \"{}\" of relation \"{}\" already exists", name, old.name);
      }
      notices.push_back(Notice::notice(
          fmt::format("column \"{}\" of relation \"{}\" already exists, skipping", name, old.name), "42701"));
      continue;
    }
    if (add.notNull && old.rowCount > 0) {
      SHOAL_USER_FAIL(SqlState::kNotNullViolation, "column \"{}\" of relation \"{}\" contains null values", name,
                      old.name);
    }
    columns.push_back(CatalogColumn{name, add.column.type, add.notNull});
    result.sources.emplace_back(std::nullopt);
    result.changed = true;
  }
  auto newIndexOf = [&](size_t oldIndex) -> std::optional<size_t> {
    auto found = std::find(result.sources.begin(), result.sources.end(), std::optional<size_t>(oldIndex));
    if (found == result.sources.end()) return std::nullopt;
    return static_cast<size_t>(found - result.sources.begin());
  };
  result.table = std::make_shared<TableEntry>(old);
  result.table->columns = std::move(columns);
  // A key loses its constraint with any of its columns, as PostgreSQL drops it.
  auto renumbered = [&](const std::vector<size_t>& key) {
    std::vector<size_t> columns;
    for (size_t column : key) {
      auto index = newIndexOf(column);
      if (!index) return std::vector<size_t>{};
      columns.push_back(*index);
    }
    return columns;
  };
  result.table->primaryKey = renumbered(old.primaryKey);
  result.table->uniqueKeys.clear();
  for (const auto& key : old.uniqueKeys) {
    std::vector<size_t> columns = renumbered(key.columns);
    if (!columns.empty()) result.table->uniqueKeys.push_back({key.name, std::move(columns)});
  }
  result.table->distributionColumns.clear();
  for (size_t column : old.distributionColumns) result.table->distributionColumns.push_back(*newIndexOf(column));
  result.table->rowCount = 0;
  result.table->columnStatistics.clear();
  return result;
}

/// SELECT the new columns FROM the table: the old columns each new one copies, NULL for the added ones.
sql::LogicalPlan rewriteQuery(const sql::TableDescription& table, const NewDefinition& definition) {
  sql::ColumnId nextId = 0;
  auto scan = scanOfEveryColumn(table, nextId);
  auto project = std::make_unique<sql::LogicalProject>();
  sql::LogicalPlan plan;
  for (size_t i = 0; i < definition.table->columns.size(); ++i) {
    const CatalogColumn& column = definition.table->columns[i];
    engine::ExpressionPtr value;
    if (const auto& source = definition.sources[i]) {
      const sql::PlanColumn& read = scan->columns[*source];
      value = std::make_unique<engine::ColumnRefExpression>(read.id, read.type, read.name);
    } else {
      value = std::make_unique<engine::ConstantExpression>(engine::Value::null(column.type));
    }
    addOutput(*project, plan, std::move(value), column.name, nextId);
  }
  project->children.push_back(std::move(scan));
  plan.root = std::move(project);
  return plan;
}

}  // namespace

std::string runAlterTableColumns(ClusterContext& cluster, const sql::AlterTableColumns& command,
                                 const std::string& user, std::vector<Notice>& notices, const PlanExecutor& executor) {
  auto old = cluster.tables.find(command.table);
  if (!old) {
    if (cluster.tables.findView(command.table)) {
      const std::string action = command.drops.empty() ? "ADD COLUMN" : "DROP COLUMN";
      throw ShoalError(Status(SqlState::kWrongObjectType, fmt::format("ALTER action {} cannot be performed on relation "
                                                                      "\"{}\"",
                                                                      action, command.table.name))
                           .withDetail("This operation is not supported for views."));
    }
    if (command.ifExists) {
      notices.push_back(Notice::notice(fmt::format("relation \"{}\" does not exist, skipping", command.table.name)));
      return "ALTER TABLE";
    }
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  }
  cluster.tables.requireRelationOwner(user, command.table, false);
  NewDefinition definition = applyChanges(*old, command, notices);
  if (!definition.changed) return "ALTER TABLE";

  const auto description = cluster.catalog.findTable(command.table);
  if (!description) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  sql::LogicalPlan plan = rewriteQuery(*description, definition);
  sql::optimize(plan, &executor.cancelRequested());
  definition.table->storageId = cluster.tables.newStorageId();
  std::shared_ptr<const TableEntry> rewritten = definition.table;
  // The load's commit puts the new definition in place, with the rows' count and statistics, in one change.
  auto replace = [&](const std::vector<TableCatalog::LoadedTable>& loaded) {
    auto replacement = std::make_shared<TableEntry>(*rewritten);
    for (const auto& table : loaded) {
      if (table.storageId != replacement->storageId) continue;
      replacement->rowCount = table.rows;
      replacement->columnStatistics = table.columnStatistics;
    }
    cluster.tables.replaceTable(old, std::move(replacement), definition.sources);
  };
  try {
    loadQueryRows(cluster, rewritten, plan, executor, replace);
  } catch (...) {
    // A load that failed left nothing; one whose commit the catalog refused left rows in the new storage.
    dropStorageOnWorkers(cluster, *rewritten, rewritten->storageId);
    throw;
  }
  dropStorageOnWorkers(cluster, *old, old->storageId);
  return "ALTER TABLE";
}

}  // namespace shoal::coordinator
