// Compaction (garbage collection of row versions): segments whose deleted rows no snapshot at or after the
// horizon needs are rewritten without them, small segments are merged, and every such snapshot reads the
// same rows before and after; deletes after the horizon survive, and a segment with a locked row stays.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/worker/stored_ids.h"
#include "worker/storage/partition_store.h"

namespace shoal::worker {
namespace {

using testing::idColumn;
using testing::idRows;
using testing::rowKeysWhere;
using testing::visibleIds;

size_t segmentsOf(StorageManager& storage) {
  return storage.find(1)->committedSegments().size();
}

TEST(CompactionTest, DeletedRowsGoAndEverySnapshotFromTheHorizonReadsTheSame) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  for (int i = 0; i < 4; ++i) {  // four small segments of 100 rows
    storage.stage(10 + i, 1, "t", idColumn(), idRows(i * 100, 100));
    storage.commit(10 + i, 1 + i);
  }
  storage.deleteRows(20, {4, {20}}, 1, rowKeysWhere(storage, [](int64_t id) { return id % 2 == 0; }));
  storage.commit(20, 5);  // evens deleted at 5
  storage.deleteRows(21, {5, {21}}, 1, rowKeysWhere(storage, [](int64_t id) { return id % 3 == 0; }));
  storage.commit(21, 6);  // multiples of 3 deleted at 6
  const auto at5 = visibleIds(storage, {5, {}});
  const auto at6 = visibleIds(storage, {6, {}});
  ASSERT_EQ(segmentsOf(storage), 4u);

  storage.advanceHorizon(5);  // a reader at 5 may still come: the deletes at 6 must stay
  CompactionOutcome outcome = storage.compactAll();
  EXPECT_EQ(outcome.segmentsRewritten, 4u);
  EXPECT_EQ(outcome.segmentsWritten, 1u);
  EXPECT_EQ(outcome.rowsRemoved, 200u);
  EXPECT_EQ(segmentsOf(storage), 1u);
  EXPECT_EQ(visibleIds(storage, {5, {}}), at5);
  EXPECT_EQ(visibleIds(storage, {6, {}}), at6);

  storage.advanceHorizon(6);
  storage.compactAll();
  EXPECT_EQ(visibleIds(storage, {6, {}}), at6);
  EXPECT_EQ(storage.find(1)->committedSegments()[0].segment->size(), at6.size());
  // Nothing left to do: a second pass changes nothing.
  EXPECT_EQ(storage.compactAll().segmentsRewritten, 0u);
}

TEST(CompactionTest, ASegmentWithALockedRowOrAnUncommittedOneStays) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", idColumn(), idRows(0, 100));
  storage.commit(1, 1);
  storage.stage(2, 1, "t", idColumn(), idRows(100, 100));
  storage.commit(2, 2);
  storage.deleteRows(3, {2, {3}}, 1, rowKeysWhere(storage, [](int64_t id) { return id < 50; }));
  storage.commit(3, 3);
  storage.deleteRows(4, {3, {4}}, 1, rowKeysWhere(storage, [](int64_t id) { return id == 150; }));  // pending
  storage.stage(5, 1, "t", idColumn(), idRows(500, 10));                                            // uncommitted
  storage.advanceHorizon(3);
  // The second holds a row a write is deleting: only the first goes, alone, without its deleted rows.
  EXPECT_EQ(storage.compactAll().segmentsRewritten, 1u);
  EXPECT_EQ(visibleIds(storage, {3, {4, 5}}).size(), 150u - 1 + 10);
  storage.abort(4);
  EXPECT_EQ(storage.compactAll().segmentsRewritten, 2u);  // now the two small ones merge
  EXPECT_EQ(visibleIds(storage, {3, {}}).size(), 150u);
  EXPECT_EQ(visibleIds(storage, {3, {5}}).size(), 160u);  // the uncommitted write is untouched
}

TEST(CompactionTest, AStatementThatFoundRowsBeforeACompactionStillDeletesThem) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  for (int i = 0; i < 3; ++i) {
    storage.stage(10 + i, 1, "t", idColumn(), idRows(i * 100, 100));
    storage.commit(10 + i, 1 + i);
  }
  storage.deleteRows(20, {3, {20}}, 1, rowKeysWhere(storage, [](int64_t id) { return id < 50; }));
  storage.commit(20, 4);
  // A DELETE reads at 4 and finds its rows; compaction then merges the segments under it.
  const auto found = rowKeysWhere(storage, [](int64_t id) { return id % 10 == 7; });
  storage.advanceHorizon(4);
  ASSERT_EQ(storage.compactAll().segmentsRewritten, 3u);
  EXPECT_EQ(storage.deleteRows(21, {4, {21}}, 1, found), found.size());
  storage.commit(21, 5);
  const auto left = visibleIds(storage, {5, {}});
  EXPECT_EQ(left.size(), 250u - 25u);
  EXPECT_TRUE(std::none_of(left.begin(), left.end(), [](int64_t id) { return id % 10 == 7; }));
}

TEST(CompactionTest, ACompactedPartitionRecoversFromDisk) {
  const auto directory = std::filesystem::temp_directory_path() / "shoal-compaction-test";
  std::filesystem::remove_all(directory);
  std::vector<int64_t> expected;
  {
    PartitionStore store(directory / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    for (int i = 0; i < 3; ++i) {
      storage.stage(10 + i, 1, "t", idColumn(), idRows(i * 10, 10));
      storage.commit(10 + i, 1 + i);
    }
    storage.deleteRows(20, {3, {20}}, 1, rowKeysWhere(storage, [](int64_t id) { return id % 4 == 0; }));
    storage.commit(20, 4);
    storage.deleteRows(21, {4, {21}}, 1, rowKeysWhere(storage, [](int64_t id) { return id == 1; }));
    storage.commit(21, 5);
    storage.advanceHorizon(4);
    EXPECT_EQ(storage.compactAll().segmentsWritten, 1u);
    expected = visibleIds(storage, {5, {}});
  }
  PartitionStore store(directory / "storage");
  StorageManager recovered(NumaTopology::fake(1), &store);
  recovered.recover();
  EXPECT_EQ(visibleIds(recovered, {5, {}}), expected);
  EXPECT_EQ(visibleIds(recovered, {4, {}}).size(), expected.size() + 1);  // the delete after the horizon stayed
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory / "storage")) {
    files += entry.path().extension() == ".seg" ? 1 : 0;
  }
  EXPECT_EQ(files, 1u);  // the old segment files are gone
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace shoal::worker
