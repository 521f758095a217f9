// Loads stage rows and commit them all at once; segments spread over NUMA
// nodes (a simulated two-node topology makes that path run on any machine);
// committed partitions survive a restart through their files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/status.h"
#include "worker/storage/partition_store.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Vector;

std::vector<StoredColumn> columns() {
  return {{"id", LogicalType::bigInt(), true}, {"name", LogicalType::varchar(40), false}};
}

Chunk makeRows(int64_t first, size_t count) {
  Vector ids(LogicalType::bigInt(), count);
  Vector names(LogicalType::varchar(40), count);
  for (size_t i = 0; i < count; ++i) {
    ids.data<int64_t>()[i] = first + static_cast<int64_t>(i);
    if (i % 7 == 0) {
      names.setNull(i, true);
    } else {
      names.setString(i, "a name long enough for the heap " + std::to_string(first + static_cast<int64_t>(i)));
    }
  }
  Chunk chunk(count);
  chunk.addColumn(std::move(ids));
  chunk.addColumn(std::move(names));
  return chunk;
}

int64_t sumOfIds(const TablePartition& partition) {
  int64_t sum = 0;
  for (const auto& segment : partition.snapshot()) {
    Vector ids(LogicalType::bigInt(), segment->size());
    segment->column(0).read(0, segment->size(), ids);
    for (size_t row = 0; row < segment->size(); ++row) sum += ids.data<int64_t>()[row];
  }
  return sum;
}

TEST(StorageManagerTest, StagedRowsAreInvisibleUntilCommitAndAbortDropsThem) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 10, "t", columns(), makeRows(0, 1000));
  EXPECT_EQ(storage.find(10)->numRows(), 0u);
  storage.stage(2, 10, "t", columns(), makeRows(1000, 500));
  auto committed = storage.commit(1);
  ASSERT_EQ(committed.size(), 1u);
  EXPECT_EQ(committed[0].rows, 1000u);
  EXPECT_EQ(storage.find(10)->numRows(), 1000u);
  storage.abort(2);
  EXPECT_EQ(storage.commit(2).size(), 0u);
  EXPECT_EQ(storage.find(10)->numRows(), 1000u);
}

TEST(StorageManagerTest, SegmentsHoldAMorselEachAndAlternateOverTwoSimulatedNumaNodes) {
  StorageManager storage(NumaTopology::fake(2), nullptr);
  const size_t rows = 3 * kSegmentRows + 1234;
  for (size_t start = 0; start < rows; start += 3000) {
    storage.stage(7, 1, "t", columns(), makeRows(static_cast<int64_t>(start), std::min<size_t>(3000, rows - start)));
  }
  storage.commit(7);
  auto segments = storage.find(1)->snapshot();
  ASSERT_EQ(segments.size(), 4u);
  std::vector<uint32_t> nodes;
  for (const auto& segment : segments) nodes.push_back(segment->numaNode());
  EXPECT_EQ(segments[0]->size(), kSegmentRows);
  EXPECT_EQ(segments[3]->size(), 1234u);
  EXPECT_NE(nodes[0], nodes[1]);
  EXPECT_EQ(nodes[0], nodes[2]);
  EXPECT_EQ(nodes[1], nodes[3]);
  for (const auto& segment : segments) {
    EXPECT_EQ(segment->column(0).numaNode(), segment->numaNode());
  }
  int64_t n = static_cast<int64_t>(rows);
  EXPECT_EQ(sumOfIds(*storage.find(1)), n * (n - 1) / 2);
}

TEST(StorageManagerTest, ZoneMapsGiveEachSegmentsMinAndMax) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), makeRows(100, 50));
  storage.commit(1);
  const ColumnSegment& ids = storage.find(1)->snapshot()[0]->column(0);
  EXPECT_EQ(ids.zoneMap().min.asInt64(), 100);
  EXPECT_EQ(ids.zoneMap().max.asInt64(), 149);
  EXPECT_EQ(storage.find(1)->snapshot()[0]->column(1).zoneMap().nullCount, 8u);
}

TEST(StorageManagerTest, NullInNotNullColumnIsRejected) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  Chunk rows = makeRows(0, 10);
  rows.column(0).setNull(3, true);
  try {
    storage.stage(1, 1, "t", columns(), std::move(rows));
    FAIL() << "expected 23502";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kNotNullViolation);
  }
}

TEST(StorageManagerTest, CommittedPartitionsComeBackFromTheirFiles) {
  auto root = std::filesystem::temp_directory_path() / ("shoal-storage-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  {
    PartitionStore store(root);
    StorageManager storage(NumaTopology::fake(2), &store);
    storage.stage(1, 5, "t", columns(), makeRows(0, kSegmentRows + 10));
    storage.commit(1);
    storage.stage(2, 5, "t", columns(), makeRows(kSegmentRows + 10, 20));
    storage.commit(2);
    storage.stage(3, 5, "t", columns(), makeRows(0, 99));  // never committed: not on disk
  }
  {
    PartitionStore store(root);
    StorageManager storage(NumaTopology::fake(2), &store);
    storage.recover();
    auto partition = storage.find(5);
    ASSERT_NE(partition, nullptr);
    EXPECT_EQ(partition->numRows(), kSegmentRows + 30);
    int64_t n = static_cast<int64_t>(kSegmentRows + 30);
    EXPECT_EQ(sumOfIds(*partition), n * (n - 1) / 2);
    EXPECT_TRUE(partition->corruption().empty());
    auto segment = partition->snapshot()[0];
    EXPECT_TRUE(segment->column(1).isNull(0));
    engine::Vector names(LogicalType::varchar(40), 2);
    segment->column(1).read(1, 1, names);
    EXPECT_EQ(names.data<engine::StringRef>()[0].view(), "a name long enough for the heap 1");
  }
  // A truncated file is reported with its name, never used.
  auto file = root / "5" / "segment-000000.seg";
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 100);
  {
    PartitionStore store(root);
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.recover();
    auto partition = storage.find(5);
    ASSERT_NE(partition, nullptr);
    EXPECT_EQ(partition->numRows(), 0u);
    EXPECT_NE(partition->corruption().find(file.string()), std::string::npos) << partition->corruption();
  }
  std::filesystem::remove_all(root);
}

/// Rows whose `mode` column has only a few distinct values (and some NULLs), as in TPC-H's flags and modes.
Chunk makeModes(size_t count, size_t distinct) {
  Vector modes(LogicalType::varchar(40), count);
  for (size_t i = 0; i < count; ++i) {
    if (i % 11 == 0) {
      modes.setNull(i, true);
    } else {
      modes.setString(i, "shipping mode number " + std::to_string(i % distinct));
    }
  }
  Chunk chunk(count);
  chunk.addColumn(std::move(modes));
  return chunk;
}

std::vector<std::string> readModes(const ColumnSegment& column) {
  Vector out(LogicalType::varchar(40), column.size());
  column.read(0, column.size(), out);
  std::vector<std::string> values;
  for (size_t i = 0; i < column.size(); ++i) {
    values.push_back(out.isNull(i) ? "<null>" : std::string(out.data<engine::StringRef>()[i].view()));
  }
  return values;
}

TEST(StorageManagerTest, FewDistinctStringsBecomeDictionaryCodesAndReadBackTheSame) {
  auto root = std::filesystem::temp_directory_path() / ("shoal-dictionary-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::vector<StoredColumn> modeColumns = {{"mode", LogicalType::varchar(40), false}};
  std::vector<std::vector<std::string>> expected;
  {
    PartitionStore store(root);
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.stage(1, 3, "t", modeColumns, makeModes(5000, 7));      // 1-byte codes
    storage.stage(2, 4, "t", modeColumns, makeModes(20000, 1000));  // 2-byte codes
    storage.stage(3, 5, "t", modeColumns, makeModes(5000, 5000));   // all distinct: plain
    auto loaded = storage.commit(1);
    storage.commit(2);
    storage.commit(3);
    // Statistics of a dictionary-coded segment come from its dictionary, and count every row.
    ASSERT_EQ(loaded.size(), 1u);
    auto statistics = ColumnStatistics::deserialize(LogicalType::varchar(40), loaded[0].columnStatistics[0]);
    EXPECT_EQ(statistics.rowCount(), 5000u);
    EXPECT_EQ(statistics.nullCount(), (5000u + 10) / 11);
    EXPECT_EQ(statistics.distinctCount(), 7u);
    EXPECT_EQ(statistics.min().toString(), "shipping mode number 0");
    EXPECT_EQ(statistics.max().toString(), "shipping mode number 6");
    EXPECT_EQ(storage.find(3)->snapshot()[0]->column(0).encoding(), ColumnEncoding::kDictionary8);
    EXPECT_EQ(storage.find(4)->snapshot()[0]->column(0).encoding(), ColumnEncoding::kDictionary16);
    EXPECT_EQ(storage.find(5)->snapshot()[0]->column(0).encoding(), ColumnEncoding::kPlain);
    const ColumnSegment& modes = storage.find(3)->snapshot()[0]->column(0);
    EXPECT_EQ(modes.zoneMap().min.toString(), "shipping mode number 0");
    EXPECT_EQ(modes.zoneMap().max.toString(), "shipping mode number 6");
    EXPECT_EQ(modes.zoneMap().nullCount, (5000u + 10) / 11);
    for (uint64_t id : {3, 4, 5}) expected.push_back(readModes(storage.find(id)->snapshot()[0]->column(0)));
    EXPECT_EQ(expected[0][1], "shipping mode number 1");
    EXPECT_EQ(expected[0][11], "<null>");
  }
  PartitionStore store(root);
  StorageManager storage(NumaTopology::fake(1), &store);
  storage.recover();
  for (uint64_t id : {3, 4, 5}) {
    const ColumnSegment& column = storage.find(id)->snapshot()[0]->column(0);
    EXPECT_EQ(readModes(column), expected[id - 3]) << "storage " << id;
  }
  EXPECT_EQ(storage.find(3)->snapshot()[0]->column(0).encoding(), ColumnEncoding::kDictionary8);
  std::filesystem::remove_all(root);
}

/// Columns a load takes its statistics from in different ways: 1- and 2-byte offsets (a bitmap of
/// distinct values), a wide integer and unique strings (every row, range from the zone map), and a
/// dictionary. NULLs and runs of equal values throughout.
Chunk makeMixed(size_t first, size_t count) {
  Vector tiny(LogicalType::integer(), count);
  Vector dates(LogicalType::date(), count);
  Vector wide(LogicalType::bigInt(), count);
  Vector comments(LogicalType::varchar(40), count);
  Vector flags(LogicalType::character(1), count);
  for (size_t i = 0; i < count; ++i) {
    const size_t row = first + i;
    tiny.data<int32_t>()[i] = static_cast<int32_t>(row % 50) - 7;
    if (row % 13 == 0) tiny.setNull(i, true);
    dates.data<int32_t>()[i] = static_cast<int32_t>(8000 + (row * 7919) % 2500);
    wide.data<int64_t>()[i] = static_cast<int64_t>((row / 3) * 1000003);  // runs of three
    if (row % 17 == 0) {
      comments.setNull(i, true);
    } else {
      comments.setString(i, "comment of row " + std::to_string(row * 31 % 90001));
    }
    flags.setString(i, std::string(1, "AFNOR"[row % 5]));
  }
  Chunk chunk(count);
  chunk.addColumn(std::move(tiny));
  chunk.addColumn(std::move(dates));
  chunk.addColumn(std::move(wide));
  chunk.addColumn(std::move(comments));
  chunk.addColumn(std::move(flags));
  return chunk;
}

TEST(StorageManagerTest, LoadStatisticsEqualOnePassOverEveryRow) {
  std::vector<StoredColumn> mixedColumns = {{"tiny", LogicalType::integer(), false},
                                            {"day", LogicalType::date(), true},
                                            {"wide", LogicalType::bigInt(), true},
                                            {"comment", LogicalType::varchar(40), false},
                                            {"flag", LogicalType::character(1), true}};
  StorageManager storage(NumaTopology::fake(1), nullptr);
  std::vector<ColumnStatistics> expected;
  for (const auto& column : mixedColumns) expected.emplace_back(column.type);
  const size_t total = 2 * kSegmentRows + 12345;  // two full segments and a partial one
  for (size_t first = 0; first < total; first += engine::kVectorSize) {
    Chunk chunk = makeMixed(first, std::min<size_t>(engine::kVectorSize, total - first));
    for (size_t c = 0; c < mixedColumns.size(); ++c) expected[c].update(chunk.column(c), chunk.size());
    storage.stage(7, 8, "mixed", mixedColumns, std::move(chunk));
  }
  auto loaded = storage.commit(7);
  ASSERT_EQ(loaded.size(), 1u);
  const auto& segment = *storage.find(8)->snapshot()[0];
  EXPECT_EQ(segment.column(0).encoding(), ColumnEncoding::kOffset8);
  EXPECT_EQ(segment.column(1).encoding(), ColumnEncoding::kOffset16);
  EXPECT_EQ(segment.column(2).encoding(), ColumnEncoding::kPlain);
  EXPECT_EQ(segment.column(3).encoding(), ColumnEncoding::kPlain);
  EXPECT_EQ(segment.column(4).encoding(), ColumnEncoding::kDictionary8);
  for (size_t c = 0; c < mixedColumns.size(); ++c) {
    auto actual = ColumnStatistics::deserialize(mixedColumns[c].type, loaded[0].columnStatistics[c]);
    SCOPED_TRACE(mixedColumns[c].name);
    EXPECT_EQ(actual.rowCount(), expected[c].rowCount());
    EXPECT_EQ(actual.nullCount(), expected[c].nullCount());
    EXPECT_EQ(actual.min().toString(), expected[c].min().toString());
    EXPECT_EQ(actual.max().toString(), expected[c].max().toString());
    // The same distinct values give the same sketch, whichever way they were found.
    EXPECT_EQ(actual.distinctCount(), expected[c].distinctCount());
  }
}

TEST(StorageManagerTest, AnAbortedLoadLeavesNoFilesBehind) {
  auto root = std::filesystem::temp_directory_path() / ("shoal-abort-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  PartitionStore store(root);
  StorageManager storage(NumaTopology::fake(1), &store);
  storage.stage(1, 9, "t", columns(), makeRows(0, 2 * kSegmentRows));  // two segments written while staging
  ASSERT_EQ(std::distance(std::filesystem::directory_iterator(root / "9"), {}), 2);
  storage.abort(1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(root / "9"), {}), 0);
  EXPECT_EQ(storage.find(9)->numRows(), 0u);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace shoal::worker
