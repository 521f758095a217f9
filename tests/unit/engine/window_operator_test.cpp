// Window aggregates on the dispatcher, checked against frames computed by definition: the segment tree and the
// incremental path give, for every row of random partitions, the sum, count and minimum of exactly the rows its
// ROWS, RANGE or GROUPS frame (with each EXCLUDE) holds.
#include "engine/window/window_operator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "engine/pipeline/collect_sink.h"
#include "scheduler/pipeline_runner.h"

namespace shoal::engine {
namespace {

struct Row {
  int64_t group;
  std::optional<int64_t> key;
  std::optional<int64_t> value;
  int64_t id;
};

std::vector<Row> randomRows(size_t count) {
  std::mt19937 random(11);
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    std::optional<int64_t> key;
    std::optional<int64_t> value;
    if (random() % 8 != 0) key = static_cast<int64_t>(random() % 25);
    if (random() % 6 != 0) value = static_cast<int64_t>(random() % 1000) - 500;
    rows.push_back({static_cast<int64_t>(random() % 7), key, value, static_cast<int64_t>(i)});
  }
  return rows;
}

/// Columns: group, key, value, id.
std::vector<Chunk> toChunks(const std::vector<Row>& rows) {
  std::vector<Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += 300) {
    const size_t count = std::min<size_t>(300, rows.size() - begin);
    std::vector<Vector> columns;
    for (int c = 0; c < 4; ++c) columns.emplace_back(LogicalType::bigInt(), count);
    for (size_t i = 0; i < count; ++i) {
      const Row& row = rows[begin + i];
      auto set = [&](int c, std::optional<int64_t> v) {
        columns[c].setValue(i, v ? Value::bigInt(*v) : Value::null(LogicalType::bigInt()));
      };
      set(0, row.group);
      set(1, row.key);
      set(2, row.value);
      set(3, row.id);
    }
    chunks.emplace_back(std::move(columns), count);
  }
  return chunks;
}

GroupedAggregate aggregateOf(AggregateFunction function) {
  return {function, false, 2, LogicalType::bigInt(), aggregateResultType(function, LogicalType::bigInt())};
}

/// Runs PARTITION BY group ORDER BY key [, id] with `calls`; returns each id's results.
std::map<int64_t, std::vector<Value>> run(const std::vector<Row>& rows, bool orderById,
                                          std::vector<WindowCallSpec> calls) {
  std::vector<SortColumn> order = {{1, true, false}};
  if (orderById) order.push_back({3, true, false});
  WindowOperator window({0}, order, calls);
  scheduler::Dispatcher dispatcher(3, NumaTopology::fake(1));
  scheduler::PipelineRunner runner(dispatcher);
  auto result = std::make_shared<CollectSink>();
  std::vector<Pipeline> pipelines(2);
  pipelines[0].source = std::make_shared<ChunkListSource>(toChunks(rows));
  pipelines[0].sink = window.sink();
  pipelines[1].source = window.source();
  pipelines[1].sink = result;
  pipelines[1].dependencies = {0};
  runner.start(std::move(pipelines))->wait();
  std::map<int64_t, std::vector<Value>> byId;
  for (auto& chunk : result->chunks()) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      std::vector<Value>& values = byId[chunk.column(3).data<int64_t>()[row]];
      for (size_t c = 4; c < chunk.numColumns(); ++c) values.push_back(chunk.column(c).getValue(row));
    }
  }
  return byId;
}

/// Which rows of `rows` the frame of row `current` holds, by definition, ordered by (key NULLS LAST, id).
std::vector<const Row*> frameByDefinition(const std::vector<Row>& rows, const Row& current, const WindowFrame& frame,
                                          bool orderById) {
  std::vector<const Row*> partition;
  for (const Row& row : rows) {
    if (row.group == current.group) partition.push_back(&row);
  }
  auto keyOf = [](const Row* row) { return row->key.value_or(INT64_MAX); };  // NULLs sort last
  std::sort(partition.begin(), partition.end(),
            [&](const Row* a, const Row* b) { return std::pair(keyOf(a), a->id) < std::pair(keyOf(b), b->id); });
  auto peers = [&](const Row* a, const Row* b) { return keyOf(a) == keyOf(b) && (!orderById || a->id == b->id); };
  const auto position = static_cast<int64_t>(
      std::find_if(partition.begin(), partition.end(), [&](const Row* r) { return r->id == current.id; }) -
      partition.begin());
  // Peer group numbers, for GROUPS.
  std::vector<int64_t> groupOf(partition.size());
  for (size_t i = 1; i < partition.size(); ++i)
    groupOf[i] = groupOf[i - 1] + (peers(partition[i - 1], partition[i]) ? 0 : 1);
  auto inFrameEnd = [&](const FrameEnd& end, bool isStart, int64_t i) {
    // Whether row i is on the inner side of this end of the frame.
    switch (end.bound) {
      case FrameBound::kUnboundedPreceding:
      case FrameBound::kUnboundedFollowing:
        return true;
      case FrameBound::kCurrentRow:
        if (frame.unit == FrameUnit::kRows) return isStart ? i >= position : i <= position;
        return isStart ? groupOf[i] >= groupOf[position] : groupOf[i] <= groupOf[position];
      case FrameBound::kPreceding:
      case FrameBound::kFollowing: {
        const int64_t offset = end.bound == FrameBound::kPreceding ? -end.count : end.count;
        const int64_t distance = frame.unit == FrameUnit::kRows ? i - position : groupOf[i] - groupOf[position];
        return isStart ? distance >= offset : distance <= offset;
      }
    }
    return false;
  };
  std::vector<const Row*> members;
  for (int64_t i = 0; i < static_cast<int64_t>(partition.size()); ++i) {
    if (!inFrameEnd(frame.start, true, i) || !inFrameEnd(frame.end, false, i)) continue;
    const bool isCurrent = i == position;
    const bool isPeer = peers(partition[i], partition[position]);
    if (frame.exclusion == FrameExclusion::kCurrentRow && isCurrent) continue;
    if (frame.exclusion == FrameExclusion::kGroup && isPeer) continue;
    if (frame.exclusion == FrameExclusion::kTies && isPeer && !isCurrent) continue;
    members.push_back(partition[i]);
  }
  return members;
}

void expectFramesMatch(const std::vector<Row>& rows, const WindowFrame& frame, bool orderById) {
  std::vector<WindowCallSpec> calls;
  for (AggregateFunction function :
       {AggregateFunction::kSum, AggregateFunction::kCount, AggregateFunction::kMin, AggregateFunction::kCountStar}) {
    WindowCallSpec call;
    call.function = WindowFunction::kAggregate;
    call.aggregate = aggregateOf(function);
    if (function == AggregateFunction::kCountStar) call.aggregate.argumentColumn.reset();
    call.resultType = call.aggregate.resultType;
    call.frame = frame;
    calls.push_back(call);
  }
  auto results = run(rows, orderById, calls);
  ASSERT_EQ(results.size(), rows.size());
  for (const Row& row : rows) {
    std::optional<int64_t> sum;
    std::optional<int64_t> minimum;
    int64_t count = 0;
    int64_t countStar = 0;
    for (const Row* member : frameByDefinition(rows, row, frame, orderById)) {
      ++countStar;
      if (!member->value) continue;
      ++count;
      sum = sum.value_or(0) + *member->value;
      minimum = std::min(minimum.value_or(INT64_MAX), *member->value);
    }
    const std::vector<Value>& got = results.at(row.id);
    SCOPED_TRACE("row " + std::to_string(row.id));
    EXPECT_EQ(got[0].isNull() ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(got[0].asDecimal())), sum);
    EXPECT_EQ(got[1].asInt64(), count);
    EXPECT_EQ(got[2].isNull() ? std::nullopt : std::optional<int64_t>(got[2].asInt64()), minimum);
    EXPECT_EQ(got[3].asInt64(), countStar);
  }
}

TEST(WindowOperatorTest, RowsFramesSumCountAndMinimumExactlyTheirRows) {
  const std::vector<Row> rows = randomRows(3000);
  for (auto [start, startCount, end, endCount] : std::vector<std::tuple<FrameBound, int64_t, FrameBound, int64_t>>{
           {FrameBound::kUnboundedPreceding, 0, FrameBound::kCurrentRow, 0},
           {FrameBound::kPreceding, 3, FrameBound::kFollowing, 2},
           {FrameBound::kFollowing, 1, FrameBound::kFollowing, 40},
           {FrameBound::kPreceding, 9, FrameBound::kPreceding, 4},
           {FrameBound::kCurrentRow, 0, FrameBound::kUnboundedFollowing, 0}}) {
    WindowFrame frame;
    frame.unit = FrameUnit::kRows;
    frame.start = {start, startCount, std::nullopt};
    frame.end = {end, endCount, std::nullopt};
    frame.exclusion = FrameExclusion::kCurrentRow;
    expectFramesMatch(rows, frame, true);
    frame.exclusion = FrameExclusion::kNoOthers;
    expectFramesMatch(rows, frame, true);
  }
}

TEST(WindowOperatorTest, RangeAndGroupsFramesSeePeersWithEveryExclusion) {
  const std::vector<Row> rows = randomRows(2000);
  for (FrameExclusion exclusion :
       {FrameExclusion::kNoOthers, FrameExclusion::kCurrentRow, FrameExclusion::kGroup, FrameExclusion::kTies}) {
    WindowFrame range;  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    range.exclusion = exclusion;
    expectFramesMatch(rows, range, false);
    WindowFrame groups;
    groups.unit = FrameUnit::kGroups;
    groups.start = {FrameBound::kPreceding, 2, std::nullopt};
    groups.end = {FrameBound::kFollowing, 1, std::nullopt};
    groups.exclusion = exclusion;
    expectFramesMatch(rows, groups, false);
  }
}

}  // namespace
}  // namespace shoal::engine
