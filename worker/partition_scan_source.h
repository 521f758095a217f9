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
  PartitionScanSource(const sql::LogicalScan& scan, std::shared_ptr<const TablePartition> partition,
                      std::vector<VisibleSegment> segments);

  size_t numMorsels() const override { return segments_.size(); }
  uint32_t morselNode(size_t morsel) const override { return segments_[morsel].segment->numaNode(); }
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override;
  bool absorbFilter(std::shared_ptr<const engine::FilterOperator> filter) override;

  /// Segments the zone maps ruled out (for tests and EXPLAIN ANALYZE).
  size_t skippedSegments() const { return skipped_; }

 private:
  std::shared_ptr<const TablePartition> partition_;  // keeps the segments alive
  std::vector<VisibleSegment> segments_;
  std::vector<size_t> columns_;
  std::vector<engine::LogicalType> types_;
  std::shared_ptr<const engine::FilterOperator> filter_;  // null: every row passes
  size_t skipped_ = 0;
};

}  // namespace shoal::worker
