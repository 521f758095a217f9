#include "coordinator/query/replica_rows.h"

#include <memory>

#include "coordinator/query/table_scan_plan.h"
#include "engine/expression/expression.h"
#include "sql/plan/logical_operator.h"

namespace shoal::coordinator {

namespace {

constexpr unsigned kRowTagShift = 48;

/// SELECT <row id>, every column FROM the table: the whole copy on the worker it runs on.
sql::LogicalPlan wholeCopyPlan(const TableEntry& table) {
  sql::TableDescription description;
  description.schema = table.schema;
  description.name = table.name;
  description.isSystemView = false;
  for (const auto& column : table.columns) description.columns.push_back({column.name, column.type});
  sql::ColumnId nextId = 0;
  auto scan = scanOfEveryColumn(description, nextId);
  // The scan reads the row id last (as the workers want it); the plan returns it first.
  scan->tableColumns.push_back(sql::kRowIdColumn);
  scan->columns.push_back(sql::PlanColumn{nextId++, engine::LogicalType::bigInt(), "ctid"});
  std::vector<sql::PlanColumn> outputs = {scan->columns.back()};
  outputs.insert(outputs.end(), scan->columns.begin(), scan->columns.end() - 1);
  auto project = std::make_unique<sql::LogicalProject>();
  sql::LogicalPlan plan;
  for (const auto& column : outputs) {
    addOutput(*project, plan, std::make_unique<engine::ColumnRefExpression>(column.id, column.type, column.name),
              column.name, nextId);
  }
  project->children.push_back(std::move(scan));
  plan.root = std::move(project);
  return plan;
}

/// Columns 1.. of `row` of `chunk` as one string: equal for rows of equal values (NULLs included), and only then.
std::string valueKey(const engine::Chunk& chunk, size_t row) {
  std::string key;
  for (size_t c = 1; c < chunk.numColumns(); ++c) {
    if (chunk.column(c).isNull(row)) {
      key += '\x01';
      continue;
    }
    std::string text;
    chunk.column(c).appendText(row, text);
    key += std::to_string(text.size()) + ':' + text;
  }
  return key;
}

}  // namespace

ReplicaRows::ReplicaRows(ClusterContext& cluster, const TableEntry& table, const PlanExecutor& executor)
    : cluster_(cluster), table_(table), executor_(executor) {}

const std::unordered_map<uint64_t, std::string>& ReplicaRows::copy(uint32_t tag) {
  auto found = copies_.find(tag);
  if (found != copies_.end()) return found->second;
  auto& rows = copies_[tag];
  QueryResult result = executor_.runOn(wholeCopyPlan(table_), cluster_.workers.addressOfRowTag(tag));
  while (auto chunk = result.nextChunk()) {
    executor_.throwIfCancelRequested();
    const auto* ids = chunk->column(0).data<int64_t>();
    for (size_t row = 0; row < chunk->size(); ++row)
      rows.emplace(static_cast<uint64_t>(ids[row]), valueKey(*chunk, row));
  }
  return rows;
}

std::vector<size_t> ReplicaRows::choose(const std::vector<uint64_t>& ids) {
  std::vector<size_t> chosen;
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto tag = static_cast<uint32_t>(ids[i] >> kRowTagShift);
    const auto& rows = copy(tag);
    auto row = rows.find(ids[i]);
    SHOAL_CHECK(row != rows.end(), "row {} of a replicated table is missing from its own copy", ids[i]);
    auto [owner, inserted] = chosen_.emplace(row->second, Chosen{tag, {}});
    if (owner->second.tag != tag) continue;  // found in an earlier copy already
    owner->second.ids.push_back(ids[i]);
    chosen.push_back(i);
  }
  return chosen;
}

std::map<uint32_t, std::vector<uint64_t>> ReplicaRows::idsInEveryCopy() {
  std::map<uint32_t, std::vector<uint64_t>> ids;
  if (chosen_.empty()) return ids;
  for (const auto& address : cluster_.workers.placementAddresses(table_)) {
    const uint32_t tag = cluster_.workers.rowTagOf(address);
    auto& copyIds = ids[tag];
    std::unordered_map<std::string, size_t> wanted;  // in this copy: rows still to take, by value
    for (const auto& [key, chosen] : chosen_) {
      if (chosen.tag == tag) {
        copyIds.insert(copyIds.end(), chosen.ids.begin(), chosen.ids.end());
      } else {
        wanted[key] = chosen.ids.size();
      }
    }
    if (wanted.empty()) continue;
    for (const auto& [id, key] : copy(tag)) {
      auto found = wanted.find(key);
      if (found == wanted.end() || found->second == 0) continue;
      --found->second;
      copyIds.push_back(id);
    }
    for (const auto& [key, left] : wanted) {
      // Every copy reads the same snapshot, so they hold the same rows.
      SHOAL_CHECK(left == 0, "the copy of table \"{}\" on {} lacks rows the other copies hold", table_.name, address);
    }
  }
  return ids;
}

}  // namespace shoal::coordinator
