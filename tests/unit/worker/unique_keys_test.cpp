// A write's rows checked against a partition's unique key: duplicates within the write and against live rows
// fail with 23505, rows being written or deleted by another transaction with 40001, a key the transaction
// itself deleted may come back, NULL keys never conflict, and ON CONFLICT drops (and reports) what conflicts.
#include <gtest/gtest.h>

#include "common/status.h"
#include "engine/vector/chunk_codec.h"
#include "tests/unit/worker/stored_ids.h"
#include "worker/storage/storage_manager.h"
#include "worker/storage/unique_keys.h"

namespace shoal::worker {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Vector;

std::vector<StoredColumn> columns() {
  return {{"id", LogicalType::bigInt(), false}, {"v", LogicalType::integer(), false}};
}

/// Rows (id, v) of the given ids (-1: a NULL id), v the row's position.
Chunk rows(std::vector<int64_t> ids) {
  Vector id(LogicalType::bigInt(), ids.size());
  Vector v(LogicalType::integer(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    id.data<int64_t>()[i] = ids[i];
    id.setNull(i, ids[i] < 0);
    v.data<int32_t>()[i] = static_cast<int32_t>(i);
  }
  Chunk chunk(ids.size());
  chunk.addColumn(std::move(id));
  chunk.addColumn(std::move(v));
  return chunk;
}

KeyCheck checkOf(uint64_t writeId, std::vector<uint64_t> transactionWrites,
                 ConflictAction action = ConflictAction::kFail, uint64_t snapshot = ReadSnapshot::kLatest) {
  KeyCheck check;
  check.writeId = writeId;
  check.transaction = ReadSnapshot{snapshot, std::move(transactionWrites)};
  check.keys = {UniqueKey{"t_pkey", {0}, action != ConflictAction::kFail}};
  check.action = action;
  return check;
}

std::string failure(StorageManager& storage, const KeyCheck& check) {
  try {
    storage.checkUniqueKeys(1, check);
  } catch (const ShoalError& error) {
    return std::string(error.status().sqlState()) + " " + error.status().detail();
  }
  return "passed";
}

uint64_t keyOf(StorageManager& storage, int64_t id) {
  return testing::rowKeyOfId(storage, id);
}

TEST(UniqueKeysTest, DuplicatesWithinAWriteAndAgainstLiveRowsFail) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), rows({1, 2, 3}));
  EXPECT_EQ(failure(storage, checkOf(1, {1})), "passed");
  storage.commit(1, 1);
  storage.stage(2, 1, "t", columns(), rows({4, 5, 4}));
  EXPECT_EQ(failure(storage, checkOf(2, {2})), "23505 Key (id)=(4) already exists.");
  storage.abort(2);
  storage.stage(3, 1, "t", columns(), rows({7, 2}));
  EXPECT_EQ(failure(storage, checkOf(3, {3})), "23505 Key (id)=(2) already exists.");
  storage.abort(3);
  // NULL keys never conflict (UNIQUE's rule; a PRIMARY KEY's columns are NOT NULL anyway).
  storage.stage(4, 1, "t", columns(), rows({-1, -1, 9}));
  EXPECT_EQ(failure(storage, checkOf(4, {4})), "passed");
}

TEST(UniqueKeysTest, AnUndecidedWriterOrDeleterOfTheKeyFailsWith40001) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), rows({1, 2}));
  storage.commit(1, 1);
  storage.stage(2, 1, "t", columns(), rows({10}));  // another transaction, checked, undecided
  EXPECT_EQ(failure(storage, checkOf(2, {2})), "passed");
  storage.stage(3, 1, "t", columns(), rows({10}));
  EXPECT_EQ(failure(storage, checkOf(3, {3})).substr(0, 5), "40001");
  storage.abort(3);
  storage.deleteRows(4, {1, {4}}, 1, std::vector<uint64_t>{keyOf(storage, 1)});  // another deletes 1
  storage.stage(5, 1, "t", columns(), rows({1}));
  EXPECT_EQ(failure(storage, checkOf(5, {5})).substr(0, 5), "40001");
  storage.abort(5);
  // Once the deleter commits, the key is free.
  storage.commit(4, 2);
  storage.stage(6, 1, "t", columns(), rows({1}));
  EXPECT_EQ(failure(storage, checkOf(6, {6})), "passed");
}

TEST(UniqueKeysTest, AKeyTheTransactionDeletedMayComeBackButNotTwice) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), rows({1, 2}));
  storage.commit(1, 1);
  storage.deleteRows(10, {1, {10}}, 1, std::vector<uint64_t>{keyOf(storage, 2)});
  storage.stage(11, 1, "t", columns(), rows({2}));  // a later statement of the same transaction
  EXPECT_EQ(failure(storage, checkOf(11, {10, 11})), "passed");
  storage.stage(12, 1, "t", columns(), rows({2}));
  EXPECT_EQ(failure(storage, checkOf(12, {10, 11, 12})), "23505 Key (id)=(2) already exists.");
}

TEST(UniqueKeysTest, OnConflictDropsTheConflictingRowsAndReportsThem) {
  StorageManager storage(NumaTopology::fake(1), nullptr);
  storage.stage(1, 1, "t", columns(), rows({1, 2, 3}));
  storage.commit(1, 1);
  storage.stage(2, 1, "t", columns(), rows({3, 4, 4, 5}));
  KeyCheckOutcome skipped = storage.checkUniqueKeys(1, checkOf(2, {2}, ConflictAction::kSkip));
  EXPECT_EQ(skipped.rowsSkipped, 2u);  // 3 (taken) and the second 4
  storage.commit(2, 2);
  EXPECT_EQ(storage.find(1)->numRows(), 5u);

  storage.stage(3, 1, "t", columns(), rows({6, 5, 1}));
  KeyCheckOutcome reported = storage.checkUniqueKeys(1, checkOf(3, {3}, ConflictAction::kReport));
  EXPECT_EQ(reported.rowsSkipped, 2u);
  std::vector<engine::LogicalType> types = {LogicalType::bigInt(), LogicalType::integer()};
  auto chunks = engine::decodeChunks(std::make_shared<const std::string>(reported.reported), types);
  std::vector<int64_t> ids;
  for (const auto& chunk : chunks) {
    for (size_t row = 0; row < chunk.size(); ++row) ids.push_back(chunk.column(0).data<int64_t>()[row]);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 5}));

  // DO UPDATE cannot meet a row twice, nor a row committed after the statement's snapshot.
  storage.stage(4, 1, "t", columns(), rows({8, 8}));
  EXPECT_EQ(failure(storage, checkOf(4, {4}, ConflictAction::kReport)).substr(0, 5), "21000");
  storage.abort(4);
  storage.stage(5, 1, "t", columns(), rows({5}));
  EXPECT_EQ(failure(storage, checkOf(5, {5}, ConflictAction::kReport, 1)).substr(0, 5), "40001");
}

}  // namespace
}  // namespace shoal::worker
