// Filters as the pipelines run them: conditions evaluated over whole chunks,
// cheap ones first, the survivors copied once, and conditions that can fail
// seeing only the rows that passed the ones written before them.
#include "engine/pipeline/filter_operator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/status.h"
#include "engine/expression/comparison.h"
#include "engine/expression/expression_evaluator.h"

namespace shoal::engine {
namespace {

constexpr size_t kRows = 3000;  // more than one vector's worth

ExpressionPtr column(size_t index, LogicalType type) {
  return std::make_unique<ColumnRefExpression>(index, type, "c" + std::to_string(index));
}

ExpressionPtr constant(Value value) {
  return std::make_unique<ConstantExpression>(std::move(value));
}

ExpressionPtr call(ScalarFunction function, ExpressionPtr a, ExpressionPtr b, LogicalType type) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  arguments.push_back(std::move(b));
  return std::make_unique<FunctionExpression>(function, std::move(arguments), type);
}

ExpressionPtr compare(ScalarFunction function, ExpressionPtr a, ExpressionPtr b) {
  return call(function, std::move(a), std::move(b), LogicalType::boolean());
}

/// Column 0: row number; column 1: row % 7 (0 every seventh row), NULL every eleventh row;
/// column 2: "row<n>" as text.
Chunk numberedRows() {
  Vector id(LogicalType::integer(), kRows);
  Vector divisor(LogicalType::integer(), kRows);
  Vector name(LogicalType::text(), kRows);
  for (size_t row = 0; row < kRows; ++row) {
    id.data<int32_t>()[row] = static_cast<int32_t>(row);
    divisor.data<int32_t>()[row] = static_cast<int32_t>(row % 7);
    divisor.setNull(row, row % 11 == 0);
    name.setString(row, "row" + std::to_string(row));
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(id));
  columns.push_back(std::move(divisor));
  columns.push_back(std::move(name));
  return Chunk(std::move(columns), kRows);
}

TEST(FilterOperatorTest, AFallibleConditionSeesOnlyRowsThatPassedTheOnesBeforeIt) {
  // c1 <> 0 AND 100 / c1 > 20 AND c0 < 2000: the division must never see c1 = 0, even though
  // the cheap c0 < 2000 written after it may run first.
  std::vector<ExpressionPtr> conditions;
  conditions.push_back(
      compare(ScalarFunction::kNotEqual, column(1, LogicalType::integer()), constant(Value::integer(0))));
  conditions.push_back(compare(ScalarFunction::kGreater,
                               call(ScalarFunction::kDivide, constant(Value::integer(100)),
                                    column(1, LogicalType::integer()), LogicalType::integer()),
                               constant(Value::integer(20))));
  conditions.push_back(
      compare(ScalarFunction::kLess, column(0, LogicalType::integer()), constant(Value::integer(2000))));
  FilterOperator filter(std::move(conditions));
  Chunk chunk = numberedRows();
  filter.execute(chunk);
  std::vector<int32_t> expected;
  for (int32_t row = 0; row < 2000; ++row) {
    if (row % 11 != 0 && row % 7 != 0 && 100 / (row % 7) > 20) expected.push_back(row);
  }
  ASSERT_EQ(chunk.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(chunk.column(0).data<int32_t>()[i], expected[i]) << i;
  EXPECT_EQ(chunk.column(2).data<StringRef>()[0].view(), "row" + std::to_string(expected[0]));

  // Without the guard the division fails, as in PostgreSQL.
  std::vector<ExpressionPtr> unguarded;
  unguarded.push_back(compare(ScalarFunction::kGreater,
                              call(ScalarFunction::kDivide, constant(Value::integer(100)),
                                   column(1, LogicalType::integer()), LogicalType::integer()),
                              constant(Value::integer(20))));
  Chunk again = numberedRows();
  EXPECT_THROW(FilterOperator(std::move(unguarded)).execute(again), ShoalError);
}

TEST(FilterOperatorTest, NarrowingOnlyTheColumnsReadReportsThePassingRowNumbers) {
  std::vector<ExpressionPtr> conditions;
  conditions.push_back(
      compare(ScalarFunction::kGreaterEqual, column(0, LogicalType::integer()), constant(Value::integer(2990))));
  conditions.push_back(
      compare(ScalarFunction::kNotEqual, column(0, LogicalType::integer()), constant(Value::integer(2995))));
  FilterOperator filter(std::move(conditions));
  EXPECT_EQ(filter.columnsRead(), std::vector<bool>({true}));
  Chunk chunk = numberedRows();
  std::vector<uint32_t> rows = filter.narrowColumnsRead(chunk);
  EXPECT_EQ(rows, std::vector<uint32_t>({2990, 2991, 2992, 2993, 2994, 2996, 2997, 2998, 2999}));
  ASSERT_EQ(chunk.size(), rows.size());
  EXPECT_EQ(chunk.column(0).data<int32_t>()[5], 2996);
  EXPECT_EQ(chunk.column(2).size(), kRows);  // not read by the filter: left for the scan to fill
}

TEST(FilterOperatorTest, ComparisonsWithAConstantMatchComparisonsOfTwoVectors) {
  Chunk chunk = numberedRows();
  const Vector& divisor = chunk.column(1);
  for (auto function : {ScalarFunction::kEqual, ScalarFunction::kNotEqual, ScalarFunction::kLess,
                        ScalarFunction::kLessEqual, ScalarFunction::kGreater, ScalarFunction::kGreaterEqual}) {
    Vector three(LogicalType::integer(), kRows);
    std::fill(three.data<int32_t>(), three.data<int32_t>() + kRows, 3);
    Vector one(LogicalType::integer(), 1);
    one.data<int32_t>()[0] = 3;
    Vector expected = evaluateComparison(function, divisor, three);
    Vector got = evaluateComparisonWithConstant(function, divisor, one);
    for (size_t row = 0; row < kRows; ++row) {
      ASSERT_EQ(got.isNull(row), expected.isNull(row)) << scalarFunctionName(function) << " row " << row;
      if (!got.isNull(row)) {
        ASSERT_EQ(got.data<uint8_t>()[row], expected.data<uint8_t>()[row]) << row;
      }
    }
  }
  // A NULL constant makes every row NULL; NaN equals NaN and sorts above every number.
  Vector nullConstant(LogicalType::integer(), 1);
  nullConstant.setNull(0, true);
  Vector none = evaluateComparisonWithConstant(ScalarFunction::kEqual, divisor, nullConstant);
  for (size_t row = 0; row < kRows; ++row) ASSERT_TRUE(none.isNull(row));
  Vector doubles(LogicalType::doublePrecision(), 2);
  doubles.data<double>()[0] = std::nan("");
  doubles.data<double>()[1] = 1e300;
  Vector nan(LogicalType::doublePrecision(), 1);
  nan.data<double>()[0] = std::nan("");
  Vector equal = evaluateComparisonWithConstant(ScalarFunction::kEqual, doubles, nan);
  Vector below = evaluateComparisonWithConstant(ScalarFunction::kLess, doubles, nan);
  EXPECT_EQ(equal.data<uint8_t>()[0], 1);
  EXPECT_EQ(below.data<uint8_t>()[1], 1);
}

TEST(FilterOperatorTest, StringColumnsCompareWithConstantsThroughTheEvaluator) {
  // c2 = 'row42' OR 'row2999' <= c2: the constant on either side.
  Chunk chunk = numberedRows();
  auto condition =
      call(ScalarFunction::kOr,
           compare(ScalarFunction::kEqual, column(2, LogicalType::text()), constant(Value::varchar("row42"))),
           compare(ScalarFunction::kLessEqual, constant(Value::varchar("row2999")), column(2, LogicalType::text())),
           LogicalType::boolean());
  std::vector<ExpressionPtr> conditions;
  conditions.push_back(std::move(condition));
  FilterOperator(std::move(conditions)).execute(chunk);
  // 'row2999' <= 'row3', 'row30'...: every name from row3.. that sorts at or after 'row2999'.
  size_t expected = 0;
  for (size_t row = 0; row < kRows; ++row) {
    std::string name = "row" + std::to_string(row);
    expected += name == "row42" || std::string("row2999") <= name;
  }
  EXPECT_EQ(chunk.size(), expected);
}

}  // namespace
}  // namespace shoal::engine
