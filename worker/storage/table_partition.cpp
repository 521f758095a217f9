#include "worker/storage/table_partition.h"

#include <algorithm>

#include "common/status.h"

namespace shoal::worker {

std::vector<engine::LogicalType> TablePartition::columnTypes() const {
  std::vector<engine::LogicalType> types;
  for (const auto& column : columns_) types.push_back(column.type);
  return types;
}

void TablePartition::appendSegments(std::vector<std::shared_ptr<const Segment>> segments) {
  std::lock_guard lock(mutex_);
  for (auto& segment : segments) segments_.push_back(std::move(segment));
}

std::vector<std::shared_ptr<const Segment>> TablePartition::snapshot() const {
  std::lock_guard lock(mutex_);
  return segments_;
}

size_t TablePartition::numRows() const {
  size_t rows = 0;
  for (const auto& segment : snapshot()) rows += segment->size();
  return rows;
}

size_t TablePartition::memoryBytes() const {
  size_t bytes = 0;
  for (const auto& segment : snapshot()) bytes += segment->memoryBytes();
  return bytes;
}

void TablePartition::checkReadable(std::span<const engine::LogicalType> plannedTypes) const {
  if (std::string why = corruption(); !why.empty()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "table \"{}\" cannot be read on this worker: {}", tableName_, why);
  }
  std::vector<engine::LogicalType> types = columnTypes();
  if (!std::equal(types.begin(), types.end(), plannedTypes.begin(), plannedTypes.end())) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "table \"{}\" on this worker does not have the planned columns",
                    tableName_);
  }
}

}  // namespace shoal::worker
