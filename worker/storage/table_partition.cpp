#include "worker/storage/table_partition.h"

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

}  // namespace shoal::worker
