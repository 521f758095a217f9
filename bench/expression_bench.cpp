// Expression evaluation throughput: the vectorized kernels every query runs.
// Run with `make bench`; prints Google Benchmark's table, or JSON with
// --benchmark_format=json.
#include <benchmark/benchmark.h>

#include "engine/expression/expression_evaluator.h"
#include "engine/expression/timestamp_functions.h"
#include "engine/types/array_value.h"
#include "engine/types/decimal.h"

namespace {

using namespace shoal::engine;

constexpr size_t kRows = kVectorSize;

/// A chunk with an INTEGER column, a DECIMAL(15,2) column, a TEXT column and a TIMESTAMPTZ column (instants
/// over ten years, so that time zone lookups cross DST transitions).
Chunk makeInput() {
  Vector integers(LogicalType::integer(), kRows);
  Vector prices(LogicalType::decimal(15, 2), kRows);
  Vector names(LogicalType::text(), kRows);
  Vector instants(LogicalType::timestampTz(), kRows);
  constexpr int64_t k2015 = 1'420'070'400'000'000;
  for (size_t row = 0; row < kRows; ++row) {
    integers.data<int32_t>()[row] = static_cast<int32_t>(row * 7 % 1000);
    prices.data<int64_t>()[row] = static_cast<int64_t>(row * 1234 + 99);
    names.setString(row, row % 2 ? "Customer#000000001" : "short");
    instants.data<int64_t>()[row] = k2015 + static_cast<int64_t>(row * 7919 % kRows) * 154'000'000'000;
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(integers));
  columns.push_back(std::move(prices));
  columns.push_back(std::move(names));
  columns.push_back(std::move(instants));
  return Chunk(std::move(columns), kRows);
}

/// A timestamp function of the TIMESTAMPTZ column, in New York time (timestamp_functions.h).
ExpressionPtr timestampFunction(ScalarFunction function, LogicalType type, TimestampField field) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::make_unique<ColumnRefExpression>(3, LogicalType::timestampTz(), "at"));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(static_cast<int32_t>(field))));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::varchar("America/New_York")));
  return std::make_unique<FunctionExpression>(function, std::move(arguments), type);
}

ExpressionPtr column(size_t index, LogicalType type) {
  return std::make_unique<ColumnRefExpression>(index, type, "c" + std::to_string(index));
}

ExpressionPtr binary(ScalarFunction function, LogicalType type, ExpressionPtr a, ExpressionPtr b) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  arguments.push_back(std::move(b));
  return std::make_unique<FunctionExpression>(function, std::move(arguments), type);
}

void runExpression(benchmark::State& state, const Expression& expression) {
  Chunk input = makeInput();
  ExpressionEvaluator evaluator;
  for (auto _ : state) {
    Vector result = evaluator.evaluate(expression, input);
    benchmark::DoNotOptimize(result.data<std::byte>());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRows));
}

void BM_IntegerAdd(benchmark::State& state) {
  auto expression = binary(ScalarFunction::kAdd, LogicalType::integer(), column(0, LogicalType::integer()),
                           std::make_unique<ConstantExpression>(Value::integer(42)));
  runExpression(state, *expression);
}

void BM_DecimalMultiply(benchmark::State& state) {
  // price * price: DECIMAL(15,2) * DECIMAL(15,2) -> DECIMAL(30,4), the int128 path.
  auto expression = binary(ScalarFunction::kMultiply, LogicalType::decimal(30, 4),
                           column(1, LogicalType::decimal(15, 2)), column(1, LogicalType::decimal(15, 2)));
  runExpression(state, *expression);
}

void BM_IntegerCompare(benchmark::State& state) {
  auto expression = binary(ScalarFunction::kLess, LogicalType::boolean(), column(0, LogicalType::integer()),
                           std::make_unique<ConstantExpression>(Value::integer(500)));
  runExpression(state, *expression);
}

void BM_StringEquality(benchmark::State& state) {
  // Most rows differ in length or prefix, so the 4-byte prefix decides without the heap.
  auto expression = binary(ScalarFunction::kEqual, LogicalType::boolean(), column(2, LogicalType::text()),
                           std::make_unique<ConstantExpression>(Value::varchar("Customer#000000002")));
  runExpression(state, *expression);
}

void BM_LikeContains(benchmark::State& state) {
  // TPC-H's '%special%requests%' shape: substring searches, compiled once per vector.
  auto expression = binary(ScalarFunction::kLike, LogicalType::boolean(), column(2, LogicalType::text()),
                           std::make_unique<ConstantExpression>(Value::varchar("%mer#%1")));
  runExpression(state, *expression);
}

void BM_RegexMatch(benchmark::State& state) {
  // psql's \dt pattern shape: an anchored alternation, compiled by RE2 once per vector.
  auto expression = binary(ScalarFunction::kRegexMatch, LogicalType::boolean(), column(2, LogicalType::text()),
                           std::make_unique<ConstantExpression>(Value::varchar("^(Cust|sh)[a-z]+#?0*1$")));
  runExpression(state, *expression);
}

ExpressionPtr call(ScalarFunction function, LogicalType type, std::vector<ExpressionPtr> arguments) {
  return std::make_unique<FunctionExpression>(function, std::move(arguments), type);
}

ExpressionPtr text(std::string value) {
  return std::make_unique<ConstantExpression>(Value::varchar(std::move(value)));
}

// name ILIKE '%MER#%1': LIKE over both sides in lower case, as PostgreSQL computes it.
void BM_ILikeContains(benchmark::State& state) {
  auto expression = binary(ScalarFunction::kLike, LogicalType::boolean(),
                           call(ScalarFunction::kLower, LogicalType::text(),
                                [] {
                                  std::vector<ExpressionPtr> arguments;
                                  arguments.push_back(column(2, LogicalType::text()));
                                  return arguments;
                                }()),
                           text("%mer#%1"));
  runExpression(state, *expression);
}

// regexp_replace(name, '[0-9]+', '#', 'g'): every run of digits replaced, the ETL clean-up shape.
void BM_RegexReplaceGlobal(benchmark::State& state) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(column(2, LogicalType::text()));
  arguments.push_back(text("[0-9]+"));
  arguments.push_back(text("#"));
  arguments.push_back(text("g"));
  auto expression = call(ScalarFunction::kRegexReplace, LogicalType::text(), std::move(arguments));
  runExpression(state, *expression);
}

// split_part(name, '#', 2) and lpad(name, 20, '*'): the cutting and padding of codes.
void BM_SplitPart(benchmark::State& state) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(column(2, LogicalType::text()));
  arguments.push_back(text("#"));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(2)));
  auto expression = call(ScalarFunction::kSplitPart, LogicalType::text(), std::move(arguments));
  runExpression(state, *expression);
}

void BM_LeftPad(benchmark::State& state) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(column(2, LogicalType::text()));
  arguments.push_back(std::make_unique<ConstantExpression>(Value::integer(20)));
  arguments.push_back(text("*"));
  auto expression = call(ScalarFunction::kLeftPad, LogicalType::text(), std::move(arguments));
  runExpression(state, *expression);
}

// to_char(at, 'YYYY-MM-DD HH24:MI') in New York time: a dashboard's bucket label.
void BM_ToCharTimestampTz(benchmark::State& state) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(column(3, LogicalType::timestampTz()));
  arguments.push_back(text("YYYY-MM-DD HH24:MI"));
  arguments.push_back(text("America/New_York"));
  auto expression = call(ScalarFunction::kDateTimeToChar, LogicalType::text(), std::move(arguments));
  runExpression(state, *expression);
}

// to_char(price, 'FM999,999,990.00'): a report's amount column (numeric(15,2)).
void BM_ToCharNumeric(benchmark::State& state) {
  auto expression = binary(ScalarFunction::kNumberToChar, LogicalType::text(), column(1, LogicalType::decimal(15, 2)),
                           text("FM999,999,990.00"));
  runExpression(state, *expression);
}

// x IN (20,000 constants): one hash set probe a row (the set is built once, on the first chunk).
void BM_InListOf20000(benchmark::State& state) {
  std::vector<Value> constants;
  for (int32_t i = 0; i < 20000; ++i) constants.push_back(Value::integer(i * 2));
  auto expression = binary(
      ScalarFunction::kInSet, LogicalType::boolean(), column(0, LogicalType::integer()),
      std::make_unique<ConstantExpression>(makeArrayValue(constants, LogicalType::array(LogicalType::integer()))));
  runExpression(state, *expression);
}

// date_trunc('day', at) of a timestamptz in the session's zone: the GROUP BY of every dashboard.
void BM_DateTruncDayInZone(benchmark::State& state) {
  auto expression =
      timestampFunction(ScalarFunction::kTimestampTrunc, LogicalType::timestampTz(), TimestampField::kDay);
  runExpression(state, *expression);
}

// EXTRACT(hour FROM at) in the session's zone.
void BM_ExtractHourInZone(benchmark::State& state) {
  auto expression =
      timestampFunction(ScalarFunction::kTimestampPart, LogicalType::decimal(20, 6), TimestampField::kHour);
  runExpression(state, *expression);
}

// round(price, 1): numeric rounding half away from zero.
void BM_RoundNumeric(benchmark::State& state) {
  auto expression = binary(ScalarFunction::kRound, LogicalType::decimal(15, 1), column(1, LogicalType::decimal(15, 2)),
                           std::make_unique<ConstantExpression>(Value::integer(1)));
  runExpression(state, *expression);
}

BENCHMARK(BM_IntegerAdd);
BENCHMARK(BM_DateTruncDayInZone);
BENCHMARK(BM_ExtractHourInZone);
BENCHMARK(BM_RoundNumeric);
BENCHMARK(BM_DecimalMultiply);
BENCHMARK(BM_IntegerCompare);
BENCHMARK(BM_StringEquality);
BENCHMARK(BM_LikeContains);
BENCHMARK(BM_RegexMatch);
BENCHMARK(BM_ILikeContains);
BENCHMARK(BM_RegexReplaceGlobal);
BENCHMARK(BM_SplitPart);
BENCHMARK(BM_LeftPad);
BENCHMARK(BM_InListOf20000);
BENCHMARK(BM_ToCharNumeric);
BENCHMARK(BM_ToCharTimestampTz);

}  // namespace

BENCHMARK_MAIN();
