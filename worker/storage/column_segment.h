#pragma once

#include <cstddef>
#include <memory>

#include "engine/types/string_heap.h"
#include "engine/types/value.h"
#include "engine/vector/vector.h"
#include "worker/storage/numa_topology.h"

namespace shoal::worker {

/// Rows per segment: one morsel's worth, so that a scan hands whole segments to threads.
inline constexpr size_t kSegmentRows = 50 * engine::kVectorSize;  // 102,400

/// The min/max of a column segment's non-NULL values, so that scans can skip
/// segments a filter cannot match. min and max are NULL when every row is.
struct ZoneMap {
  engine::Value min;
  engine::Value max;
  size_t nullCount = 0;
};

/// One column of one segment, immutable once built. Fixed-width values sit in
/// one array and strings in 16-byte StringRefs (prefix inline, long bytes in
/// the segment's own heap), both allocated on the segment's NUMA node; NULLs
/// are a validity bitmap.
class ColumnSegment {
 public:
  /// Copies `numRows` rows, spread over `sources` in order, into a new segment on `numaNode`.
  ColumnSegment(const engine::LogicalType& type, std::span<const engine::Vector* const> sources, size_t numRows,
                uint32_t numaNode, const NumaTopology& topology);
  ~ColumnSegment();
  ColumnSegment(const ColumnSegment&) = delete;
  ColumnSegment& operator=(const ColumnSegment&) = delete;

  const engine::LogicalType& type() const { return type_; }
  size_t size() const { return numRows_; }
  uint32_t numaNode() const { return numaNode_; }
  const ZoneMap& zoneMap() const { return zoneMap_; }

  /// Copies rows [start, start + count) into `out`, which is resized to `count`.
  /// Strings are copied as handles: they stay valid while this segment lives.
  void read(size_t start, size_t count, engine::Vector& out) const;

  bool isNull(size_t row) const { return !validity_.isValid(row); }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(values_);
  }
  const engine::ValidityMask& validity() const { return validity_; }

  /// Bytes this segment holds (values, bitmap and string heap), for memory accounting.
  size_t memoryBytes() const;

 private:
  void computeZoneMap();

  engine::LogicalType type_;
  size_t numRows_;
  uint32_t numaNode_;
  const NumaTopology& topology_;
  void* values_ = nullptr;
  size_t valueBytes_ = 0;
  engine::ValidityMask validity_;
  engine::StringHeap heap_;
  ZoneMap zoneMap_;
};

}  // namespace shoal::worker
