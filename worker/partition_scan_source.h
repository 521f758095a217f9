#pragma once

#include <memory>
#include <vector>

#include "engine/pipeline/pipeline.h"
#include "sql/plan/logical_operator.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// A plan's table scan over this worker's partition: one morsel per segment
/// (about 100k rows), on the segment's NUMA node. Segments whose zone maps
/// prove that a filter of the form `column op constant` cannot hold are
/// skipped without being read. The scan applies its filter itself (absorbFilter):
/// it reads the columns the filter needs, and the others only for the rows that pass. Rows the snapshot
/// sees deleted are skipped the same way.
class PartitionScanSource final : public engine::ChunkSource {
 public:
  /// `partition` null: this worker holds no rows of the table. `segments`: the partition's segments as the
  /// query's snapshot sees them (StorageManager::visible).
  /// `rowTag`: what the scan's row ids (sql::kRowIdColumn, its last column if any) say of this worker.
  PartitionScanSource(const sql::LogicalScan& scan, std::shared_ptr<const TablePartition> partition,
                      std::vector<VisibleSegment> segments, uint32_t rowTag = 0);

  size_t numMorsels() const override { return segments_.size(); }
  uint32_t morselNode(size_t morsel) const override { return segments_[morsel].segment->numaNode(); }
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override;
  bool absorbFilter(std::shared_ptr<const engine::FilterOperator> filter) override;

  /// Segments the zone maps ruled out (for tests and EXPLAIN ANALYZE).
  size_t skippedSegments() const { return skipped_; }

 private:
  std::shared_ptr<const TablePartition> partition_;  // keeps the segments alive
  std::vector<VisibleSegment> segments_;
  /// Appends the row ids of the rows `chunk` holds to it: `offsets` into the vector at `start` (null: all).
  void appendRowIds(engine::Chunk& chunk, uint64_t segmentId, size_t start, const std::vector<uint32_t>* offsets) const;

  std::vector<size_t> columns_;  // table columns read, without the row id
  bool rowIds_ = false;          // the scan's last column is the row id
  uint64_t rowTag_ = 0;
  std::vector<engine::LogicalType> types_;
  std::shared_ptr<const engine::FilterOperator> filter_;  // null: every row passes
  size_t skipped_ = 0;
};

}  // namespace shoal::worker
