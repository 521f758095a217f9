// ORDER BY on the dispatcher: several threads' rows come out in PostgreSQL's
// order (NULLs last ascending, first descending, NaN above numbers), top-N and OFFSET.
#include "engine/sort/sort.h"

#include <gtest/gtest.h>

#include <random>

#include "engine/pipeline/collect_sink.h"
#include "scheduler/pipeline_runner.h"

namespace shoal::engine {
namespace {

struct Row {
  std::optional<int64_t> number;
  std::string text;
  int64_t id;
};

std::vector<Row> randomRows(size_t count) {
  std::mt19937 random(3);
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    std::optional<int64_t> number;
    if (random() % 10 != 0) number = static_cast<int64_t>(random() % 100);
    rows.push_back({number, "s" + std::to_string(random() % 37), static_cast<int64_t>(i)});
  }
  return rows;
}

std::vector<Chunk> toChunks(const std::vector<Row>& rows) {
  std::vector<Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += 500) {
    size_t count = std::min<size_t>(500, rows.size() - begin);
    Vector numbers(LogicalType::bigInt(), count);
    Vector texts(LogicalType::text(), count);
    Vector ids(LogicalType::bigInt(), count);
    for (size_t i = 0; i < count; ++i) {
      const Row& row = rows[begin + i];
      numbers.setValue(i, row.number ? Value::bigInt(*row.number) : Value::null(LogicalType::bigInt()));
      texts.setValue(i, Value::varchar(row.text));
      ids.setValue(i, Value::bigInt(row.id));
    }
    Chunk chunk(count);
    chunk.addColumn(std::move(numbers));
    chunk.addColumn(std::move(texts));
    chunk.addColumn(std::move(ids));
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

std::vector<int64_t> sortedIds(const std::vector<Row>& rows, std::vector<SortColumn> keys, std::optional<int64_t> limit,
                               int64_t offset) {
  Sort sort(std::move(keys), limit, offset);
  scheduler::Dispatcher dispatcher(3, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  auto result = std::make_shared<CollectSink>();
  std::vector<Pipeline> pipelines(2);
  pipelines[0].source = std::make_shared<ChunkListSource>(toChunks(rows));
  pipelines[0].sink = sort.sink();
  pipelines[1].source = sort.source();
  pipelines[1].sink = result;
  pipelines[1].dependencies = {0};
  runner.start(std::move(pipelines))->wait();
  std::vector<int64_t> ids;
  for (auto& chunk : result->chunks()) {
    for (size_t row = 0; row < chunk.size(); ++row) ids.push_back(chunk.column(2).data<int64_t>()[row]);
  }
  return ids;
}

TEST(SortTest, RowsFromEveryThreadComeOutInPostgresOrder) {
  std::vector<Row> rows = randomRows(20000);
  // ORDER BY number DESC (NULLs first), text ASC, id
  std::vector<Row> expected = rows;
  std::stable_sort(expected.begin(), expected.end(), [](const Row& a, const Row& b) {
    if (a.number.has_value() != b.number.has_value()) return !a.number.has_value();
    if (a.number != b.number) return *a.number > *b.number;
    if (a.text != b.text) return a.text < b.text;
    return a.id < b.id;
  });
  std::vector<int64_t> expectedIds;
  for (const auto& row : expected) expectedIds.push_back(row.id);
  std::vector<SortColumn> keys = {{0, false, true}, {1, true, false}, {2, true, false}};
  EXPECT_EQ(sortedIds(rows, keys, std::nullopt, 0), expectedIds);
  // Top-N with an offset: ORDER BY ... LIMIT 25 OFFSET 10.
  std::vector<int64_t> window(expectedIds.begin() + 10, expectedIds.begin() + 35);
  EXPECT_EQ(sortedIds(rows, keys, 25, 10), window);
  EXPECT_TRUE(sortedIds(rows, keys, 5, 30000).empty());
}

TEST(SortTest, NullsGoLastAscendingUnlessToldOtherwise) {
  std::vector<Row> rows = {{3, "a", 0}, {std::nullopt, "b", 1}, {1, "c", 2}};
  EXPECT_EQ(sortedIds(rows, {{0, true, false}}, std::nullopt, 0), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(sortedIds(rows, {{0, true, true}}, std::nullopt, 0), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(sortedIds(rows, {{0, false, true}}, std::nullopt, 0), (std::vector<int64_t>{1, 0, 2}));
}

}  // namespace
}  // namespace shoal::engine
