#pragma once

// The frames of one partition's rows: which rows each window function call sees from each row. Internal to
// engine/window.

#include <array>
#include <cstddef>
#include <vector>

#include "engine/sort/sort.h"
#include "engine/vector/chunk.h"
#include "engine/window/window_function.h"

namespace shoal::engine::window {

/// Rows [begin, end) of a sorted chunk that share their PARTITION BY values, with their peer groups (rows
/// equal on every ORDER BY key; without ORDER BY all rows are peers).
struct Partition {
  const Chunk& rows;
  size_t begin;
  size_t end;
  /// The first row of each peer group, then `end`.
  std::vector<size_t> groupStarts;
  /// The peer group of each row (indexed by row - begin).
  std::vector<uint32_t> groupOf;

  size_t size() const { return end - begin; }
  size_t peerStart(size_t row) const { return groupStarts[groupOf[row - begin]]; }
  size_t peerEnd(size_t row) const { return groupStarts[groupOf[row - begin] + 1]; }
};

/// Makes `partition` (over its chunk) rows [begin, end), sorted on `order`, with their peer groups; its
/// buffers are reused from one partition to the next.
void findPeers(size_t begin, size_t end, const std::vector<SortColumn>& order, Partition& partition);

/// A frame: at most three runs of rows, in order (a frame less its EXCLUDE, which may keep the current row
/// between two runs).
struct FrameRows {
  std::array<std::pair<size_t, size_t>, 3> runs{};
  size_t count = 0;

  void add(size_t from, size_t to) {
    if (from < to) runs[count++] = {from, to};
  }
  size_t size() const {
    size_t rows = 0;
    for (size_t i = 0; i < count; ++i) rows += runs[i].second - runs[i].first;
    return rows;
  }
  /// The frame's n-th row (0-based), which must exist.
  size_t at(size_t n) const;
  bool operator==(const FrameRows& other) const {
    if (count != other.count) return false;
    for (size_t i = 0; i < count; ++i) {
      if (runs[i] != other.runs[i]) return false;
    }
    return true;
  }
};

/// The frame of `row` in `partition`. `order` is the ORDER BY (a RANGE frame with an offset compares its
/// first key's direction and NULL placement).
FrameRows frameOf(const WindowFrame& frame, const Partition& partition, const std::vector<SortColumn>& order,
                  size_t row);

/// Whether every row's frame starts at the partition's start and ends no earlier than the previous row's,
/// in one run: then an aggregate can fold rows in as the frame grows.
bool isGrowingFrame(const WindowFrame& frame);

}  // namespace shoal::engine::window
