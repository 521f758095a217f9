// A plan's scan on the worker: one morsel per segment, and segments whose
// zone maps prove a `column op constant` filter false are never read.
#include "worker/partition_scan_source.h"

#include <gtest/gtest.h>

#include "worker/storage/storage_manager.h"

namespace shoal::worker {
namespace {

using engine::LogicalType;
using engine::Value;

constexpr uint64_t kStorage = 7;
constexpr size_t kRows = 250'000;  // ids 0 .. 249999 in three segments: [0, 102400), [102400, 204800), the rest

std::shared_ptr<TablePartition> loadedPartition(StorageManager& storage) {
  std::vector<StoredColumn> columns = {{"id", LogicalType::bigInt(), true}, {"name", LogicalType::varchar(20), false}};
  for (size_t first = 0; first < kRows; first += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, kRows - first);
    engine::Vector ids(LogicalType::bigInt(), count);
    engine::Vector names(LogicalType::varchar(20), count);
    for (size_t i = 0; i < count; ++i) {
      ids.data<int64_t>()[i] = static_cast<int64_t>(first + i);
      names.setString(i, "n" + std::to_string((first + i) % 10));
    }
    engine::Chunk chunk(count);
    chunk.addColumn(std::move(ids));
    chunk.addColumn(std::move(names));
    storage.stage(1, kStorage, "t", columns, std::move(chunk));
  }
  storage.commit(1);
  return storage.find(kStorage);
}

/// A scan of both columns (plan ids 1 and 2) with `filter` over them.
std::unique_ptr<sql::LogicalScan> scanWith(engine::ExpressionPtr filter) {
  auto owned = std::make_unique<sql::LogicalScan>();
  sql::LogicalScan& scan = *owned;
  scan.table.name = "t";
  scan.table.isSystemView = false;
  scan.table.storageId = kStorage;
  scan.table.columns = {{"id", LogicalType::bigInt()}, {"name", LogicalType::varchar(20)}};
  scan.tableColumns = {0, 1};
  scan.columns = {{1, LogicalType::bigInt(), "id"}, {2, LogicalType::varchar(20), "name"}};
  if (filter) scan.filters.push_back(std::move(filter));
  return owned;
}

engine::ExpressionPtr compare(engine::ScalarFunction comparison, engine::ExpressionPtr a, engine::ExpressionPtr b) {
  std::vector<engine::ExpressionPtr> arguments;
  arguments.push_back(std::move(a));
  arguments.push_back(std::move(b));
  return std::make_unique<engine::FunctionExpression>(comparison, std::move(arguments), LogicalType::boolean());
}

engine::ExpressionPtr id() {
  return std::make_unique<engine::ColumnRefExpression>(1, LogicalType::bigInt(), "id");
}

engine::ExpressionPtr constant(Value value) {
  return std::make_unique<engine::ConstantExpression>(std::move(value));
}

size_t rowsProduced(const PartitionScanSource& source) {
  size_t rows = 0;
  for (size_t morsel = 0; morsel < source.numMorsels(); ++morsel) {
    source.produce(morsel, [&](engine::Chunk& chunk) {
      EXPECT_EQ(chunk.numColumns(), 2u);
      rows += chunk.size();
    });
  }
  return rows;
}

TEST(PartitionScanSourceTest, EachSegmentIsOneMorselWithoutAFilter) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  auto partition = loadedPartition(storage);
  ASSERT_EQ(partition->snapshot().size(), 3u);
  PartitionScanSource source(*scanWith(nullptr), partition, partition->visible({}));
  EXPECT_EQ(source.numMorsels(), 3u);
  EXPECT_EQ(source.skippedSegments(), 0u);
  EXPECT_EQ(rowsProduced(source), kRows);
}

TEST(PartitionScanSourceTest, ZoneMapsSkipSegmentsAFilterRulesOut) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  auto partition = loadedPartition(storage);
  {
    PartitionScanSource source(*scanWith(compare(engine::ScalarFunction::kLess, id(), constant(Value::bigInt(1000)))),
                               partition, partition->visible({}));
    EXPECT_EQ(source.skippedSegments(), 2u);
    EXPECT_EQ(rowsProduced(source), 102'400u);  // the first segment, whole: the pipeline filters its rows
  }
  {
    // The constant first: 150000 = id keeps only the middle segment.
    PartitionScanSource source(
        *scanWith(compare(engine::ScalarFunction::kEqual, constant(Value::bigInt(150'000)), id())), partition,
        partition->visible({}));
    EXPECT_EQ(source.skippedSegments(), 2u);
  }
  {
    // 204800 < id, mirrored: only the last segment can hold such ids.
    PartitionScanSource source(
        *scanWith(compare(engine::ScalarFunction::kLess, constant(Value::bigInt(204'800)), id())), partition,
        partition->visible({}));
    EXPECT_EQ(source.skippedSegments(), 2u);
    EXPECT_EQ(rowsProduced(source), kRows - 204'800);
  }
  {
    // A comparison with NULL is never true.
    PartitionScanSource source(
        *scanWith(compare(engine::ScalarFunction::kGreater, id(), constant(Value::null(LogicalType::bigInt())))),
        partition, partition->visible({}));
    EXPECT_EQ(source.numMorsels(), 0u);
  }
}

TEST(PartitionScanSourceTest, FiltersZoneMapsCannotDecideKeepEverySegment) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  auto partition = loadedPartition(storage);
  engine::ExpressionPtr name = std::make_unique<engine::ColumnRefExpression>(2, LogicalType::varchar(20), "name");
  PartitionScanSource source(*scanWith(compare(engine::ScalarFunction::kEqual, std::move(name),
                                               constant(Value::varchar("n3", LogicalType::varchar(20))))),
                             partition, partition->visible({}));
  EXPECT_EQ(source.skippedSegments(), 0u);
  EXPECT_EQ(source.numMorsels(), 3u);
}

}  // namespace
}  // namespace shoal::worker
