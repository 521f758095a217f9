// Expression evaluation throughput: the vectorized kernels every query runs.
// Run with `make bench`; prints Google Benchmark's table, or JSON with
// --benchmark_format=json.
#include <benchmark/benchmark.h>

#include "engine/expression/expression_evaluator.h"
#include "engine/types/decimal.h"

namespace {

using namespace shoal::engine;

constexpr size_t kRows = kVectorSize;

/// A chunk with an INTEGER column, a DECIMAL(15,2) column and a TEXT column.
Chunk makeInput() {
  Vector integers(LogicalType::integer(), kRows);
  Vector prices(LogicalType::decimal(15, 2), kRows);
  Vector names(LogicalType::text(), kRows);
  for (size_t row = 0; row < kRows; ++row) {
    integers.data<int32_t>()[row] = static_cast<int32_t>(row * 7 % 1000);
    prices.data<int64_t>()[row] = static_cast<int64_t>(row * 1234 + 99);
    names.setString(row, row % 2 ? "Customer#000000001" : "short");
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(integers));
  columns.push_back(std::move(prices));
  columns.push_back(std::move(names));
  return Chunk(std::move(columns), kRows);
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

BENCHMARK(BM_IntegerAdd);
BENCHMARK(BM_DecimalMultiply);
BENCHMARK(BM_IntegerCompare);
BENCHMARK(BM_StringEquality);
BENCHMARK(BM_LikeContains);
BENCHMARK(BM_RegexMatch);

}  // namespace

BENCHMARK_MAIN();
