#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "common/aligned_buffer.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// The table partitions of one worker on disk: a directory per storage id,
/// holding segment files and a manifest that lists the committed ones. A
/// commit writes its segment files first and then replaces the manifest
/// (written aside and renamed), so a crash leaves either the old contents or
/// the new, and files the manifest does not list are ignored and removed.
/// Thread-safe.
class PartitionStore {
 public:
  explicit PartitionStore(std::filesystem::path root);

  /// Writes `segment` of a partition as a new file that no manifest lists yet; returns its name. A load
  /// writes its segments as it builds them, in parallel, and commits them all at once.
  std::string writeSegment(uint64_t storageId, const std::string& tableName, const std::vector<StoredColumn>& columns,
                           const Segment& segment);
  /// Makes the files written for `partition` durable and lists them in its manifest, in one step.
  void commitSegments(const TablePartition& partition, const std::vector<std::string>& files);
  /// Lets go of the buffers kept between segment writes, once a load has committed.
  void releaseBuffers();
  /// Removes files written for a load that will not commit.
  void discardSegments(uint64_t storageId, const std::vector<std::string>& files);
  void remove(uint64_t storageId);

  /// Reads every stored partition. One whose files are damaged comes back
  /// empty and marked corrupted, with a message naming the file.
  std::vector<std::shared_ptr<TablePartition>> recover(SegmentMemory& memory);

 private:
  std::filesystem::path directoryOf(uint64_t storageId) const;
  void writeManifest(const TablePartition& partition, const std::vector<std::string>& files) const;

  const std::filesystem::path root_;
  std::mutex mutex_;
  // Buffers of segment files on their way to disk, kept between writes (a few, as many as write at once);
  // let go when a load commits (releaseBuffers), so that an idle worker's memory is its data.
  std::vector<AlignedBuffer> spareBuffers_;             // guarded by mutex_
  std::map<uint64_t, std::vector<std::string>> files_;  // guarded by mutex_: committed segment files per storage id
  std::map<uint64_t, uint64_t> nextFileNumber_;         // guarded by mutex_: per storage id, never reused
};

}  // namespace shoal::worker
