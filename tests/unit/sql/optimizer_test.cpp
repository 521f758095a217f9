// The optimizer on small queries: what each rewrite must (and must not) do to a plan.
#include "sql/optimizer/optimizer.h"

#include <gtest/gtest.h>

#include "common/status.h"
#include "sql/binder/binder.h"
#include "sql/plan/plan_printer.h"

namespace shoal::sql {
namespace {

using engine::LogicalType;
using engine::Value;

/// Tables r (1000 rows), s (100 rows) and t (10 rows), each (k, v, w), with statistics;
/// plus chain tables c0 .. c15 (k, next) for large join graphs.
class SmallCatalog final : public CatalogReader {
 public:
  std::optional<TableDescription> findTable(const QualifiedName& qualified) const override {
    if (qualified.schema != kPublicSchema) return std::nullopt;
    std::string_view name = qualified.name;
    uint64_t rows = name == "r" ? 1000 : name == "s" ? 100 : name == "t" ? 10 : 0;
    bool chain = name.size() >= 2 && name[0] == 'c' && std::isdigit(static_cast<unsigned char>(name[1]));
    if (rows == 0 && !chain) return std::nullopt;
    if (chain) rows = 1000 + 10 * std::stoul(std::string(name.substr(1)));
    TableDescription table;
    table.schema = qualified.schema;
    table.name = std::string(name);
    table.isSystemView = false;
    table.rowCount = rows;
    std::vector<std::string> names =
        chain ? std::vector<std::string>{"k", "next"} : std::vector<std::string>{"k", "v", "w"};
    for (const auto& column : names) {
      table.columns.push_back({column, LogicalType::integer()});
      uint64_t distinct = column == "k" ? rows : std::max<uint64_t>(rows / 10, 1);
      table.columnSummaries.push_back(
          ColumnSummary{distinct, 0, Value::integer(1), Value::integer(static_cast<int32_t>(distinct))});
    }
    return table;
  }
};

LogicalPlan optimized(const std::string& text) {
  SmallCatalog catalog;
  ParsedScript script = ParsedScript::parse(text);
  BoundStatement bound = Binder(catalog).bind(script, 0);
  LogicalPlan plan = std::move(std::get<BoundQuery>(bound.command).plan);
  optimize(plan);
  return plan;
}

std::string explain(const std::string& text) {
  std::string result;
  for (const auto& line : explainPlan(*optimized(text).root, false)) result += line + "\n";
  return result;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

size_t countOf(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

Status errorOf(const std::string& text) {
  try {
    optimized(text);
  } catch (const ShoalError& error) {
    return error.status();
  }
  return Status::ok();
}

TEST(OptimizerTest, ExistsAndInBecomeSemiJoinsAndTheirNegationsAntiJoins) {
  std::string exists = explain("SELECT k FROM r WHERE EXISTS (SELECT 1 FROM s WHERE s.k = r.k)");
  EXPECT_TRUE(contains(exists, "HashJoin SEMI")) << exists;
  EXPECT_TRUE(contains(exists, "on: (k = k)") || contains(exists, "(s.k = r.k)") || contains(exists, "k = k"))
      << exists;
  std::string notExists = explain("SELECT k FROM r WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.k = r.k)");
  EXPECT_TRUE(contains(notExists, "HashJoin ANTI")) << notExists;
  EXPECT_FALSE(contains(notExists, "null-aware")) << notExists;
  // NOT IN keeps its NULL semantics: the anti join is NULL-aware.
  std::string notIn = explain("SELECT k FROM r WHERE v NOT IN (SELECT v FROM s)");
  EXPECT_TRUE(contains(notIn, "HashJoin ANTI (null-aware)")) << notIn;
  std::string in = explain("SELECT k FROM r WHERE v IN (SELECT v FROM s WHERE s.w = r.w)");
  EXPECT_TRUE(contains(in, "HashJoin SEMI")) << in;
}

TEST(OptimizerTest, SubqueriesOutsideWhereConjunctsBecomeMarkJoins) {
  std::string plan = explain("SELECT k, v IN (SELECT v FROM s) FROM r");
  EXPECT_TRUE(contains(plan, "HashJoin MARK (null-aware)")) << plan;
  std::string either = explain("SELECT k FROM r WHERE w = 1 OR EXISTS (SELECT 1 FROM s WHERE s.k = r.k)");
  EXPECT_TRUE(contains(either, "HashJoin MARK")) << either;
}

TEST(OptimizerTest, CorrelatedAggregatesBecomeGroupedJoins) {
  std::string plan = explain("SELECT k FROM r WHERE v < (SELECT avg(v) FROM s WHERE s.w = r.w)");
  EXPECT_TRUE(contains(plan, "HashAggregate")) << plan;
  EXPECT_TRUE(contains(plan, "group by: w")) << plan;
  EXPECT_FALSE(contains(plan, "Dependent")) << plan;
  // The filter on the subquery's value rejects NULLs: the left join became an inner join.
  EXPECT_TRUE(contains(plan, "HashJoin INNER")) << plan;
}

TEST(OptimizerTest, CountOverNoRowsIsZeroNotNull) {
  // The "count bug": outer rows without a group must see 0, so the value is patched above the join.
  std::string plan = explain("SELECT k, (SELECT count(*) FROM s WHERE s.w = r.w) FROM r");
  EXPECT_TRUE(contains(plan, "HashJoin LEFT")) << plan;
  LogicalPlan optimizedPlan = optimized("SELECT k, (SELECT count(*) FROM s WHERE s.w = r.w) FROM r");
  std::string verbose;
  for (const auto& line : explainPlan(*optimizedPlan.root, true)) verbose += line + "\n";
  EXPECT_TRUE(contains(verbose, "CASE WHEN (matched IS NULL) THEN 0")) << verbose;
}

TEST(OptimizerTest, ANonEqualityBelowAnAggregateIsUnnestedOverTheDistinctOuterValues) {
  // The pull-up cannot group s by "w < r.w": the distinct r.w are joined into the subquery, which groups by them.
  std::string plan = explain("SELECT k, (SELECT count(*) FROM s WHERE s.w < r.w) FROM r");
  EXPECT_FALSE(contains(plan, "Dependent")) << plan;
  EXPECT_TRUE(contains(plan, "HashJoin LEFT")) << plan;
  // D (group by w over the copy of r) and the subquery grouped by D's w.
  EXPECT_GE(countOf(plan, "group by: w"), 2U) << plan;
  EXPECT_EQ(countOf(plan, "Scan r"), 2U) << plan;
}

TEST(OptimizerTest, ASetReturningFunctionOverOuterColumnsRunsOverTheirDistinctValues) {
  std::string plan = explain("SELECT k, (SELECT sum(g) FROM generate_series(1, r.v) g) FROM r");
  EXPECT_FALSE(contains(plan, "Dependent")) << plan;
  EXPECT_TRUE(contains(plan, "ProjectSet")) << plan;
}

TEST(OptimizerTest, AFoldedAwayScalarSubqueryLeavesNoDanglingReference) {
  // sqlsmith: the subquery's value was read only under "... AND false", which folds away.
  std::string plan = explain(
      "SELECT 1 WHERE 5 >= CASE WHEN (SELECT v FROM s WHERE false) IS NULL AND false THEN NULL::int2 "
      "ELSE NULL::int2 END");
  EXPECT_FALSE(plan.empty());
}

TEST(OptimizerTest, UncorrelatedScalarSubqueriesJoinTheirOneRow) {
  std::string plan = explain("SELECT k FROM r WHERE v > (SELECT max(v) FROM s)");
  EXPECT_FALSE(contains(plan, "SINGLE")) << plan;
  EXPECT_TRUE(contains(plan, "NestedLoopJoin INNER")) << plan;
}

TEST(OptimizerTest, CommaJoinsBecomeHashJoinsWithTheSmallerSideBuilding) {
  LogicalPlan plan = optimized("SELECT r.v FROM r, s, t WHERE r.k = s.k AND s.v = t.k AND t.w = 3");
  std::string text;
  for (const auto& line : explainPlan(*plan.root, false)) text += line + "\n";
  EXPECT_FALSE(contains(text, "CrossProduct")) << text;
  EXPECT_TRUE(contains(text, "HashJoin INNER")) << text;
  EXPECT_FALSE(contains(text, "NestedLoopJoin")) << text;
  std::function<void(const LogicalOperator&)> check = [&](const LogicalOperator& op) {
    if (op.kind() == LogicalOperatorKind::kJoin) {
      const auto& join = static_cast<const LogicalJoin&>(op);
      EXPECT_LE(join.children[1]->estimatedRows, join.children[0]->estimatedRows) << text;
    }
    for (const auto& child : op.children) check(*child);
  };
  check(*plan.root);
}

TEST(OptimizerTest, FiltersOnTheInnerSideMakeLeftJoinsInner) {
  EXPECT_TRUE(contains(explain("SELECT r.k FROM r LEFT JOIN s ON r.k = s.k WHERE s.v = 1"), "HashJoin INNER"));
  // IS NULL keeps the NULL-extended rows: still a left join, filtered above.
  std::string plan = explain("SELECT r.k FROM r LEFT JOIN s ON r.k = s.k WHERE s.v IS NULL");
  EXPECT_TRUE(contains(plan, "HashJoin LEFT")) << plan;
  EXPECT_TRUE(contains(plan, "Filter")) << plan;
}

TEST(OptimizerTest, PredicatesReachTheScanAndConstantsFold) {
  std::string plan = explain(
      "SELECT x FROM (SELECT k + 1 AS x, w FROM r) sub WHERE w > 2 + 3 AND x < 10 AND date '1998-12-01' - interval "
      "'90' day > date '1998-01-01'");
  EXPECT_TRUE(contains(plan, "filter: (w > 5)")) << plan;
  EXPECT_TRUE(contains(plan, "filter: ((k + 1) < 10)")) << plan;
  EXPECT_FALSE(contains(plan, "Filter\n")) << plan;
  EXPECT_FALSE(contains(plan, "1998-12-01")) << plan;
}

TEST(OptimizerTest, ScansReadOnlyTheColumnsUsed) {
  LogicalPlan plan = optimized("SELECT sum(v) FROM r WHERE w = 1");
  const LogicalOperator* op = plan.root.get();
  while (op->kind() != LogicalOperatorKind::kScan) op = op->children[0].get();
  const auto& scan = static_cast<const LogicalScan&>(*op);
  EXPECT_EQ(scan.tableColumns, (std::vector<size_t>{1, 2}));
}

TEST(OptimizerTest, LongJoinChainsUseTheGreedyOrderWithoutCrossProducts) {
  std::string text = "SELECT count(*) FROM c0";
  for (int i = 1; i < 15; ++i) text += fmt::format(" JOIN c{} ON c{}.next = c{}.k", i, i - 1, i);
  std::string plan = explain(text);
  EXPECT_FALSE(contains(plan, "CrossProduct")) << plan;
  size_t joins = 0;
  for (size_t at = plan.find("HashJoin"); at != std::string::npos; at = plan.find("HashJoin", at + 1)) ++joins;
  EXPECT_EQ(joins, 14u) << plan;
}

TEST(OptimizerTest, UnsupportedCorrelationFailsClearlyInsteadOfRunningPerRow) {
  Status status = errorOf("SELECT k FROM r WHERE v = (SELECT v FROM s WHERE s.k = r.k UNION ALL SELECT 1)");
  EXPECT_EQ(status.sqlState(), SqlState::kFeatureNotSupported);
  EXPECT_TRUE(contains(status.message(), "UNION")) << status.message();
}

TEST(OptimizerTest, ALimitPerOuterRowBecomesARowNumberPerOuterValue) {
  std::string plan = explain("SELECT k FROM r WHERE v = (SELECT v FROM s WHERE s.k = r.k ORDER BY v DESC LIMIT 1)");
  EXPECT_TRUE(contains(plan, "Window")) << plan;
  EXPECT_TRUE(contains(plan, "row_number")) << plan;
  EXPECT_FALSE(contains(plan, "Limit")) << plan;
}

TEST(OptimizerTest, UnionAllGetsFiltersInBothInputs) {
  std::string plan = explain("SELECT k FROM (SELECT k FROM r UNION ALL SELECT k FROM s) u WHERE k = 7");
  EXPECT_TRUE(contains(plan, "UnionAll")) << plan;
  size_t filters = 0;
  for (size_t at = plan.find("filter: (k = 7)"); at != std::string::npos; at = plan.find("filter: (k = 7)", at + 1)) {
    ++filters;
  }
  EXPECT_EQ(filters, 2u) << plan;
}

TEST(OptimizerTest, RenamingProjectionsGoButTheClientsColumnOrderStays) {
  LogicalPlan view = optimized("SELECT count(*) FROM (SELECT k AS x, v AS y FROM r) sub WHERE y > 3");
  std::string text;
  for (const auto& line : explainPlan(*view.root, false)) text += line + "\n";
  EXPECT_EQ(text.find("Project", text.find("Aggregate")), std::string::npos) << text;
  LogicalPlan ordered = optimized("SELECT w, k FROM r ORDER BY k");
  auto columns = ordered.root->outputColumns();
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].name, "w");
  EXPECT_EQ(columns[1].name, "k");
}

TEST(OptimizerTest, NotInKeepsTheNullsOfTheSubqueryEvenWithAConstantTest) {
  // Filtering the subquery's rows by "5 = v" would drop its NULLs, which must make NOT IN keep nothing.
  std::string plan = explain("SELECT k FROM r WHERE 5 NOT IN (SELECT v FROM s)");
  EXPECT_TRUE(contains(plan, "null-aware on: (5 = v)")) << plan;
  EXPECT_FALSE(contains(plan, "filter: (5 = v)")) << plan;
  // Correlation predicates stay plain conditions next to the NULL-aware comparison.
  std::string correlated = explain("SELECT k FROM r WHERE v NOT IN (SELECT v FROM s WHERE s.w = r.w)");
  EXPECT_TRUE(contains(correlated, "null-aware on: (v = v)")) << correlated;
  EXPECT_TRUE(contains(correlated, "on: (w = w)")) << correlated;
}

TEST(OptimizerTest, WithQueriesSeeWhatWasDefinedBeforeThemNotThemselves) {
  // Inside its own body, t is the table t (PostgreSQL), not a recursion.
  std::string plan = explain("WITH t AS (SELECT k FROM t WHERE k > 1) SELECT count(*) FROM t");
  EXPECT_TRUE(contains(plan, "Scan t")) << plan;
  // A WITH query is bound where it is defined, not where it is used.
  std::string scoped =
      explain("WITH x AS (SELECT k FROM t) SELECT * FROM (WITH t AS (SELECT 99 AS k) SELECT * FROM x) sub");
  EXPECT_TRUE(contains(scoped, "Scan t")) << scoped;
  EXPECT_FALSE(contains(scoped, "99")) << scoped;
}

TEST(OptimizerTest, ChainedUsingJoinsJoinOnTheMergedColumn) {
  LogicalPlan plan = optimized("SELECT * FROM r AS r1 LEFT JOIN s AS s1 USING (k) LEFT JOIN t AS t1 USING (k)");
  std::string text;
  for (const auto& line : explainPlan(*plan.root, false)) text += line + "\n";
  EXPECT_TRUE(contains(text, "(r1.k = t1.k)")) << text;
  // PostgreSQL's SELECT *: the USING column once, first, then each side's other columns.
  std::vector<std::string> expected = {"k", "v", "w", "v", "w", "v", "w"};
  EXPECT_EQ(plan.columnNames, expected);
  EXPECT_EQ(errorOf("SELECT * FROM r JOIN s USING (nope)").sqlState(), SqlState::kUndefinedColumn);
}

TEST(OptimizerTest, CorrelationShapesThatWouldChangeResultsAreRefused) {
  // A HAVING that fails makes the scalar subquery NULL; the COUNT patch would say 0.
  EXPECT_EQ(errorOf("SELECT k, (SELECT count(*) FROM s WHERE s.w = r.w HAVING count(*) > r.v) FROM r").sqlState(),
            SqlState::kFeatureNotSupported);
  EXPECT_EQ(errorOf("SELECT k FROM r WHERE EXISTS (SELECT 1 FROM (SELECT max(s.v) m FROM s WHERE s.w = r.w) x, t)")
                .sqlState(),
            SqlState::kFeatureNotSupported);
  EXPECT_EQ(
      errorOf("SELECT k, (SELECT count(*) FROM (SELECT * FROM s WHERE s.w = r.w) x FULL JOIN t ON x.v = t.v) FROM r")
          .sqlState(),
      SqlState::kFeatureNotSupported);
  EXPECT_EQ(errorOf("SELECT sum((SELECT max(v) FROM s)) FROM r").sqlState(), SqlState::kFeatureNotSupported);
  EXPECT_EQ(errorOf("SELECT count(*) AS c FROM r GROUP BY c").sqlState(), SqlState::kGroupingError);
}

TEST(OptimizerTest, ExplainVerboseShowsExpressionsAndColumns) {
  LogicalPlan plan = optimized("SELECT k * 2 AS doubled FROM t ORDER BY 1 DESC LIMIT 3");
  std::string text;
  for (const auto& line : explainPlan(*plan.root, true)) text += line + "\n";
  EXPECT_TRUE(contains(text, "doubled := (k * 2)")) << text;
  EXPECT_TRUE(contains(text, "output: doubled")) << text;
  EXPECT_TRUE(contains(text, "keys: doubled DESC")) << text;
  EXPECT_TRUE(contains(text, "limit: 3")) << text;
}

}  // namespace
}  // namespace shoal::sql

namespace shoal::sql {
namespace {

size_t lineOf(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  return at == std::string::npos
             ? std::string::npos
             : static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

TEST(OptimizerTest, ASemiJoinMovesBelowAJoinThatMultipliesItsInput) {
  // r JOIN s on a 10-valued column: each s row meets ten r rows, so EXISTS on s is checked on s alone.
  std::string plan =
      explain("SELECT r.k, s.k FROM r JOIN s ON r.v = s.w WHERE EXISTS (SELECT 1 FROM t WHERE t.k = s.k)");
  ASSERT_NE(lineOf(plan, "SEMI"), std::string::npos) << plan;
  EXPECT_GT(lineOf(plan, "SEMI"), lineOf(plan, "INNER")) << plan;
}

TEST(OptimizerTest, ASemiJoinStaysAboveAJoinThatFiltersItsInput) {
  // s JOIN t on t's key keeps a tenth of s: EXISTS then runs on the ten rows left, not on all of s.
  std::string plan = explain("SELECT s.k FROM s JOIN t ON s.k = t.k WHERE EXISTS (SELECT 1 FROM r WHERE r.k = s.v)");
  ASSERT_NE(lineOf(plan, "SEMI"), std::string::npos) << plan;
  EXPECT_LT(lineOf(plan, "SEMI"), lineOf(plan, "INNER")) << plan;
}

TEST(OptimizerTest, AnAggregateOfOneJoinInputGroupsThatInputBeforeTheJoin) {
  // sum(r.w) by s.v over r JOIN s on r.v (100 values in 1000 rows): r is grouped by r.v below the join, which
  // then meets 100 rows; above it, the groups' sums and counts add up by s.v.
  std::string plan = explain("SELECT s.v, sum(r.w), count(*), avg(r.w) FROM r JOIN s ON r.v = s.k GROUP BY s.v");
  ASSERT_EQ(countOf(plan, "HashAggregate"), 2u) << plan;
  // Below the join, over r: the parts (avg as a sum and a count); above it, their sums.
  EXPECT_GT(lineOf(plan, "aggregates: sum(w), count(*), sum(w), count(w)"), lineOf(plan, "HashJoin")) << plan;
  EXPECT_LT(lineOf(plan, "aggregates: sum(sum), sum(count), sum(avg_sum), sum(avg_count)"), lineOf(plan, "HashJoin"))
      << plan;
}

TEST(OptimizerTest, AnAggregateStaysAboveAJoinThatShrinksItsInputMore) {
  // The filter on s leaves 10 of its rows, so the join keeps 100 of r's 1000: fewer than r's 100 groups.
  std::string filtered = explain("SELECT s.v, sum(r.w) FROM r JOIN s ON r.v = s.k WHERE s.w = 1 GROUP BY s.v");
  EXPECT_EQ(countOf(filtered, "HashAggregate"), 1u) << filtered;
  // r.k is r's key: grouping by it would not shrink r at all.
  std::string unique = explain("SELECT s.v, sum(r.w) FROM r JOIN s ON r.k = s.k GROUP BY s.v");
  EXPECT_EQ(countOf(unique, "HashAggregate"), 1u) << unique;
  // An aggregate that reads both inputs, or counts distinct values, cannot be split.
  std::string both = explain("SELECT s.v, sum(r.w + s.w) FROM r JOIN s ON r.v = s.k GROUP BY s.v");
  EXPECT_EQ(countOf(both, "HashAggregate"), 1u) << both;
  std::string distinct = explain("SELECT s.v, count(DISTINCT r.w) FROM r JOIN s ON r.v = s.k GROUP BY s.v");
  EXPECT_EQ(countOf(distinct, "HashAggregate"), 1u) << distinct;
}

}  // namespace
}  // namespace shoal::sql
