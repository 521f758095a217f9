#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/aligned_buffer.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// The table partitions of one worker on disk: a directory per storage id, holding segment files, delete
/// vector files and a manifest that lists the committed ones with their commit sequence numbers; and a
/// directory of prepared transactions, whose records say what each one will commit. A commit writes its
/// files first and then replaces the manifest (written aside and renamed), so a crash leaves the old
/// contents or the new, and files that neither a manifest nor a prepared record lists are removed. Thread-safe.
class PartitionStore {
 public:
  /// Partitions under `root`; prepared transactions beside it, in `root`'s sibling "transactions".
  explicit PartitionStore(std::filesystem::path root);

  /// Writes `segment` (id `segmentId`) of `partition` as a new file that no manifest lists yet; returns its
  /// name. A load writes its segments as it builds them, in parallel, and commits them all at once.
  std::string writeSegment(const TablePartition& partition, uint64_t segmentId, const Segment& segment);
  /// Makes written segment files durable.
  void syncSegments(uint64_t storageId, const std::vector<std::string>& files);
  /// TablePartition::commit's Persist: writes the new delete vectors, then the manifest; then removes the
  /// delete vector files it replaced.
  void persistCommit(const TablePartition& partition, std::vector<StoredSegment>& committed,
                     const std::vector<uint64_t>& newDeletes, uint64_t commitSeq);
  /// Lets go of the buffers kept between segment writes, once a load has committed.
  void releaseBuffers();
  /// Removes files written for a write that will not commit.
  void discardSegments(uint64_t storageId, const std::vector<std::string>& files);
  void remove(uint64_t storageId);

  /// A prepared transaction's record, durable when this returns.
  void writePrepared(uint64_t transactionId, const nlohmann::json& record);
  void removePrepared(uint64_t transactionId);
  /// The records of transactions prepared and not yet finished.
  std::vector<nlohmann::json> preparedRecords() const;

  /// Reads every stored partition. One whose files are damaged comes back empty and marked corrupted, with a
  /// message naming the file. Files that no manifest lists are removed, except those in `keep` (storage id,
  /// file name) that prepared transactions hold.
  std::vector<std::shared_ptr<TablePartition>> recover(SegmentMemory& memory,
                                                       const std::set<std::pair<uint64_t, std::string>>& keep);
  /// Reads one segment file of a partition (a prepared transaction's, at recovery).
  std::shared_ptr<const Segment> readSegment(const TablePartition& partition, const std::string& file,
                                             uint32_t numaNode, SegmentMemory& memory) const;

 private:
  std::filesystem::path directoryOf(uint64_t storageId) const;
  void writeManifest(const TablePartition& partition, const std::vector<StoredSegment>& committed) const;

  const std::filesystem::path root_;
  const std::filesystem::path transactions_;
  std::mutex mutex_;
  // Buffers of segment files on their way to disk, kept between writes (a few, as many as write at once);
  // let go when a load commits (releaseBuffers), so that an idle worker's memory is its data.
  std::vector<AlignedBuffer> spareBuffers_;  // guarded by mutex_
};

}  // namespace shoal::worker
