// Snapshot isolation at segment granularity: what a read at a commit sequence number sees of appended
// segments and delete vectors, a transaction's own uncommitted writes, first-writer-wins on deletes, and a
// prepared transaction that survives a restart (with its deletes) until it is committed or aborted.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/status.h"
#include "tests/unit/worker/stored_ids.h"
#include "worker/storage/partition_store.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Vector;

std::vector<StoredColumn> columns() {
  return testing::idColumn();
}

Chunk ids(int64_t first, size_t count) {
  return testing::idRows(first, count);
}

using Seen = std::pair<int64_t, size_t>;

ReadSnapshot at(uint64_t commitSeq, std::vector<uint64_t> ownWrites) {
  return ReadSnapshot{commitSeq, std::move(ownWrites)};
}

/// The ids `snapshot` sees in storage 1, summed, and how many.
Seen seen(StorageManager& storage, const ReadSnapshot& snapshot) {
  const std::vector<int64_t> ids = testing::visibleIds(storage, snapshot);
  int64_t sum = 0;
  for (int64_t id : ids) sum += id;
  return {sum, ids.size()};
}

uint64_t keyOf(StorageManager& storage, int64_t id) {
  return testing::rowKeyOfId(storage, id);
}

TEST(RowVersionsTest, ASnapshotSeesTheCommitsUpToItsNumberAndItsOwnWrites) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), ids(1, 10));  // 1..10
  storage.commit(1, 5);
  storage.stage(2, 1, "t", columns(), ids(11, 10));  // 11..20, committed at 7
  storage.commit(2, 7);
  storage.stage(3, 1, "t", columns(), ids(21, 5));  // uncommitted
  EXPECT_EQ(seen(storage, at(4, {})), Seen(0, 0));
  EXPECT_EQ(seen(storage, at(5, {})), Seen(55, 10));
  EXPECT_EQ(seen(storage, at(6, {})).second, 10u);
  EXPECT_EQ(seen(storage, at(7, {})), Seen(210, 20));
  EXPECT_EQ(seen(storage, at(7, {3})), Seen(325, 25));  // its own rows, unflushed
  storage.abort(3);
  EXPECT_EQ(seen(storage, at(7, {3})).second, 20u);
}

TEST(RowVersionsTest, DeletesAreVisibleFromTheirCommitOnAndTheFirstWriterWins) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), ids(1, 10));
  storage.commit(1, 1);
  const uint64_t three = keyOf(storage, 3);
  const uint64_t four = keyOf(storage, 4);
  EXPECT_EQ(storage.deleteRows(10, {1, {10}}, 1, std::vector<uint64_t>{three}), 1u);
  EXPECT_EQ(seen(storage, at(1, {10})).second, 9u);  // its own delete
  EXPECT_EQ(seen(storage, at(1, {})).second, 10u);   // nobody else's
  // A second transaction deleting the same row fails at once; another row is fine.
  try {
    storage.deleteRows(11, {1, {11}}, 1, std::vector<uint64_t>{four, three});
    FAIL() << "expected 40001";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kSerializationFailure);
  }
  EXPECT_EQ(seen(storage, at(1, {11})).second, 10u);  // the failed write locked nothing
  storage.commit(10, 2);
  EXPECT_EQ(seen(storage, at(1, {})), Seen(55, 10));
  EXPECT_EQ(seen(storage, at(2, {})), Seen(52, 9));
  // A transaction whose snapshot predates that commit may not delete the row again (lost update).
  try {
    storage.deleteRows(12, {1, {12}}, 1, std::vector<uint64_t>{three});
    FAIL() << "expected 40001";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kSerializationFailure);
  }
  // One that started after it does not see the row, and deleting it is no change.
  EXPECT_EQ(storage.deleteRows(13, {2, {13}}, 1, std::vector<uint64_t>{three}), 0u);
}

TEST(RowVersionsTest, APreparedTransactionSurvivesARestartUntilItIsDecided) {
  auto root = std::filesystem::temp_directory_path() / ("shoal-row-versions-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  uint64_t three = 0;
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.stage(1, 1, "t", columns(), ids(1, 10));
    storage.commit(1, 1);
    three = keyOf(storage, 3);
    storage.stage(20, 1, "t", columns(), ids(100, 3));  // 100..102
    storage.deleteRows(20, {1, {20}}, 1, std::vector<uint64_t>{three});
    auto changed = storage.prepare(77, {20});
    ASSERT_EQ(changed.size(), 1u);
    EXPECT_EQ(changed[0].rows, 3u);
    EXPECT_EQ(changed[0].rowsDeleted, 1u);
    storage.stage(21, 1, "t", columns(), ids(500, 2));  // never prepared: gone after the restart
  }
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.recover();
    storage.setInDoubtWait(std::chrono::milliseconds(20));
    ASSERT_EQ(storage.preparedTransactions().size(), 1u);
    EXPECT_EQ(storage.preparedTransactions().at(77), std::vector<uint64_t>{20});
    // Undecided after the restart: reads of the table wait for the coordinator, then fail.
    try {
      seen(storage, ReadSnapshot{});
      FAIL() << "expected 55000";
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), SqlState::kObjectNotInPrerequisiteState);
    }
    // Its delete still holds the row.
    EXPECT_THROW(storage.deleteRows(30, {1, {30}}, 1, std::vector<uint64_t>{three}), ShoalError);
    storage.commitPrepared(77, 2);
    EXPECT_EQ(seen(storage, ReadSnapshot{}), Seen(55 - 3 + 303, 12));
    EXPECT_EQ(seen(storage, at(1, {})).second, 10u);  // an older snapshot still sees the old rows
  }
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.recover();
    EXPECT_TRUE(storage.preparedTransactions().empty());
    EXPECT_EQ(seen(storage, ReadSnapshot{}), Seen(55 - 3 + 303, 12));
    EXPECT_EQ(seen(storage, at(1, {})).second, 10u);  // commit numbers and delete vectors came back from disk
  }
  std::filesystem::remove_all(root);
}

TEST(RowVersionsTest, AnAbortedPreparedTransactionLeavesNothing) {
  auto root = std::filesystem::temp_directory_path() / ("shoal-row-versions-abort-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.stage(1, 1, "t", columns(), ids(1, 10));
    storage.commit(1, 1);
    storage.stage(20, 1, "t", columns(), ids(100, 3));
    storage.deleteRows(20, {1, {20}}, 1, std::vector<uint64_t>{keyOf(storage, 5)});
    storage.prepare(78, {20});
  }
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.recover();
    storage.abortTransaction(78, {});
    EXPECT_TRUE(storage.preparedTransactions().empty());
    EXPECT_EQ(seen(storage, ReadSnapshot{}), Seen(55, 10));
    // The row its delete held is free again.
    EXPECT_EQ(storage.deleteRows(31, {1, {31}}, 1, std::vector<uint64_t>{keyOf(storage, 5)}), 1u);
  }
  {
    PartitionStore store(root / "storage");
    StorageManager storage(NumaTopology::fake(1), &store);
    storage.recover();
    EXPECT_TRUE(storage.preparedTransactions().empty());
    EXPECT_EQ(seen(storage, ReadSnapshot{}), Seen(55, 10));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(root / "storage" / "1"), {}), 2);  // manifest, 1 seg
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace shoal::worker
