#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

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

  /// Makes `newSegments` of `partition` durable before they become visible.
  void persist(const TablePartition& partition, std::span<const std::shared_ptr<const Segment>> newSegments);
  void remove(uint64_t storageId);

  /// Reads every stored partition. One whose files are damaged comes back
  /// empty and marked corrupted, with a message naming the file.
  std::vector<std::shared_ptr<TablePartition>> recover(const NumaTopology& topology);

 private:
  std::filesystem::path directoryOf(uint64_t storageId) const;
  void writeManifest(const TablePartition& partition, const std::vector<std::string>& files) const;

  const std::filesystem::path root_;
  std::mutex mutex_;
  std::map<uint64_t, std::vector<std::string>> files_;  // guarded by mutex_: committed segment files per storage id
};

}  // namespace shoal::worker
