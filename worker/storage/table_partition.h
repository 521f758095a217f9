#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/types/logical_type.h"
#include "worker/storage/segment.h"

namespace shoal::worker {

struct StoredColumn {
  std::string name;
  engine::LogicalType type;
  bool notNull = false;
};

/// The rows of one table that live on this worker, as a list of immutable
/// segments. Loads append whole segments at commit; scans take a snapshot of
/// the list, so they never see half a load. Thread-safe.
class TablePartition {
 public:
  TablePartition(uint64_t storageId, std::string tableName, std::vector<StoredColumn> columns)
      : storageId_(storageId), tableName_(std::move(tableName)), columns_(std::move(columns)) {}

  uint64_t storageId() const { return storageId_; }
  const std::string& tableName() const { return tableName_; }
  const std::vector<StoredColumn>& columns() const { return columns_; }
  std::vector<engine::LogicalType> columnTypes() const;

  void appendSegments(std::vector<std::shared_ptr<const Segment>> segments);
  /// The committed segments as of now.
  std::vector<std::shared_ptr<const Segment>> snapshot() const;
  size_t numRows() const;
  size_t memoryBytes() const;

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
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Segment>> segments_;  // guarded by mutex_
  std::string corruption_;                                // guarded by mutex_
};

}  // namespace shoal::worker
