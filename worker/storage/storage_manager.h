#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <vector>

#include "common/numa_topology.h"
#include "engine/vector/chunk.h"
#include "worker/storage/column_statistics.h"
#include "worker/storage/compaction.h"
#include "worker/storage/partition_store.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/table_partition.h"
#include "worker/storage/unique_keys.h"

namespace shoal::worker {

/// What one transaction changed in one table partition, returned when it prepares so that the coordinator can
/// keep row counts (and statistics) in its catalog.
struct LoadedPartition {
  uint64_t storageId = 0;
  uint64_t rows = 0;  // added
  uint64_t rowsDeleted = 0;
  std::vector<std::string> columnStatistics;  // serialized ColumnStatistics of the rows added, per column
};

/// All table partitions on this worker, and the writes in flight. A write (one per transaction and savepoint
/// level, named by the coordinator) stages rows under its id, possibly from many threads and peers at once,
/// and deletes rows by locking them; its own transaction reads them, nobody else. A transaction commits in
/// two phases: prepare makes everything its writes did durable (a prepared record) and reports what changed;
/// commitPrepared stamps it with the coordinator's commit sequence number, which makes it visible to
/// snapshots from that number on. Abort drops it. A prepared transaction survives a restart until the
/// coordinator decides it. Segments go round-robin over the NUMA nodes. Thread-safe.
class StorageManager {
 public:
  /// `store` makes commits durable and drops remove files (null: memory only).
  StorageManager(NumaTopology topology, PartitionStore* store) : memory_(topology), store_(store) {}

  /// Loads every partition the store holds, and the transactions it holds prepared (at startup).
  void recover();

  const NumaTopology& topology() const { return memory_.topology(); }
  /// How long a read waits for the decision on a transaction in doubt (tests shorten it).
  void setInDoubtWait(std::chrono::milliseconds wait) { inDoubtWait_ = wait; }
  /// Where segments keep their data; loads tell it how much they expect.
  SegmentMemory& memory() { return memory_; }

  /// Stages `chunk` for `storageId` under write `writeId`, creating the partition on first use. Fails with
  /// 23502 on a NULL in a NOT NULL column.
  void stage(uint64_t writeId, uint64_t storageId, const std::string& tableName,
             const std::vector<StoredColumn>& columns, engine::Chunk chunk);
  /// Write `writeId`, reading at `snapshot`, deletes rows of `storageId` (TablePartition::deleteRows).
  uint64_t deleteRows(uint64_t writeId, const ReadSnapshot& snapshot, uint64_t storageId,
                      std::span<const uint64_t> rowKeys);
  /// The segments of `storageId` that `snapshot` sees, its own staged rows included. While a transaction that
  /// touched it is in doubt after a restart, waits for its decision (55000 after 10 s).
  std::vector<VisibleSegment> visible(uint64_t storageId, const ReadSnapshot& snapshot);

  /// Checks the rows write `check.writeId` staged in `storageId` against the partition's unique keys
  /// (checkUniqueKeys), once all of them are staged.
  KeyCheckOutcome checkUniqueKeys(uint64_t storageId, const KeyCheck& check);

  /// Phase one: makes what `writeIds` did durable under `transactionId` and returns what each partition gained.
  std::vector<LoadedPartition> prepare(uint64_t transactionId, const std::vector<uint64_t>& writeIds);
  /// Phase two: commits a prepared transaction at `commitSeq`. A transaction not (or no longer) prepared here
  /// is taken as committed already.
  void commitPrepared(uint64_t transactionId, uint64_t commitSeq);
  /// Drops everything `writeIds` did, prepared or not, and the transaction's prepared record.
  void abortTransaction(uint64_t transactionId, const std::vector<uint64_t>& writeIds);
  /// Drops what one write did (a statement's or a savepoint's).
  void abort(uint64_t writeId);
  /// Prepares and commits write `writeId` at once (loads that need no coordinator, and tests).
  std::vector<LoadedPartition> commit(uint64_t writeId, uint64_t commitSeq = 0);
  /// The transactions prepared here and not yet decided, with their writes.
  std::map<uint64_t, std::vector<uint64_t>> preparedTransactions() const;

  /// Garbage collection. The coordinator tells the oldest snapshot any reader may still use (it only grows);
  /// compactAll then rewrites, in every partition, the segments whose deleted rows no snapshot from it on
  /// reads, and merges small ones (compaction.h). The worker runs it in the background every few seconds.
  void advanceHorizon(uint64_t oldestSnapshot);
  uint64_t horizon() const { return horizon_.load(); }
  CompactionOutcome compactAll();

  /// Drops a partition and its data (DROP TABLE, or TRUNCATE's old storage).
  void drop(uint64_t storageId);
  /// The partition, or null when this worker holds none for `storageId`.
  std::shared_ptr<TablePartition> find(uint64_t storageId) const;
  std::vector<std::shared_ptr<TablePartition>> partitions() const;

  /// Adds a partition recovered from disk at startup.
  void adopt(std::shared_ptr<TablePartition> partition);

 private:
  /// Rows of one partition in one write: the chunks of its next segment (the full ones are built, written
  /// and handed to the partition as uncommitted), and what they add to the table's statistics.
  struct StagedPartition {
    std::shared_ptr<TablePartition> partition;
    std::vector<engine::LogicalType> types;
    std::mutex mutex;
    std::vector<engine::Chunk> pending;        // guarded by mutex
    size_t pendingRows = 0;                    // guarded by mutex
    std::vector<std::string> files;            // guarded by mutex: the segments' files
    uint64_t rows = 0;                         // guarded by mutex
    std::vector<ColumnStatistics> statistics;  // guarded by mutex: of the segments built so far
    bool aborted = false;                      // guarded by mutex
  };
  using StagedWrite = std::map<uint64_t, std::shared_ptr<StagedPartition>>;
  struct PreparedTransaction {
    std::vector<uint64_t> writeIds;
    std::set<uint64_t> storageIds;
  };

  /// Takes chunks for whole segments out of `staged.pending` (all of it if `flush`); staged.mutex held.
  static std::vector<std::vector<engine::Chunk>> takeSegmentChunks(StagedPartition& staged, bool flush);
  /// Builds and writes a segment of `chunks` (no lock held: loading threads build in parallel), then adds it.
  void addSegment(uint64_t writeId, StagedPartition& staged, const std::vector<engine::Chunk>& chunks);
  /// Builds what `staged` still holds as chunks.
  void flush(uint64_t writeId, StagedPartition& staged);
  /// Builds what write `writeId` still holds as chunks for `storageId`, if anything.
  void flushStaged(uint64_t writeId, uint64_t storageId);
  std::shared_ptr<TablePartition> findOrCreate(uint64_t storageId, const std::string& tableName,
                                               const std::vector<StoredColumn>& columns);
  /// Rebuilds the transactions the store holds prepared (recover).
  void recoverPrepared(const std::vector<nlohmann::json>& records);
  uint32_t nextNumaNode() { return nextNumaNode_.fetch_add(1) % memory_.topology().numNodes(); }

  SegmentMemory memory_;
  PartitionStore* store_;
  std::atomic<uint32_t> nextNumaNode_{0};
  mutable std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<TablePartition>> partitions_;  // guarded by mutex_
  std::map<uint64_t, StagedWrite> writes_;                          // guarded by mutex_
  std::map<uint64_t, std::set<uint64_t>> deletesOf_;                // guarded by mutex_: write -> storage ids
  std::map<uint64_t, PreparedTransaction> prepared_;                // guarded by mutex_
  /// Prepared transactions found at startup, until the coordinator decides them: reads of what they touched
  /// wait (a worker back from a crash must not show a commit's rows on one worker and not on another).
  std::set<uint64_t> inDoubt_;  // guarded by mutex_
  std::chrono::milliseconds inDoubtWait_{10000};
  std::atomic<uint64_t> horizon_{0};
  std::mutex compactionMutex_;  // one compaction pass at a time
  std::condition_variable decided_;
};

}  // namespace shoal::worker
