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
    const int64_t* ids = segment->column(0).data<int64_t>();
    for (size_t row = 0; row < segment->size(); ++row) sum += ids[row];
  }
  return sum;
}

TEST(StorageManagerTest, StagedRowsAreInvisibleUntilCommitAndAbortDropsThem) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 10, "t", columns(), makeRows(0, 1000));
  EXPECT_EQ(storage.find(10), nullptr);
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

}  // namespace
}  // namespace shoal::worker
