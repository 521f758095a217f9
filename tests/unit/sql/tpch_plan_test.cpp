// The 22 TPC-H queries in their official text through the whole front end:
// parse, bind, decorrelate, push down, order joins. Each plan must be free of
// cross products and dependent subqueries, every equi-join must build its hash
// table from the smaller estimated input, and EXPLAIN must match the golden
// file in tests/tpch/explain/ (SHOAL_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/status.h"
#include "engine/types/text_format.h"
#include "sql/binder/binder.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/plan_printer.h"

namespace shoal::sql {
namespace {

using engine::LogicalType;

const std::filesystem::path kTpchDirectory = std::filesystem::path(SHOAL_SOURCE_DIR) / "tests" / "tpch";

std::vector<std::string> splitCsvLine(const std::string& line) {
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

LogicalType typeFromName(const std::string& name) {
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

/// The TPC-H schema with the statistics a real SF 1 load collected (tests/tpch/sf1_statistics.csv),
/// plus the views the queries create.
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
  }

  std::optional<TableDescription> findTable(std::string_view name) const override {
    auto found = tables_.find(std::string(name));
    if (found == tables_.end()) return std::nullopt;
    return found->second;
  }
  std::optional<ViewDescription> findView(std::string_view name) const override {
    auto found = views_.find(std::string(name));
    if (found == views_.end()) return std::nullopt;
    return found->second;
  }
  void addView(const CreateView& view) { views_[view.name] = {view.name, view.query, view.columnNames}; }
  void dropView(const std::string& name) { views_.erase(name); }
  bool empty() const { return tables_.empty(); }

 private:
  std::map<std::string, TableDescription> tables_;
  std::map<std::string, ViewDescription> views_;
};

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Walks the optimized plan and reports what a good plan must not contain.
void checkPlanShape(const LogicalOperator& op, int query, std::vector<std::string>& problems) {
  if (op.kind() == LogicalOperatorKind::kJoin) {
    const auto& join = static_cast<const LogicalJoin&>(op);
    if (join.dependent) problems.push_back("a dependent join is left");
    if (join.type == JoinType::kInner && join.conditions.empty()) problems.push_back("a cross product");
    if (hasEquiCondition(join)) {
      double left = join.children[0]->estimatedRows;
      double right = join.children[1]->estimatedRows;
      double build = join.buildLeft ? left : right;
      double probe = join.buildLeft ? right : left;
      if (build > probe) {
        problems.push_back(fmt::format("a {} hash join builds {:.0f} rows against a probe of {:.0f}",
                                       joinTypeName(join.type), build, probe));
      }
    }
  }
  for (const auto& child : op.children) checkPlanShape(*child, query, problems);
}

class TpchPlanTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchPlanTest, PlansWithoutCrossProductsOrDependentSubqueriesAndSmallerBuildSides) {
  int query = GetParam();
  TpchCatalog catalog;
  ASSERT_FALSE(catalog.empty()) << "tests/tpch/sf1_statistics.csv is missing";
  std::string name = fmt::format("q{:02d}", query);
  ParsedScript script = ParsedScript::parse(readFile(kTpchDirectory / "queries" / (name + ".sql")));
  std::vector<std::string> explain;
  int selects = 0;
  for (size_t i = 0; i < script.numStatements(); ++i) {
    BoundStatement bound = Binder(catalog).bind(script, i);
    if (auto* view = std::get_if<CreateView>(&bound.command)) {
      catalog.addView(*view);
      continue;
    }
    if (auto* drop = std::get_if<DropView>(&bound.command)) {
      for (const auto& view : drop->names) catalog.dropView(view);
      continue;
    }
    auto& plan = std::get<BoundQuery>(bound.command).plan;
    optimize(plan);
    ++selects;
    std::vector<std::string> problems;
    checkPlanShape(*plan.root, query, problems);
    for (const auto& problem : problems) ADD_FAILURE() << name << ": " << problem;
    explain = explainPlan(*plan.root, false);
  }
  ASSERT_EQ(selects, 1);
  std::string text;
  for (const auto& line : explain) text += line + "\n";
  std::filesystem::path golden = kTpchDirectory / "explain" / (name + ".txt");
  if (std::getenv("SHOAL_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden) << text;
  }
  EXPECT_EQ(text, readFile(golden)) << "EXPLAIN of " << name << " differs from " << golden
                                    << " (SHOAL_UPDATE_GOLDEN=1 rewrites it)";
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchPlanTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) { return fmt::format("Q{:02d}", info.param); });

}  // namespace
}  // namespace shoal::sql
