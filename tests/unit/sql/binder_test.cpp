// The binder: names, statement kinds, clear errors with positions.
#include "sql/binder/binder.h"

#include <gtest/gtest.h>

#include "common/status.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/single_table_lowering.h"

namespace shoal::sql {
namespace {

using engine::LogicalType;

class OneTable final : public CatalogReader {
 public:
  std::optional<TableDescription> findTable(const QualifiedName& name) const override {
    if (name.schema != kPublicSchema || name.name != "t") return std::nullopt;
    TableDescription table;
    table.schema = name.schema;
    table.name = "t";
    table.columns = {{"a", LogicalType::integer()}, {"b", LogicalType::text()}};
    table.isSystemView = false;
    return table;
  }
};

BoundStatement bind(const std::string& text) {
  OneTable catalog;
  auto script = ParsedScript::parse(text);
  return Binder(catalog).bind(script, 0);
}

/// The query of `text`, optimized and lowered to what the coordinator runs.
BoundSelect lowered(const std::string& text) {
  BoundStatement bound = bind(text);
  auto& query = std::get<BoundQuery>(bound.command);
  optimize(query.plan);
  return lowerToSingleTableSelect(query.plan);
}

Status errorOf(const std::string& text) {
  try {
    bind(text);
  } catch (const ShoalError& error) {
    return error.status();
  }
  return Status::ok();
}

TEST(BinderTest, SyntaxErrorsCarryPostgresPositions) {
  Status status = errorOf("SELECT 1 FROM FROM");
  EXPECT_EQ(status.sqlState(), SqlState::kSyntaxError);
  EXPECT_EQ(status.position(), 15);
  EXPECT_NE(status.message().find("syntax error"), std::string::npos);
}

TEST(BinderTest, UnknownNamesPointAtThemselves) {
  Status column = errorOf("SELECT a, nope FROM t");
  EXPECT_EQ(column.sqlState(), SqlState::kUndefinedColumn);
  EXPECT_EQ(column.position(), 11);
  Status table = errorOf("SELECT 1 FROM missing");
  EXPECT_EQ(table.sqlState(), SqlState::kUndefinedTable);
  EXPECT_EQ(table.position(), 15);
  EXPECT_EQ(table.message(), "relation \"missing\" does not exist");
}

TEST(BinderTest, OutputColumnsAreNamedAsPostgresNamesThem) {
  auto bound = bind("SELECT a, b AS label, 1, upper(b), a::bigint, '1'::int, true FROM t");
  const auto& names = std::get<BoundQuery>(bound.command).plan.columnNames;
  EXPECT_EQ(names, (std::vector<std::string>{"a", "label", "?column?", "upper", "a", "int4", "bool"}));
}

TEST(BinderTest, StarExpandsToEveryColumn) {
  BoundSelect select = lowered("SELECT * FROM t WHERE a > 1 LIMIT 5 OFFSET 2");
  EXPECT_EQ(select.columnNames, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(select.where != nullptr);
  EXPECT_EQ(select.limit, 5);
  EXPECT_EQ(select.offset, 2);
}

TEST(BinderTest, UnknownLiteralsAndParametersBecomeText) {
  auto bound = bind("SELECT 'abc', $1");
  EXPECT_EQ(std::get<BoundQuery>(bound.command).plan.root->outputColumns()[0].type, LogicalType::text());
  EXPECT_EQ(bound.parameterTypes, (std::vector<LogicalType>{LogicalType::text()}));
}

TEST(BinderTest, WhereMustBeBoolean) {
  Status status = errorOf("SELECT a FROM t WHERE a");
  EXPECT_EQ(status.sqlState(), SqlState::kDatatypeMismatch);
}

TEST(BinderTest, UnsupportedClausesSayWhat) {
  EXPECT_EQ(errorOf("SELECT a FROM t FOR UPDATE").sqlState(), SqlState::kFeatureNotSupported);
  Status orderedRecursion =
      errorOf("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r ORDER BY 1) SELECT * FROM r");
  EXPECT_EQ(orderedRecursion.sqlState(), SqlState::kFeatureNotSupported);
  EXPECT_EQ(orderedRecursion.message(), "ORDER BY in a recursive query is not implemented");
  EXPECT_EQ(errorOf("CREATE TABLE x (a int CHECK (a > 0))").sqlState(), SqlState::kFeatureNotSupported);
}

TEST(BinderTest, AggregatesBecomeReferencesToTheirResults) {
  BoundSelect select = lowered("SELECT count(*) + 1, sum(a), max(a) FROM t");
  ASSERT_EQ(select.aggregates.size(), 3u);
  EXPECT_EQ(select.aggregates[0].function, engine::AggregateFunction::kCountStar);
  EXPECT_EQ(select.aggregates[1].resultType, LogicalType::bigInt());  // sum(integer) is bigint
  EXPECT_EQ(select.projections[0]->type(), LogicalType::bigInt());
  EXPECT_EQ(errorOf("SELECT a, count(*) FROM t").sqlState(), SqlState::kGroupingError);
  EXPECT_EQ(errorOf("SELECT a FROM t WHERE max(a) > 1").sqlState(), SqlState::kGroupingError);
  EXPECT_EQ(errorOf("SELECT max(max(a)) FROM t").sqlState(), SqlState::kGroupingError);
}

TEST(BinderTest, CreateTableReadsTypesKeysAndDistribution) {
  auto bound = bind(
      "CREATE TABLE x (k bigint, v char(3) NOT NULL, d numeric(20,4), PRIMARY KEY (k)) "
      "WITH (distribution = 'hash(v, k)')");
  const auto& create = std::get<CreateTable>(bound.command);
  EXPECT_EQ(create.columns[1].type, LogicalType::character(3));
  EXPECT_EQ(create.columns[2].type, LogicalType::decimal(20, 4));
  EXPECT_EQ(create.notNull, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(create.primaryKey, (std::vector<size_t>{0}));
  EXPECT_EQ(create.distribution.columns, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(
      std::get<CreateTable>(bind("CREATE TABLE y (a int) WITH (distribution = replicated)").command).distribution.kind,
      DistributionSpec::Kind::kReplicated);
  EXPECT_EQ(errorOf("CREATE TABLE y (a int) WITH (distribution = 'hash()')").sqlState(),
            SqlState::kInvalidParameterValue);
}

TEST(BinderTest, SessionStatements) {
  EXPECT_EQ(bind("BEGIN").commandTag, "BEGIN");
  EXPECT_EQ(bind("COMMIT").commandTag, "COMMIT");
  EXPECT_EQ(bind("ROLLBACK").commandTag, "ROLLBACK");
  auto set = bind("SET application_name = 'bi tool'");
  EXPECT_EQ(std::get<SetVariable>(set.command).value, "bi tool");
  EXPECT_EQ(bind("RESET ALL").commandTag, "RESET");
  EXPECT_EQ(std::get<ShowVariable>(bind("SHOW DateStyle").command).name, "datestyle");
}

TEST(BinderTest, SeveralStatementsParseTogether) {
  auto script = ParsedScript::parse("SELECT 1; SELECT 2 ;");
  ASSERT_EQ(script.numStatements(), 2u);
  EXPECT_EQ(script.statementText(1), "SELECT 2 ");
  EXPECT_EQ(ParsedScript::parse("").numStatements(), 0u);
}

}  // namespace
}  // namespace shoal::sql
