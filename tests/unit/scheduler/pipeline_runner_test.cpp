// Pipelines on the dispatcher: rows flow from a source through a filter and a
// projection into a sink on every thread, and a pipeline that depends on
// another reads its finished result.
#include "scheduler/pipeline_runner.h"

#include <gtest/gtest.h>

#include "engine/pipeline/collect_sink.h"
#include "engine/pipeline/filter_operator.h"
#include "engine/sort/sort.h"

namespace shoal::scheduler {
namespace {

using engine::Chunk;
using engine::ExpressionPtr;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;
using engine::Vector;

ExpressionPtr column(size_t index) {
  return std::make_unique<engine::ColumnRefExpression>(index, LogicalType::bigInt(), "a");
}
ExpressionPtr constant(int64_t value) {
  return std::make_unique<engine::ConstantExpression>(Value::bigInt(value));
}
ExpressionPtr call(ScalarFunction function, LogicalType type, ExpressionPtr a, ExpressionPtr b) {
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  arguments.push_back(std::move(b));
  return std::make_unique<engine::FunctionExpression>(function, std::move(arguments), type);
}

/// Chunks of 1000 BIGINT rows holding 0 .. chunks*1000-1, every 7th NULL.
std::vector<Chunk> numbers(size_t chunks) {
  std::vector<Chunk> result;
  for (size_t c = 0; c < chunks; ++c) {
    Vector values(LogicalType::bigInt(), 1000);
    for (size_t row = 0; row < 1000; ++row) {
      int64_t value = static_cast<int64_t>(c * 1000 + row);
      values.data<int64_t>()[row] = value;
      values.setNull(row, value % 7 == 0);
    }
    Chunk chunk(1000);
    chunk.addColumn(std::move(values));
    result.push_back(std::move(chunk));
  }
  return result;
}

int64_t sumOf(std::vector<Chunk>& chunks) {
  int64_t sum = 0;
  for (auto& chunk : chunks) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      if (!chunk.column(0).isNull(row)) sum += chunk.column(0).data<int64_t>()[row];
    }
  }
  return sum;
}

TEST(PipelineRunnerTest, RowsFlowThroughFilterAndProjectionOnEveryThread) {
  Dispatcher dispatcher(2, NumaTopology::fake(2));
  PipelineRunner runner(dispatcher);
  auto sink = std::make_shared<engine::CollectSink>();
  engine::Pipeline pipeline;
  pipeline.source = std::make_shared<engine::ChunkListSource>(numbers(200), 2);
  // WHERE a % 3 = 0, SELECT a * 2
  std::vector<ExpressionPtr> conditions;
  conditions.push_back(call(ScalarFunction::kEqual, LogicalType::boolean(),
                            call(ScalarFunction::kModulo, LogicalType::bigInt(), column(0), constant(3)), constant(0)));
  pipeline.operators.push_back(std::make_shared<engine::FilterOperator>(std::move(conditions)));
  std::vector<ExpressionPtr> projections;
  projections.push_back(call(ScalarFunction::kMultiply, LogicalType::bigInt(), column(0), constant(2)));
  pipeline.operators.push_back(std::make_shared<engine::ProjectionOperator>(std::move(projections)));
  pipeline.sink = sink;
  std::vector<engine::Pipeline> pipelines;
  pipelines.push_back(std::move(pipeline));
  runner.start(std::move(pipelines))->wait();

  int64_t expectedRows = 0;
  int64_t expectedSum = 0;
  for (int64_t value = 0; value < 200000; ++value) {
    if (value % 7 == 0 || value % 3 != 0) continue;  // NULL rows never pass the filter
    ++expectedRows;
    expectedSum += value * 2;
  }
  EXPECT_EQ(static_cast<int64_t>(sink->numRows()), expectedRows);
  EXPECT_EQ(sumOf(sink->chunks()), expectedSum);
}

/// A source over another pipeline's collected rows, known only once that pipeline is done.
class CollectedSource final : public engine::ChunkSource {
 public:
  explicit CollectedSource(std::shared_ptr<engine::CollectSink> input) : input_(std::move(input)) {}
  size_t numMorsels() const override { return input_->chunks().size(); }
  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    Chunk& chunk = input_->chunks()[morsel];
    consume(chunk);
  }

 private:
  std::shared_ptr<engine::CollectSink> input_;
};

TEST(PipelineRunnerTest, APipelineReadsTheResultOfTheOneItDependsOn) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  PipelineRunner runner(dispatcher);
  auto first = std::make_shared<engine::CollectSink>();
  auto second = std::make_shared<engine::CollectSink>();
  std::vector<engine::Pipeline> pipelines(2);
  pipelines[0].source = std::make_shared<CollectedSource>(first);
  pipelines[0].sink = second;
  pipelines[0].dependencies = {1};
  pipelines[1].source = std::make_shared<engine::ChunkListSource>(numbers(50));
  pipelines[1].sink = first;
  runner.start(std::move(pipelines))->wait();
  EXPECT_EQ(second->numRows(), 50000u);
  int64_t expected = 0;
  for (int64_t value = 0; value < 50000; ++value) expected += value % 7 == 0 ? 0 : value;
  EXPECT_EQ(sumOf(second->chunks()), expected);
}

TEST(PipelineRunnerTest, AnExpressionErrorEndsTheQueryWithItsSqlState) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  PipelineRunner runner(dispatcher);
  engine::Pipeline pipeline;
  pipeline.source = std::make_shared<engine::ChunkListSource>(numbers(20));
  std::vector<ExpressionPtr> projections;
  projections.push_back(call(ScalarFunction::kDivide, LogicalType::bigInt(), constant(1),
                             call(ScalarFunction::kSubtract, LogicalType::bigInt(), column(0), constant(4321))));
  pipeline.operators.push_back(std::make_shared<engine::ProjectionOperator>(std::move(projections)));
  pipeline.sink = std::make_shared<engine::CollectSink>();
  std::vector<engine::Pipeline> pipelines;
  pipelines.push_back(std::move(pipeline));
  try {
    runner.start(std::move(pipelines))->wait();
    FAIL() << "1 / 0 must fail";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDivisionByZero);
  }
}

}  // namespace
}  // namespace shoal::scheduler

namespace shoal::scheduler {
namespace {

/// Morsels that each make `chunksPerMorsel` chunks of 1000 rows, counting the chunks it was asked for.
class EndlessSource final : public engine::ChunkSource {
 public:
  EndlessSource(size_t morsels, size_t chunksPerMorsel) : morsels_(morsels), chunksPerMorsel_(chunksPerMorsel) {}
  size_t numMorsels() const override { return morsels_; }
  void produce(size_t, const std::function<void(Chunk&)>& consume) const override {
    for (size_t i = 0; i < chunksPerMorsel_; ++i) {
      made_.fetch_add(1);
      Chunk chunk = std::move(numbers(1)[0]);
      consume(chunk);
    }
  }
  size_t made() const { return made_.load(); }

 private:
  size_t morsels_;
  size_t chunksPerMorsel_;
  mutable std::atomic<size_t> made_{0};
};

TEST(PipelineRunnerTest, ALimitThatHoldsEnoughStopsItsProducers) {
  // 64 morsels of 10,000 chunks each would be 640 million rows; LIMIT 3 OFFSET 2 needs five.
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  PipelineRunner runner(dispatcher);
  auto source = std::make_shared<EndlessSource>(64, 10000);
  engine::Limit limit(3, 2);
  auto result = std::make_shared<engine::CollectSink>();
  std::vector<engine::Pipeline> pipelines(2);
  pipelines[0].source = limit.source();
  pipelines[0].sink = result;
  pipelines[0].dependencies = {1};
  pipelines[1].source = source;
  pipelines[1].sink = limit.sink();
  runner.start(std::move(pipelines))->wait();
  EXPECT_EQ(result->numRows(), 3u);
  // Each thread may have made a chunk or two before it saw the limit held.
  EXPECT_LE(source->made(), 4u);
}

}  // namespace
}  // namespace shoal::scheduler
