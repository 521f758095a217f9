#include "engine/window/window_frame.h"

#include <algorithm>

#include "common/check.h"

namespace shoal::engine::window {
namespace {

/// Rows a and b of `rows` compare equal on every key (NULLs equal to each other).
bool samePeers(const Chunk& rows, size_t a, size_t b, const std::vector<SortColumn>& order) {
  for (const auto& key : order) {
    const Vector& column = rows.column(key.column);
    const bool nullA = column.isNull(a);
    const bool nullB = column.isNull(b);
    if (nullA || nullB) {
      if (nullA != nullB) return false;
      continue;
    }
    if (compareNonNullAt(column, a, column, b) != 0) return false;
  }
  return true;
}

/// Three-way comparison of key(row) with bound(of) in the sort's order (direction and NULL placement).
int compareInOrder(const Vector& keys, size_t row, const Vector& bounds, size_t of, const SortColumn& key) {
  const bool nullKey = keys.isNull(row);
  const bool nullBound = bounds.isNull(of);
  if (nullKey || nullBound) {
    if (nullKey == nullBound) return 0;
    return nullKey == key.nullsFirst ? -1 : 1;
  }
  const int order = compareNonNullAt(keys, row, bounds, of);
  return key.ascending ? order : -order;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? (b > 0 ? INT64_MAX : INT64_MIN) : sum;
}

size_t clampTo(int64_t position, size_t begin, size_t end) {
  if (position < static_cast<int64_t>(begin)) return begin;
  if (position > static_cast<int64_t>(end)) return end;
  return static_cast<size_t>(position);
}

/// RANGE with an offset: the first row whose key is not before the row's bound (`inclusiveEnd` false), or the
/// first after it (true). Keys are sorted, so a binary search finds it.
size_t searchRange(const Partition& partition, const WindowFrame& frame, const FrameEnd& end,
                   const SortColumn& orderKey, size_t row, bool inclusiveEnd) {
  const Vector& keys = partition.rows.column(*frame.rangeKeyColumn);
  const Vector& bounds = partition.rows.column(*end.boundColumn);
  size_t low = partition.begin;
  size_t high = partition.end;
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    const int order = compareInOrder(keys, middle, bounds, row, orderKey);
    if (order < 0 || (inclusiveEnd && order == 0)) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Where the frame of `row` starts (`isStart`) or ends (exclusively).
size_t boundary(const WindowFrame& frame, const FrameEnd& end, bool isStart, const Partition& partition,
                const std::vector<SortColumn>& order, size_t row) {
  const auto current = static_cast<int64_t>(row);
  switch (end.bound) {
    case FrameBound::kUnboundedPreceding:
      return partition.begin;
    case FrameBound::kUnboundedFollowing:
      return partition.end;
    case FrameBound::kCurrentRow:
      if (frame.unit == FrameUnit::kRows) return isStart ? row : row + 1;
      return isStart ? partition.peerStart(row) : partition.peerEnd(row);
    case FrameBound::kPreceding:
    case FrameBound::kFollowing:
      break;
  }
  const bool preceding = end.bound == FrameBound::kPreceding;
  switch (frame.unit) {
    case FrameUnit::kRows: {
      const int64_t offset = preceding ? -end.count : end.count;
      return clampTo(saturatingAdd(saturatingAdd(current, offset), isStart ? 0 : 1), partition.begin, partition.end);
    }
    case FrameUnit::kGroups: {
      const auto group = static_cast<int64_t>(partition.groupOf[row - partition.begin]);
      const auto groups = static_cast<int64_t>(partition.groupStarts.size() - 1);
      const int64_t target = saturatingAdd(group, preceding ? -end.count : end.count);
      if (isStart) {
        if (target < 0) return partition.begin;
        return target >= groups ? partition.end : partition.groupStarts[static_cast<size_t>(target)];
      }
      if (target < 0) return partition.begin;
      return partition.groupStarts[static_cast<size_t>(std::min(target, groups - 1)) + 1];
    }
    case FrameUnit::kRange:
      SHOAL_CHECK(frame.rangeKeyColumn && end.boundColumn && !order.empty(), "RANGE offset without its columns");
      return searchRange(partition, frame, end, order[0], row, !isStart);
  }
  return partition.begin;
}

}  // namespace

void findPeers(size_t begin, size_t end, const std::vector<SortColumn>& order, Partition& partition) {
  const Chunk& rows = partition.rows;
  partition.begin = begin;
  partition.end = end;
  partition.groupOf.resize(end - begin);
  partition.groupStarts.clear();
  uint32_t group = 0;
  partition.groupStarts.push_back(begin);
  for (size_t row = begin; row < end; ++row) {
    if (row > begin && !samePeers(rows, row - 1, row, order)) {
      ++group;
      partition.groupStarts.push_back(row);
    }
    partition.groupOf[row - begin] = group;
  }
  partition.groupStarts.push_back(end);
}

size_t FrameRows::at(size_t n) const {
  for (size_t i = 0; i < count; ++i) {
    const size_t length = runs[i].second - runs[i].first;
    if (n < length) return runs[i].first + n;
    n -= length;
  }
  SHOAL_CHECK(false, "frame row {} out of range", n);
  return 0;
}

FrameRows frameOf(const WindowFrame& frame, const Partition& partition, const std::vector<SortColumn>& order,
                  size_t row) {
  const size_t start = boundary(frame, frame.start, true, partition, order, row);
  const size_t end = std::max(start, boundary(frame, frame.end, false, partition, order, row));
  FrameRows rows;
  switch (frame.exclusion) {
    case FrameExclusion::kNoOthers:
      rows.add(start, end);
      return rows;
    case FrameExclusion::kCurrentRow:
      rows.add(start, std::min(end, row));
      rows.add(std::max(start, row + 1), end);
      return rows;
    case FrameExclusion::kGroup:
    case FrameExclusion::kTies: {
      const size_t peerStart = partition.peerStart(row);
      const size_t peerEnd = partition.peerEnd(row);
      rows.add(start, std::min(end, peerStart));
      if (frame.exclusion == FrameExclusion::kTies && row >= start && row < end) rows.add(row, row + 1);
      rows.add(std::max(start, peerEnd), end);
      return rows;
    }
  }
  return rows;
}

bool isGrowingFrame(const WindowFrame& frame) {
  if (frame.start.bound != FrameBound::kUnboundedPreceding || frame.exclusion != FrameExclusion::kNoOthers) {
    return false;
  }
  // Every end moves forward with the row: a fixed offset from it, its peers, a RANGE bound over sorted keys.
  return true;
}

}  // namespace shoal::engine::window
