#pragma once

#include <memory>
#include <vector>

#include "engine/vector/chunk.h"
#include "worker/storage/column_segment.h"

namespace shoal::worker {

/// Up to kSegmentRows rows of every column of a table partition, placed on one
/// NUMA node: the unit of placement, scanning (one morsel) and persistence.
class Segment {
 public:
  Segment(std::vector<std::unique_ptr<ColumnSegment>> columns, size_t numRows, uint32_t numaNode)
      : columns_(std::move(columns)), numRows_(numRows), numaNode_(numaNode) {}

  /// Builds a segment from `chunks`, whose rows (all of them) must number at most kSegmentRows.
  static std::unique_ptr<Segment> build(std::span<const engine::LogicalType> types,
                                        std::span<const engine::Chunk> chunks, uint32_t numaNode,
                                        SegmentMemory& memory);

  size_t size() const { return numRows_; }
  uint32_t numaNode() const { return numaNode_; }
  size_t numColumns() const { return columns_.size(); }
  const ColumnSegment& column(size_t index) const { return *columns_[index]; }

  /// Reads rows [start, start + count) of the given columns into `out` (one vector per listed column).
  void read(size_t start, size_t count, std::span<const size_t> columnIndexes, engine::Chunk& out) const;

  size_t memoryBytes() const;

 private:
  std::vector<std::unique_ptr<ColumnSegment>> columns_;
  size_t numRows_;
  uint32_t numaNode_;
};

}  // namespace shoal::worker
