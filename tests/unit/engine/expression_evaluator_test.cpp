// Expressions as users write them: SQL text through the binder into the
// vectorized evaluator, checked against PostgreSQL's answers.
#include "engine/expression/expression_evaluator.h"

#include <gtest/gtest.h>

#include "common/status.h"
#include "sql/binder/binder.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/single_table_lowering.h"

namespace shoal {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Value;
using engine::Vector;

class NoTables final : public sql::CatalogReader {
 public:
  std::optional<sql::TableDescription> findTable(const sql::QualifiedName&) const override { return std::nullopt; }
};

/// The statement's query, optimized and lowered to what the coordinator runs.
sql::BoundSelect lowered(sql::BoundStatement& bound) {
  auto& query = std::get<sql::BoundQuery>(bound.command);
  sql::optimize(query.plan);
  return sql::lowerToSingleTableSelect(query.plan);
}

/// Evaluates `SELECT <expression>` and returns PostgreSQL's text of the one value ("NULL" for null).
std::string eval(const std::string& expression) {
  NoTables catalog;
  auto script = sql::ParsedScript::parse("SELECT " + expression);
  auto bound = sql::Binder(catalog).bind(script, 0);
  sql::BoundSelect select = lowered(bound);
  engine::ExpressionEvaluator evaluator;
  Vector result = evaluator.evaluate(*select.projections.at(0), Chunk(1));
  return result.getValue(0).toString();
}

LogicalType typeOf(const std::string& expression) {
  NoTables catalog;
  auto script = sql::ParsedScript::parse("SELECT " + expression);
  auto bound = sql::Binder(catalog).bind(script, 0);
  return lowered(bound).projections.at(0)->type();
}

std::string_view errorOf(const std::string& expression) {
  try {
    eval(expression);
  } catch (const ShoalError& error) {
    return error.status().sqlState();
  }
  return "none";
}

TEST(ExpressionEvaluatorTest, TheWalkingSkeletonQuery) {
  EXPECT_EQ(eval("1 + 1"), "2");
  EXPECT_EQ(eval("'a' || 'b'"), "ab");
  EXPECT_EQ(eval("NULL IS NULL"), "t");
}

TEST(ExpressionEvaluatorTest, IntegerArithmeticFollowsPostgres) {
  EXPECT_EQ(eval("7 / 2"), "3");
  EXPECT_EQ(eval("-7 / 2"), "-3");
  EXPECT_EQ(eval("-7 % 3"), "-1");
  EXPECT_EQ(eval("2147483647 + 1::bigint"), "2147483648");
  EXPECT_EQ(typeOf("1 + 3000000000"), LogicalType::bigInt());
  EXPECT_EQ(errorOf("2147483647 + 1"), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(errorOf("(-2147483647 - 1) / -1"), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(errorOf("1 / 0"), SqlState::kDivisionByZero);
  EXPECT_EQ(errorOf("1 % 0"), SqlState::kDivisionByZero);
}

TEST(ExpressionEvaluatorTest, DecimalArithmeticIsExact) {
  EXPECT_EQ(eval("0.1 + 0.2"), "0.3");
  EXPECT_EQ(eval("1.5 * 2"), "3.0");
  EXPECT_EQ(eval("1.25 * 1.25"), "1.5625");
  EXPECT_EQ(eval("10.0 / 3"), "3.3333333333333333");
  EXPECT_EQ(eval("-2.0 / 3"), "-0.6666666666666667");
  EXPECT_EQ(eval("5.5 % 2"), "1.5");
  EXPECT_EQ(eval("100.00 - 0.005"), "99.995");
  EXPECT_EQ(eval("12345678901234567890.5 * 2"), "24691357802469135781.0");
  EXPECT_EQ(typeOf("1.50 + 1"), LogicalType::decimal(13, 2));
  EXPECT_EQ(errorOf("1.0 / 0"), SqlState::kDivisionByZero);
  EXPECT_EQ(errorOf("99999999999999999999999999999999999999 + 1"), SqlState::kNumericValueOutOfRange);
}

TEST(ExpressionEvaluatorTest, DoublesMixWithOtherNumbers) {
  EXPECT_EQ(eval("1.5::float8 + 1"), "2.5");
  EXPECT_EQ(eval("0.1::float8 + 0.2::float8"), "0.30000000000000004");
  EXPECT_EQ(typeOf("1::float8 * 2.5"), LogicalType::doublePrecision());
  EXPECT_EQ(errorOf("1::float8 / 0"), SqlState::kDivisionByZero);
  EXPECT_EQ(errorOf("1e308::float8 * 10"), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(eval("1.5e300::float8"), "1.5e+300");
}

TEST(ExpressionEvaluatorTest, ComparisonsPromoteAcrossTypes) {
  EXPECT_EQ(eval("1 = 1.0"), "t");
  EXPECT_EQ(eval("2 < 2.5::float8"), "t");
  EXPECT_EQ(eval("'abc' < 'abd'"), "t");
  EXPECT_EQ(eval("'b' > 'abc'"), "t");
  EXPECT_EQ(eval("date '2024-01-01' < '2024-01-02'"), "t");
  EXPECT_EQ(eval("1 <> NULL"), "NULL");
  EXPECT_EQ(eval("'12' = 12"), "t");
  EXPECT_EQ(errorOf("1 = 'x'"), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(errorOf("1 = true"), SqlState::kUndefinedFunction);
}

TEST(ExpressionEvaluatorTest, ThreeValuedLogic) {
  EXPECT_EQ(eval("NULL AND false"), "f");
  EXPECT_EQ(eval("NULL AND true"), "NULL");
  EXPECT_EQ(eval("NULL OR true"), "t");
  EXPECT_EQ(eval("NULL OR false"), "NULL");
  EXPECT_EQ(eval("NOT NULL::boolean"), "NULL");
  EXPECT_EQ(eval("NOT (1 < 2)"), "f");
  EXPECT_EQ(eval("1 IS NOT NULL"), "t");
  EXPECT_EQ(errorOf("1 AND true"), SqlState::kDatatypeMismatch);
}

TEST(ExpressionEvaluatorTest, NullPropagatesThroughEveryOperator) {
  EXPECT_EQ(eval("NULL + 1"), "NULL");
  EXPECT_EQ(eval("NULL::integer / 0"), "NULL");
  EXPECT_EQ(eval("'a' || NULL"), "NULL");
  EXPECT_EQ(eval("-NULL::numeric(5,2)"), "NULL");
  EXPECT_EQ(eval("NULL"), "NULL");
}

TEST(ExpressionEvaluatorTest, CastsConvertOrFailClearly) {
  EXPECT_EQ(eval("'42'::integer + 1"), "43");
  EXPECT_EQ(eval("3.7::integer"), "4");
  EXPECT_EQ(eval("-3.5::integer"), "-4");
  EXPECT_EQ(eval("2.5::float8::integer"), "2");  // rint: half to even
  EXPECT_EQ(eval("12.345::numeric(5,2)"), "12.35");
  EXPECT_EQ(eval("1::numeric"), "1");
  EXPECT_EQ(eval("'1.2300'::numeric"), "1.2300");
  EXPECT_EQ(eval("123::text || 'x'"), "123x");
  EXPECT_EQ(eval("'hello'::varchar(3)"), "hel");
  EXPECT_EQ(eval("true::integer"), "1");
  EXPECT_EQ(eval("CAST('2024-02-29' AS date)"), "2024-02-29");
  EXPECT_EQ(eval("0.1::float8::numeric(10,3)"), "0.100");
  EXPECT_EQ(errorOf("'abc'::integer"), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(errorOf("3000000000::integer"), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(errorOf("1000::numeric(3,0)"), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(errorOf("date '2024-01-01'::integer"), SqlState::kCannotCoerce);
  EXPECT_EQ(errorOf("1::nosuchtype"), SqlState::kUndefinedObject);
}

TEST(ExpressionEvaluatorTest, DatesMoveByDays) {
  EXPECT_EQ(eval("date '2024-02-28' + 2"), "2024-03-01");
  EXPECT_EQ(eval("date '2024-03-01' - 1"), "2024-02-29");
  EXPECT_EQ(eval("date '2024-03-01' - date '2023-03-01'"), "366");
  EXPECT_EQ(eval("7 + date '1999-12-31'"), "2000-01-07");
}

TEST(ExpressionEvaluatorTest, StringFunctions) {
  EXPECT_EQ(eval("upper('shoal')"), "SHOAL");
  EXPECT_EQ(eval("lower('SHOAL')"), "shoal");
  EXPECT_EQ(eval("length('héllo')"), "5");
  EXPECT_EQ(eval("'x' || 1"), "x1");
  EXPECT_EQ(errorOf("1 || 2"), SqlState::kUndefinedFunction);
  EXPECT_EQ(errorOf("nosuchfunction(1)"), SqlState::kUndefinedFunction);
}

TEST(ExpressionEvaluatorTest, LongStringsSurviveVectorMoves) {
  std::string longText(100, 'z');
  EXPECT_EQ(eval("'" + longText + "' || '!'"), longText + "!");
}

TEST(ExpressionEvaluatorTest, KernelsWorkOnWholeVectorsWithNulls) {
  // a + b over 3000 rows (more than one vector's worth) with every third row NULL.
  constexpr size_t kRows = 3000;
  Vector a(LogicalType::integer(), kRows);
  Vector b(LogicalType::integer(), kRows);
  for (size_t row = 0; row < kRows; ++row) {
    a.data<int32_t>()[row] = static_cast<int32_t>(row);
    b.data<int32_t>()[row] = 1;
    a.setNull(row, row % 3 == 0);
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(a));
  columns.push_back(std::move(b));
  Chunk input(std::move(columns), kRows);
  std::vector<engine::ExpressionPtr> arguments;
  arguments.push_back(std::make_unique<engine::ColumnRefExpression>(0, LogicalType::integer(), "a"));
  arguments.push_back(std::make_unique<engine::ColumnRefExpression>(1, LogicalType::integer(), "b"));
  engine::FunctionExpression sum(engine::ScalarFunction::kAdd, std::move(arguments), LogicalType::integer());
  Vector result = engine::ExpressionEvaluator().evaluate(sum, input);
  ASSERT_EQ(result.size(), kRows);
  for (size_t row = 0; row < kRows; ++row) {
    ASSERT_EQ(result.isNull(row), row % 3 == 0) << row;
    if (row % 3 != 0) {
      ASSERT_EQ(result.data<int32_t>()[row], static_cast<int32_t>(row + 1));
    }
  }
}

TEST(ExpressionEvaluatorTest, ParametersCarryTheirValues) {
  NoTables catalog;
  auto script = sql::ParsedScript::parse("SELECT $1 + 1, $2 || 'x'");
  auto bound = sql::Binder(catalog).bind(script, 0, {LogicalType::unknown(), LogicalType::unknown()});
  ASSERT_EQ(bound.parameterTypes.size(), 2u);
  EXPECT_EQ(bound.parameterTypes[0], LogicalType::integer());
  EXPECT_EQ(bound.parameterTypes[1], LogicalType::text());
  std::vector<Value> parameters = {Value::integer(41), Value::varchar("y")};
  engine::ExpressionEvaluator evaluator(parameters);
  sql::BoundSelect select = lowered(bound);
  EXPECT_EQ(evaluator.evaluate(*select.projections[0], Chunk(1)).getValue(0).toString(), "42");
  EXPECT_EQ(evaluator.evaluate(*select.projections[1], Chunk(1)).getValue(0).toString(), "yx");
}

}  // namespace
}  // namespace shoal
