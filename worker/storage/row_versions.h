#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "worker/storage/segment.h"

namespace shoal::worker {

/// What one read sees (snapshot isolation at segment granularity): the commits numbered up to `commitSeq` by
/// the coordinator's cluster-wide commit sequence, plus the uncommitted writes of its own transaction.
struct ReadSnapshot {
  static constexpr uint64_t kLatest = std::numeric_limits<uint64_t>::max();
  uint64_t commitSeq = kLatest;
  /// The write ids of the reading transaction's earlier statements, ascending; empty outside one.
  std::vector<uint64_t> ownWrites;

  bool owns(uint64_t writeId) const { return std::binary_search(ownWrites.begin(), ownWrites.end(), writeId); }
};

/// A row of a table partition, as UPDATE and DELETE name it: its segment's id (never reused within the
/// partition) and its position there.
inline constexpr unsigned kRowBits = 20;
static_assert((1u << kRowBits) > kSegmentRows);
inline uint64_t rowKeyOf(uint64_t segmentId, uint32_t row) {
  return segmentId << kRowBits | row;
}
inline uint64_t segmentOfRowKey(uint64_t key) {
  return key >> kRowBits;
}
inline uint32_t rowOfRowKey(uint64_t key) {
  return static_cast<uint32_t>(key & ((1u << kRowBits) - 1));
}

/// The rows of one segment that committed deletes removed, each with the commit that deleted it, ordered by
/// row. Immutable: a commit that deletes more replaces it whole, so that scans in flight keep theirs.
struct DeleteVector {
  std::vector<uint32_t> rows;
  std::vector<uint64_t> commitSeqs;

  size_t size() const { return rows.size(); }
  /// The commit that deleted `row`, or 0 when none did.
  uint64_t deletedBy(uint32_t row) const {
    auto it = std::lower_bound(rows.begin(), rows.end(), row);
    return it != rows.end() && *it == row ? commitSeqs[static_cast<size_t>(it - rows.begin())] : 0;
  }
};

/// A segment as one snapshot sees it: the rows it must skip, ordered (empty: all rows are there).
struct VisibleSegment {
  std::shared_ptr<const Segment> segment;
  uint64_t id = 0;
  std::vector<uint32_t> deletedRows;

  size_t liveRows() const { return segment->size() - deletedRows.size(); }
};

}  // namespace shoal::worker
