// GROUP BY on the dispatcher: thread-local pre-aggregation, partitioned merge,
// every aggregate (DISTINCT too) equal to a plain reference computation.
#include "engine/aggregate/hash_aggregation.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "engine/pipeline/collect_sink.h"
#include "scheduler/pipeline_runner.h"

namespace shoal::engine {
namespace {

struct Row {
  std::optional<int32_t> key;
  std::optional<int64_t> amount;
  std::string label;
};

std::vector<Chunk> toChunks(const std::vector<Row>& rows) {
  std::vector<Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += 1000) {
    size_t count = std::min<size_t>(1000, rows.size() - begin);
    Vector keys(LogicalType::integer(), count);
    Vector amounts(LogicalType::bigInt(), count);
    Vector labels(LogicalType::text(), count);
    for (size_t i = 0; i < count; ++i) {
      const Row& row = rows[begin + i];
      keys.setValue(i, row.key ? Value::integer(*row.key) : Value::null(LogicalType::integer()));
      amounts.setValue(i, row.amount ? Value::bigInt(*row.amount) : Value::null(LogicalType::bigInt()));
      labels.setValue(i, Value::varchar(row.label));
    }
    Chunk chunk(count);
    chunk.addColumn(std::move(keys));
    chunk.addColumn(std::move(amounts));
    chunk.addColumn(std::move(labels));
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

/// Runs SELECT key, count(*), count(amount), sum(amount), min(label), max(label), count(DISTINCT amount),
/// avg(amount) ... GROUP BY key (or without keys) over `rows` on `threads` threads.
std::vector<std::vector<Value>> aggregate(const std::vector<Row>& rows, bool grouped, uint32_t threads = 2) {
  std::vector<GroupedAggregate> aggregates = {
      {AggregateFunction::kCountStar, false, std::nullopt, LogicalType::bigInt(), LogicalType::bigInt()},
      {AggregateFunction::kCount, false, 1, LogicalType::bigInt(), LogicalType::bigInt()},
      {AggregateFunction::kSum, false, 1, LogicalType::bigInt(),
       aggregateResultType(AggregateFunction::kSum, LogicalType::bigInt())},
      {AggregateFunction::kMin, false, 2, LogicalType::text(), LogicalType::text()},
      {AggregateFunction::kMax, false, 2, LogicalType::text(), LogicalType::text()},
      {AggregateFunction::kCount, true, 1, LogicalType::bigInt(), LogicalType::bigInt()},
      {AggregateFunction::kAvg, false, 1, LogicalType::bigInt(),
       aggregateResultType(AggregateFunction::kAvg, LogicalType::bigInt())},
  };
  std::vector<LogicalType> keys;
  if (grouped) keys.push_back(LogicalType::integer());
  HashAggregation aggregation(keys, aggregates);
  // Without keys the input columns still sit where the aggregates expect them: drop no column.
  scheduler::Dispatcher dispatcher(threads, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  auto result = std::make_shared<CollectSink>();
  std::vector<Pipeline> pipelines(2);
  pipelines[0].source = std::make_shared<ChunkListSource>(toChunks(rows));
  pipelines[0].sink = aggregation.sink();
  pipelines[1].source = aggregation.source();
  pipelines[1].sink = result;
  pipelines[1].dependencies = {0};
  runner.start(std::move(pipelines))->wait();
  std::vector<std::vector<Value>> output;
  for (auto& chunk : result->chunks()) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      std::vector<Value> values;
      for (size_t column = 0; column < chunk.numColumns(); ++column)
        values.push_back(chunk.column(column).getValue(row));
      output.push_back(std::move(values));
    }
  }
  return output;
}

/// `rows` grouped by key on `threads` threads: every group's aggregates equal a plain computation's.
void expectPlainComputation(const std::vector<Row>& rows, uint32_t threads) {
  struct Expected {
    int64_t rows = 0, count = 0, sum = 0;
    std::string min, max;
    std::set<int64_t> distinct;
  };
  std::map<std::optional<int32_t>, Expected> expected;
  for (const auto& row : rows) {
    auto& e = expected[row.key];
    if (e.rows == 0) e.min = e.max = row.label;
    ++e.rows;
    e.min = std::min(e.min, row.label);
    e.max = std::max(e.max, row.label);
    if (row.amount) {
      ++e.count;
      e.sum += *row.amount;
      e.distinct.insert(*row.amount);
    }
  }
  auto output = aggregate(rows, true, threads);
  ASSERT_EQ(output.size(), expected.size());
  for (const auto& values : output) {
    std::optional<int32_t> key = values[0].isNull() ? std::nullopt : std::optional<int32_t>(values[0].asInt32());
    ASSERT_TRUE(expected.contains(key));
    const auto& e = expected[key];
    EXPECT_EQ(values[1].asInt64(), e.rows);
    EXPECT_EQ(values[2].asInt64(), e.count);
    if (e.count == 0) {
      EXPECT_TRUE(values[3].isNull());
      EXPECT_TRUE(values[7].isNull());
    } else {
      EXPECT_EQ(static_cast<int64_t>(values[3].asDecimal()), e.sum);
    }
    EXPECT_EQ(values[4].asString(), e.min);
    EXPECT_EQ(values[5].asString(), e.max);
    EXPECT_EQ(values[6].asInt64(), static_cast<int64_t>(e.distinct.size()));
  }
}

std::vector<Row> randomRows(size_t count, int keys, const std::string& labelPrefix) {
  std::mt19937 random(7);
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    Row row;
    int key = static_cast<int>(random() % keys);
    if (key != 0) row.key = key;  // key 0 stands for NULL: one group of its own
    if (random() % 10 != 0) row.amount = static_cast<int64_t>(random() % 100) - 20;
    row.label = labelPrefix + std::to_string(random() % 500);
    rows.push_back(row);
  }
  return rows;
}

TEST(HashAggregationTest, GroupsMatchAPlainComputationOnManyThreads) {
  expectPlainComputation(randomRows(50000, 3000, "l"), 4);
}

TEST(HashAggregationTest, GroupsBeyondTheCacheHeldBackByPartitionMatchAPlainComputation) {
  // 120k groups of 250-byte rows outgrow the cache many times over: the sinks hold their input back and fold
  // it in partition by partition, long labels (kept outside the string handles) in the held chunks included.
  expectPlainComputation(randomRows(600000, 120000, "a label longer than twelve bytes "), 3);
}

TEST(HashAggregationTest, WithoutKeysThereIsOneRowEvenForNoInput) {
  auto empty = aggregate({}, false);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0][0].asInt64(), 0);  // count(*)
  EXPECT_EQ(empty[0][1].asInt64(), 0);  // count(amount)
  EXPECT_TRUE(empty[0][2].isNull());    // sum
  EXPECT_TRUE(empty[0][3].isNull());    // min
  EXPECT_TRUE(empty[0][6].isNull());    // avg
  // Grouped over no input: no rows.
  EXPECT_TRUE(aggregate({}, true).empty());
  std::vector<Row> rows = {{1, 10, "b"}, {2, std::nullopt, "a"}, {3, 20, "c"}};
  auto all = aggregate(rows, false, 2);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0][0].asInt64(), 3);
  EXPECT_EQ(all[0][1].asInt64(), 2);
  EXPECT_EQ(all[0][6].toString(), "15.0000000000000000");
}

TEST(HashAggregationTest, ASumBeyondItsTypeFailsWith22003) {
  std::vector<GroupedAggregate> aggregates = {
      {AggregateFunction::kSum, false, 0, LogicalType::decimal(38, 0), LogicalType::decimal(38, 0)}};
  HashAggregation aggregation({}, aggregates);
  std::vector<Chunk> chunks;
  for (int c = 0; c < 4; ++c) {
    Vector values(LogicalType::decimal(38, 0), 1000);
    for (size_t row = 0; row < 1000; ++row)
      values.setValue(row, Value::decimal(LogicalType::decimal(38, 0), engine::int128_t{1} << 120));
    Chunk chunk(1000);
    chunk.addColumn(std::move(values));
    chunks.push_back(std::move(chunk));
  }
  scheduler::Dispatcher dispatcher(2, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  std::vector<Pipeline> pipelines(2);
  pipelines[0].source = std::make_shared<ChunkListSource>(std::move(chunks));
  pipelines[0].sink = aggregation.sink();
  pipelines[1].source = aggregation.source();
  pipelines[1].sink = std::make_shared<CollectSink>();
  pipelines[1].dependencies = {0};
  try {
    runner.start(std::move(pipelines))->wait();
    FAIL() << "the sum overflows";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kNumericValueOutOfRange);
  }
}

}  // namespace
}  // namespace shoal::engine
