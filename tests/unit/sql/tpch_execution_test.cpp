// The 22 TPC-H queries run end to end in one process — parse, bind, optimize,
// encoded and decoded as it travels to a worker (plan_serialization.h),
// pipelines on the morsel dispatcher — over SF 0.01 data from tpchgen-cli
// (dbgen-identical) held in memory, and must return the answers DuckDB gives
// over the same data (tests/tpch/answers/sf0.01): decimals exact, doubles
// within 1e-9 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/status.h"
#include "engine/pipeline/collect_sink.h"
#include "engine/types/text_format.h"
#include "scheduler/pipeline_runner.h"
#include "sql/binder/binder.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/plan_serialization.h"
#include "tests/unit/sql/tpch_test_catalog.h"

namespace shoal::sql {
namespace {

using testing::kTpchDirectory;
using testing::readFile;
using testing::split;
using testing::TpchCatalog;

/// The catalog with SF 0.01 rows from tpchgen-cli (generated once into the temporary directory).
TpchCatalog& tpchData() {
  static TpchCatalog catalog = [] {
    TpchCatalog data;
    std::filesystem::path directory = std::filesystem::temp_directory_path() / "shoal-tpch-sf001";
    if (!std::filesystem::exists(directory / "lineitem.tbl")) {
      std::filesystem::create_directories(directory);
      std::string command = (kTpchDirectory.parent_path().parent_path() / ".venv" / "bin" / "tpchgen-cli").string() +
                            " tbl -s 0.01 -o " + directory.string() + " > /dev/null 2>&1";
      if (std::system(command.c_str()) != 0) return data;
    }
    data.loadRows(directory);
    return data;
  }();
  return catalog;
}

/// Equal text (CHAR(n) prints padded as in PostgreSQL, DuckDB's answers unpadded), or numbers within 1e-9 relative.
bool sameCell(std::string got, std::string expected) {
  while (!got.empty() && got.back() == ' ') got.pop_back();
  while (!expected.empty() && expected.back() == ' ') expected.pop_back();
  if (got == expected) return true;
  char* end = nullptr;
  double a = std::strtod(got.c_str(), &end);
  if (end == got.c_str() || *end != '\0') return false;
  double b = std::strtod(expected.c_str(), &end);
  if (end == expected.c_str() || *end != '\0') return false;
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-12;
}

class TpchExecutionTest : public ::testing::TestWithParam<int> {};

TEST_P(TpchExecutionTest, ReturnsTheAnswerOfDuckDbOverTheSameData) {
  TpchCatalog& data = tpchData();
  ASSERT_TRUE(data.hasRows()) << "tpchgen-cli (deploy/install-deps.sh puts it in .venv) did not generate SF 0.01";
  std::string name = fmt::format("q{:02d}", GetParam());
  ParsedScript script = ParsedScript::parse(readFile(kTpchDirectory / "queries" / (name + ".sql")));
  scheduler::Dispatcher dispatcher(2, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  std::vector<std::string> got;
  for (size_t i = 0; i < script.numStatements(); ++i) {
    BoundStatement bound = Binder(data).bind(script, i);
    if (auto* view = std::get_if<CreateView>(&bound.command)) {
      data.addView(*view);
      continue;
    }
    if (auto* drop = std::get_if<DropView>(&bound.command)) {
      for (const auto& view : drop->names) data.dropView(view);
      continue;
    }
    auto& plan = std::get<BoundQuery>(bound.command).plan;
    optimize(plan);
    LogicalPlan shipped = decodePlan(encodePlan(plan, {}, [](const LogicalScan&) { return uint64_t{1}; }));
    PhysicalPlan physical = buildPipelines(shipped, [&](const LogicalScan& scan) { return data.scan(scan); });
    runner.start(std::move(physical.pipelines))->wait();
    for (auto& chunk : physical.result->chunks()) {
      for (size_t row = 0; row < chunk.size(); ++row) {
        std::string line;
        for (size_t column = 0; column < chunk.numColumns(); ++column) {
          engine::Value value = chunk.column(column).getValue(row);
          line += (column == 0 ? "" : "|") + (value.isNull() ? std::string("NULL") : value.toString());
        }
        got.push_back(line);
      }
    }
  }
  std::vector<std::string> expected = split(readFile(kTpchDirectory / "answers" / "sf0.01" / (name + ".out")), '\n');
  expected.erase(expected.begin());  // header
  while (!expected.empty() && expected.back().empty()) expected.pop_back();
  ASSERT_EQ(got.size(), expected.size()) << name << ": row count";
  for (size_t row = 0; row < got.size(); ++row) {
    auto gotCells = split(got[row], '|');
    auto expectedCells = split(expected[row], '|');
    ASSERT_EQ(gotCells.size(), expectedCells.size()) << name << " row " << row;
    for (size_t column = 0; column < gotCells.size(); ++column) {
      EXPECT_TRUE(sameCell(gotCells[column], expectedCells[column]))
          << name << " row " << row << " column " << column << ": got " << gotCells[column] << ", expected "
          << expectedCells[column];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllQueries, TpchExecutionTest, ::testing::Range(1, 23),
                         [](const ::testing::TestParamInfo<int>& info) { return fmt::format("Q{:02d}", info.param); });

}  // namespace
}  // namespace shoal::sql
