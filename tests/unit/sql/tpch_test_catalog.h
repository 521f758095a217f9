#pragma once

// The TPC-H schema and the statistics of a real SF 1 load (tests/tpch/sf1_statistics.csv) as a catalog, for the
// tests that plan and run the 22 queries; optionally with the rows of .tbl files, in memory.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/pipeline/collect_sink.h"
#include "engine/types/text_format.h"
#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql::testing {

using engine::LogicalType;

inline const std::filesystem::path kTpchDirectory = std::filesystem::path(SHOAL_SOURCE_DIR) / "tests" / "tpch";

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : line) {
    if (c == separator) {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

inline std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

inline LogicalType typeFromName(const std::string& name) {
  if (name == "integer") return LogicalType::integer();
  if (name == "bigint") return LogicalType::bigInt();
  if (name == "date") return LogicalType::date();
  if (name == "double precision") return LogicalType::doublePrecision();
  int a = 0;
  int b = 0;
  if (std::sscanf(name.c_str(), "numeric(%d,%d)", &a, &b) == 2) return LogicalType::decimal(a, b);
  if (std::sscanf(name.c_str(), "character varying(%d)", &a) == 1) return LogicalType::varchar(a);
  if (std::sscanf(name.c_str(), "character(%d)", &a) == 1) return LogicalType::character(a);
  ADD_FAILURE() << "unknown type " << name;
  return LogicalType::text();
}

/// The eight tables in their schema's column order, with SF 1 statistics, the views the queries create, and
/// (after loadRows) their rows.
class TpchCatalog final : public CatalogReader {
 public:
  TpchCatalog() {
    std::ifstream in(kTpchDirectory / "sf1_statistics.csv");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      auto fields = splitCsvLine(line);
      if (fields.size() != 8) continue;
      TableDescription& table = tables_[fields[0]];
      table.schema = std::string(kPublicSchema);
      table.name = fields[0];
      table.isSystemView = false;
      table.rowCount = std::stoull(fields[3]);
      LogicalType type = typeFromName(fields[2]);
      table.columns.push_back({fields[1], type});
      // Only number and date ranges matter to the estimates; string bounds stay unknown.
      bool ranged = !type.isString();
      table.columnSummaries.push_back(
          ColumnSummary{std::stoull(fields[5]), std::stoull(fields[4]),
                        ranged ? engine::parseValue(fields[6], type) : engine::Value::null(type),
                        ranged ? engine::parseValue(fields[7], type) : engine::Value::null(type)});
    }
    // The statistics list columns alphabetically; the schema (and .tbl files) have their own order.
    for (auto& [name, table] : tables_) reorder(table);
  }

  std::optional<TableDescription> findTable(const QualifiedName& name) const override {
    if (name.schema != kPublicSchema) return std::nullopt;
    auto found = tables_.find(name.name);
    if (found == tables_.end()) return std::nullopt;
    return found->second;
  }
  std::optional<ViewDescription> findView(const QualifiedName& name) const override {
    if (name.schema != kPublicSchema) return std::nullopt;
    auto found = views_.find(name.name);
    if (found == views_.end()) return std::nullopt;
    return found->second;
  }
  void addView(const CreateView& view) {
    views_[view.name.name] = {view.name.schema, view.name.name, view.query, view.columnNames, view.searchPath};
  }
  void dropView(const QualifiedName& name) { views_.erase(name.name); }
  bool empty() const { return tables_.empty(); }

  /// Reads every table's `<name>.tbl` from `directory`.
  void loadRows(const std::filesystem::path& directory) {
    for (auto& [name, table] : tables_) load(table, directory / (name + ".tbl"));
  }
  bool hasRows() const { return !rows_.empty(); }

  /// A source over the scan's columns of the table, one morsel per 2048 rows.
  std::shared_ptr<engine::ChunkSource> scan(const LogicalScan& scan) const {
    std::vector<engine::Chunk> chunks;
    for (const auto& full : rows_.at(scan.table.name)) {
      engine::Chunk chunk(full.size());
      std::vector<uint32_t> all(full.size());
      for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      for (size_t column : scan.tableColumns) chunk.addColumn(full.column(column).select(all));
      chunks.push_back(std::move(chunk));
    }
    return std::make_shared<engine::ChunkListSource>(std::move(chunks));
  }

 private:
  void reorder(TableDescription& table) {
    static const std::map<std::string, std::vector<std::string>> kOrder = {
        {"nation", {"n_nationkey", "n_name", "n_regionkey", "n_comment"}},
        {"region", {"r_regionkey", "r_name", "r_comment"}},
        {"part",
         {"p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container", "p_retailprice", "p_comment"}},
        {"supplier", {"s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"}},
        {"partsupp", {"ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"}},
        {"customer",
         {"c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment", "c_comment"}},
        {"orders",
         {"o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority", "o_clerk",
          "o_shippriority", "o_comment"}},
        {"lineitem",
         {"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount",
          "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct",
          "l_shipmode", "l_comment"}}};
    const auto& order = kOrder.at(table.name);
    TableDescription sorted = table;
    sorted.columns.clear();
    sorted.columnSummaries.clear();
    for (const auto& name : order) {
      for (size_t i = 0; i < table.columns.size(); ++i) {
        if (table.columns[i].name != name) continue;
        sorted.columns.push_back(table.columns[i]);
        sorted.columnSummaries.push_back(table.columnSummaries[i]);
      }
    }
    table = std::move(sorted);
  }

  void load(const TableDescription& table, const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    std::vector<std::vector<std::string>> pending;
    auto flush = [&] {
      if (pending.empty()) return;
      engine::Chunk chunk(pending.size());
      for (size_t column = 0; column < table.columns.size(); ++column) {
        engine::Vector values(table.columns[column].type, pending.size());
        for (size_t row = 0; row < pending.size(); ++row) {
          values.setValue(row, engine::parseValue(pending[row][column], table.columns[column].type));
        }
        chunk.addColumn(std::move(values));
      }
      rows_[table.name].push_back(std::move(chunk));
      pending.clear();
    };
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '|') line.pop_back();
      pending.push_back(split(line, '|'));
      if (pending.size() == engine::kVectorSize) flush();
    }
    flush();
  }

  std::map<std::string, TableDescription> tables_;
  std::map<std::string, ViewDescription> views_;
  std::map<std::string, std::vector<engine::Chunk>> rows_;
};

}  // namespace shoal::sql::testing
