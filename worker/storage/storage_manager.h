#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common/numa_topology.h"
#include "engine/vector/chunk.h"
#include "worker/storage/column_statistics.h"
#include "worker/storage/partition_store.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// What one load added to one table partition, returned at commit so the
/// coordinator can keep row counts (and statistics) in its catalog.
struct LoadedPartition {
  uint64_t storageId = 0;
  uint64_t rows = 0;
  std::vector<std::string> columnStatistics;  // serialized ColumnStatistics of the rows loaded, per column
};

/// All table partitions on this worker, and the loads in flight. A load
/// stages rows under its id, possibly from many threads and peers at once;
/// commit makes them visible in one step, abort drops them, so a COPY is all
/// or nothing. Segments go round-robin over the NUMA nodes. Thread-safe.
class StorageManager {
 public:
  /// `store` makes commits durable and drops remove files (null: memory only).
  StorageManager(NumaTopology topology, PartitionStore* store) : memory_(topology), store_(store) {}

  /// Loads every partition the store holds (at startup).
  void recover();

  const NumaTopology& topology() const { return memory_.topology(); }
  /// Where segments keep their data; loads tell it how much they expect.
  SegmentMemory& memory() { return memory_; }

  /// Stages `chunk` for `storageId` under `loadId`, creating the partition's
  /// staging area on first use. Fails with 23502 on a NULL in a NOT NULL column.
  void stage(uint64_t loadId, uint64_t storageId, const std::string& tableName,
             const std::vector<StoredColumn>& columns, engine::Chunk chunk);
  /// Makes everything staged under `loadId` visible. Returns what each partition gained.
  std::vector<LoadedPartition> commit(uint64_t loadId);
  void abort(uint64_t loadId);

  /// Drops a partition and its data (DROP TABLE, or TRUNCATE's old storage).
  void drop(uint64_t storageId);
  /// The partition, or null when this worker holds none for `storageId`.
  std::shared_ptr<TablePartition> find(uint64_t storageId) const;
  std::vector<std::shared_ptr<TablePartition>> partitions() const;

  /// Adds a partition recovered from disk at startup.
  void adopt(std::shared_ptr<TablePartition> partition);

 private:
  /// Rows of one partition in one load: full segments already built (and written), plus the chunks of the
  /// next one.
  struct StagedPartition {
    uint64_t storageId = 0;
    std::string tableName;
    std::vector<StoredColumn> columns;
    std::vector<engine::LogicalType> types;
    std::mutex mutex;
    std::vector<engine::Chunk> pending;                    // guarded by mutex
    size_t pendingRows = 0;                                // guarded by mutex
    std::vector<std::shared_ptr<const Segment>> segments;  // guarded by mutex
    std::vector<std::string> files;                        // guarded by mutex: the segments' files
    uint64_t rows = 0;                                     // guarded by mutex
    std::vector<ColumnStatistics> statistics;              // guarded by mutex: of the segments built so far
    bool aborted = false;                                  // guarded by mutex
  };
  using StagedLoad = std::map<uint64_t, std::shared_ptr<StagedPartition>>;

  /// Takes chunks for whole segments out of `staged.pending` (all of it if `flush`); staged.mutex held.
  static std::vector<std::vector<engine::Chunk>> takeSegmentChunks(StagedPartition& staged, bool flush);
  /// Builds and writes a segment of `chunks` (no lock held: loading threads build in parallel), then adds it.
  void addSegment(StagedPartition& staged, const std::vector<engine::Chunk>& chunks);
  /// Builds the rest of `staged`, makes it durable and visible; part of commit.
  LoadedPartition commitPartition(StagedPartition& staged);
  uint32_t nextNumaNode() { return nextNumaNode_.fetch_add(1) % memory_.topology().numNodes(); }

  SegmentMemory memory_;
  PartitionStore* store_;
  std::atomic<uint32_t> nextNumaNode_{0};
  mutable std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<TablePartition>> partitions_;  // guarded by mutex_
  std::map<uint64_t, StagedLoad> loads_;                            // guarded by mutex_
};

}  // namespace shoal::worker
