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
#include "tests/unit/sql/tpch_test_catalog.h"

namespace shoal::sql {
namespace {

using engine::LogicalType;

using testing::kTpchDirectory;
using testing::readFile;
using testing::TpchCatalog;

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
