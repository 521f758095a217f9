#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/types/logical_type.h"
#include "worker/storage/row_versions.h"
#include "worker/storage/segment.h"

namespace shoal::worker {

struct StoredColumn {
  std::string name;
  engine::LogicalType type;
  bool notNull = false;
};

/// One segment of a partition with its versions: the commit that made it visible (or the write that is
/// making it), and the rows that commits deleted from it.
struct StoredSegment {
  static constexpr uint64_t kUncommitted = ReadSnapshot::kLatest;
  std::shared_ptr<const Segment> segment;
  uint64_t id = 0;
  uint64_t commitSeq = kUncommitted;
  uint64_t writeId = 0;                         // while uncommitted: the write that added it
  std::shared_ptr<const DeleteVector> deletes;  // null: no row deleted
  std::string file;                             // its file ("" in memory only)
  std::string deleteFile;                       // the file of `deletes` ("" when none, or in memory only)
};

/// The rows of one table that live on this worker, as versions of immutable segments (snapshot isolation at
/// segment granularity). A write adds whole segments that only its own transaction sees, and marks rows it
/// deletes, locking them; its commit stamps both with the commit's sequence number, so a read at an earlier
/// sequence still sees the old rows and a read at a later one the new. Thread-safe.
class TablePartition {
 public:
  TablePartition(uint64_t storageId, std::string tableName, std::vector<StoredColumn> columns)
      : storageId_(storageId), tableName_(std::move(tableName)), columns_(std::move(columns)) {}

  uint64_t storageId() const { return storageId_; }
  const std::string& tableName() const { return tableName_; }
  const std::vector<StoredColumn>& columns() const { return columns_; }
  std::vector<engine::LogicalType> columnTypes() const;

  /// A segment id not used before in this partition (they name the segments' files and rows).
  uint64_t newSegmentId();

  /// Adds a committed segment (recovery, and commits of writes that bypass transactions in tests).
  void addCommitted(StoredSegment segment);
  /// Adds a segment of write `writeId`: visible only to reads that own the write, until it commits.
  void addUncommitted(uint64_t writeId, std::shared_ptr<const Segment> segment, uint64_t id, std::string file);
  /// Write `writeId`, reading at `snapshot`, deletes the rows `rowKeys` names. A row another transaction
  /// deleted after the snapshot, or is deleting now, fails the write with 40001 (first writer wins); rows
  /// the snapshot already could not see are skipped. Returns the rows it deleted.
  uint64_t deleteRows(uint64_t writeId, const ReadSnapshot& snapshot, std::span<const uint64_t> rowKeys);

  /// Every segment, committed or not, and the rows writes are deleting (row key -> write): what a unique key
  /// check compares a write's rows with.
  struct AllVersions {
    std::vector<StoredSegment> segments;
    std::unordered_map<uint64_t, uint64_t> rowLocks;
  };
  AllVersions allVersions() const;
  /// Unique key checks of this partition run one at a time, so that two writes of one key never both pass.
  std::mutex& keyCheckMutex() { return keyCheckMutex_; }

  /// The segments `snapshot` sees, each with the rows it must skip.
  std::vector<VisibleSegment> visible(const ReadSnapshot& snapshot) const;
  /// The latest committed segments, deletes ignored (tests, statistics).
  std::vector<std::shared_ptr<const Segment>> snapshot() const;
  /// The rows the latest commits left.
  size_t numRows() const;
  size_t memoryBytes() const;

  /// What writes `writeIds` changed here, for their prepared record.
  struct PendingChanges {
    std::vector<StoredSegment> segments;  // uncommitted, of those writes
    std::vector<uint64_t> deletedRows;    // row keys
  };
  PendingChanges pendingChanges(std::span<const uint64_t> writeIds) const;
  bool hasPendingChanges(std::span<const uint64_t> writeIds) const;

  /// The committed segments once `writeIds` commit at `commitSeq`, with the ids whose deletes changed; then
  /// `persist` makes them durable (it may set deleteFile), and only then do reads see the commit. Commits of
  /// one partition run one at a time. Idempotent: committing writes already committed changes nothing.
  using Persist = std::function<void(std::vector<StoredSegment>& committed, const std::vector<uint64_t>& newDeletes,
                                     uint64_t commitSeq)>;
  void commit(std::span<const uint64_t> writeIds, uint64_t commitSeq, const Persist& persist);
  /// Drops what write `writeId` added and unlocks what it deleted; returns the files of its segments.
  std::vector<std::string> abort(uint64_t writeId);
  /// Compaction's swap (compaction.h): puts `replacements` in the place of the committed segments `inputs`,
  /// unless a commit changed one of them since it was read or a write locked one of its rows (false, nothing
  /// changed). `persist` makes the new committed set durable first (it may set delete files).
  /// `moves` says where each row of an input went: an UPDATE or DELETE that found the row before the swap still
  /// deletes it by its old row key (deleteRows follows the move for a while).
  using PersistCompaction =
      std::function<void(std::vector<StoredSegment>& committed, const std::vector<uint64_t>& newDeletes)>;
  struct SegmentMove {
    uint64_t newSegmentId = 0;
    std::vector<int32_t> newRow;  // per old row: its row in the new segment, or -1 (gone: deleted long ago)
  };
  bool replaceSegments(const std::vector<StoredSegment>& inputs, std::vector<StoredSegment> replacements,
                       std::map<uint64_t, SegmentMove> moves, const PersistCompaction& persist);
  /// The committed segments, in id order (for the manifest).
  std::vector<StoredSegment> committedSegments() const;

  /// A partition whose files failed to read holds no rows and says why on every scan.
  void markCorrupted(std::string message) {
    std::lock_guard lock(mutex_);
    corruption_ = std::move(message);
  }
  std::string corruption() const {
    std::lock_guard lock(mutex_);
    return corruption_;
  }
  /// Fails with XX001 when the partition is corrupted or its columns are not of the types a plan expects.
  void checkReadable(std::span<const engine::LogicalType> plannedTypes) const;

 private:
  const uint64_t storageId_;
  const std::string tableName_;
  const std::vector<StoredColumn> columns_;
  std::mutex commitMutex_;  // one commit at a time, from its new state to its swap
  std::mutex keyCheckMutex_;
  mutable std::mutex mutex_;
  uint64_t nextSegmentId_ = 0;                                // guarded by mutex_
  std::map<uint64_t, StoredSegment> segments_;                // guarded by mutex_: by id
  std::unordered_map<uint64_t, uint64_t> rowLocks_;           // guarded by mutex_: row key -> deleting write
  std::map<uint64_t, std::vector<uint64_t>> pendingDeletes_;  // guarded by mutex_: write -> row keys
  std::string corruption_;                                    // guarded by mutex_
  /// Compacted segments' rows, by old segment id, with when they moved (kept kMoveMemory).
  std::map<uint64_t, std::pair<SegmentMove, std::chrono::steady_clock::time_point>> moved_;  // guarded by mutex_
};

}  // namespace shoal::worker
