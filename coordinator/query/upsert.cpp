#include "coordinator/query/upsert.h"

#include <algorithm>
#include <set>

#include "coordinator/query/insert_select.h"
#include "coordinator/query/row_router.h"
#include "coordinator/query/table_commands.h"
#include "coordinator/query/unique_key_check.h"

namespace shoal::coordinator {

namespace {

/// Conflicting rows per UPDATE statement: its VALUES list stays a few hundred kilobytes of SQL.
constexpr size_t kRowsPerUpdate = 1000;

ConflictHandling handlingOf(const TableEntry& table, const sql::OnConflict& onConflict) {
  if (enforcedKeys(table).size() < (table.primaryKey.empty() ? 0 : 1) + table.uniqueKeys.size()) {
    // A key made before keys were checked, on a distribution that cannot check it.
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                    "ON CONFLICT needs the key of table \"{}\" checked, and its distribution cannot check it",
                    table.name);
  }
  ConflictHandling handling;
  handling.action = onConflict.doUpdate ? worker::ConflictAction::kReport : worker::ConflictAction::kSkip;
  const std::set<size_t> arbiter(onConflict.arbiterColumns.begin(), onConflict.arbiterColumns.end());
  for (auto key : enforcedKeys(table)) {
    key.arbiter = arbiter.empty() || std::set<size_t>(key.columns.begin(), key.columns.end()) == arbiter;
    handling.keys.push_back(std::move(key));
  }
  return handling;
}

/// `value` of row `row` as a SQL literal of its column's type.
void appendLiteral(const engine::Vector& column, size_t row, std::string& out) {
  out += "CAST(";
  if (column.isNull(row)) {
    out += "NULL";
  } else {
    std::string text;
    column.appendText(row, text);
    out += '\'';
    for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
    out += '\'';
  }
  out += " AS " + column.type().toString() + ")";
}

/// DO UPDATE over the rows the key check handed back; returns the rows updated.
uint64_t updateConflicting(const sql::OnConflict& onConflict, const std::vector<engine::Chunk>& reported,
                           uint64_t readAt, const ConflictUpdater& update) {
  const std::string& statement = onConflict.updateStatement;
  const size_t placeholder = statement.find(sql::kExcludedRowsPlaceholder);
  uint64_t updated = 0;
  std::string values;
  size_t rowsInValues = 0;
  auto flush = [&] {
    if (rowsInValues == 0) return;
    updated += update(statement.substr(0, placeholder) + "(VALUES " + values + ")" +
                          statement.substr(placeholder + sql::kExcludedRowsPlaceholder.size()),
                      readAt);
    values.clear();
    rowsInValues = 0;
  };
  for (const auto& chunk : reported) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      values += rowsInValues == 0 ? "(" : ", (";
      for (size_t c = 0; c < chunk.numColumns(); ++c) {
        if (c > 0) values += ", ";
        appendLiteral(chunk.column(c), row, values);
      }
      values += ")";
      if (++rowsInValues == kRowsPerUpdate) flush();
    }
  }
  flush();
  return updated;
}

uint64_t finish(const sql::OnConflict& onConflict, uint64_t rowsSent, KeyCheckResult checked,
                const ConflictUpdater& update) {
  const uint64_t inserted = rowsSent - std::min(rowsSent, checked.rowsSkipped);
  if (!onConflict.doUpdate || checked.reported.empty()) return inserted;
  return inserted + updateConflicting(onConflict, checked.reported, checked.snapshotSeq, update);
}

}  // namespace

uint64_t runUpsertValues(ClusterContext& cluster, const sql::InsertValues& command,
                         std::span<const engine::Value> parameters, Transaction& transaction,
                         const ConflictUpdater& update) {
  std::shared_ptr<const TableEntry> table;
  std::vector<engine::Chunk> chunks = insertValuesRows(cluster, command, parameters, table);
  RowRouter router(cluster, table, {}, &transaction);
  router.load().handleConflicts(handlingOf(*table, *command.onConflict));
  for (const auto& chunk : chunks) router.write(chunk);
  router.finish();
  return finish(*command.onConflict, command.rows.size(), router.load().takeKeyCheck(), update);
}

uint64_t runUpsertSelect(ClusterContext& cluster, const sql::InsertSelect& command, const PlanExecutor& executor,
                         Transaction& transaction, const ConflictUpdater& update) {
  auto table = cluster.tables.find(command.table);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  KeyCheckResult checked;
  const uint64_t rows = loadQueryRows(cluster, table, command.plan, executor, {}, &transaction,
                                      handlingOf(*table, *command.onConflict), &checked);
  return finish(*command.onConflict, rows, std::move(checked), update);
}

}  // namespace shoal::coordinator
