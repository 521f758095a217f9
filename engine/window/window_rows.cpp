#include "engine/window/window_rows.h"

#include <algorithm>
#include <bit>
#include <tuple>

namespace shoal::engine::window {
namespace {

/// Orders rows on the partition keys, then the ORDER BY keys.
class RowOrder {
 public:
  RowOrder(const std::vector<const Chunk*>& chunks, std::vector<SortColumn> keys)
      : chunks_(chunks), keys_(std::move(keys)) {}

  bool operator()(const RowRef& left, const RowRef& right) const {
    if (left.hash != right.hash) return left.hash < right.hash;
    for (const auto& key : keys_) {
      const Vector& a = chunks_[left.chunk]->column(key.column);
      const Vector& b = chunks_[right.chunk]->column(key.column);
      const bool nullA = a.isNull(left.row);
      const bool nullB = b.isNull(right.row);
      if (nullA || nullB) {
        if (nullA && nullB) continue;
        return nullA == key.nullsFirst;
      }
      const int order = compareNonNullAt(a, left.row, b, right.row);
      if (order != 0) return key.ascending ? order < 0 : order > 0;
    }
    return false;
  }

 private:
  const std::vector<const Chunk*>& chunks_;
  std::vector<SortColumn> keys_;
};

/// Puts rows of one hash together, ordered among themselves as they were, by a radix pass over the hash bits
/// below the top five (the window's bucket, the same for all its rows) and then a sort of each radix bucket.
void groupByHash(std::vector<RowRef>& rows) {
  const auto byHashThenPlace = [](const RowRef& a, const RowRef& b) {
    return std::tie(a.hash, a.chunk, a.row) < std::tie(b.hash, b.chunk, b.row);
  };
  // About two rows per radix bucket, at most 2^16 buckets; few rows sort directly.
  const int bits = std::min(16, static_cast<int>(std::bit_width(rows.size() / 2)));
  if (bits < 8) {
    std::sort(rows.begin(), rows.end(), byHashThenPlace);
    return;
  }
  const int shift = 59 - bits;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  std::vector<uint32_t> starts((size_t{1} << bits) + 1, 0);
  for (const RowRef& row : rows) ++starts[((row.hash >> shift) & mask) + 1];
  for (size_t bucket = 1; bucket < starts.size(); ++bucket) starts[bucket] += starts[bucket - 1];
  std::vector<uint32_t> next(starts.begin(), starts.end() - 1);
  std::vector<RowRef> grouped(rows.size());
  for (const RowRef& row : rows) grouped[next[(row.hash >> shift) & mask]++] = row;
  for (size_t bucket = 0; bucket + 1 < starts.size(); ++bucket) {
    if (starts[bucket + 1] - starts[bucket] > 1) {
      std::sort(grouped.begin() + starts[bucket], grouped.begin() + starts[bucket + 1], byHashThenPlace);
    }
  }
  rows.swap(grouped);
}

/// A stable sort that allocates nothing for the short runs (a partition's rows) it mostly sees.
void stableSortRun(std::vector<RowRef>::iterator begin, std::vector<RowRef>::iterator end, const RowOrder& order) {
  if (end - begin > 32) {
    std::stable_sort(begin, end, order);
    return;
  }
  for (auto next = begin + 1; next < end; ++next) {
    const RowRef row = *next;
    auto at = next;
    for (; at > begin && order(row, *(at - 1)); --at) *at = *(at - 1);
    *at = row;
  }
}

}  // namespace

void sortRows(const std::vector<const Chunk*>& chunks, const std::vector<SortColumn>& keys, bool hashed,
              std::vector<RowRef>& rows) {
  const RowOrder order(chunks, keys);
  if (!hashed) {
    std::stable_sort(rows.begin(), rows.end(), order);
    return;
  }
  groupByHash(rows);
  // A run of one hash holds one partition but for a collision; its rows sort on the keys.
  for (size_t begin = 0; begin < rows.size();) {
    size_t end = begin + 1;
    while (end < rows.size() && rows[end].hash == rows[begin].hash) ++end;
    if (end - begin > 1) stableSortRun(rows.begin() + begin, rows.begin() + end, order);
    begin = end;
  }
}

}  // namespace shoal::engine::window
