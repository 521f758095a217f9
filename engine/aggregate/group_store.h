#pragma once

// The rows of a hash aggregation's groups and where their aggregate states live: shared by the table
// (hash_aggregation.cpp) and the state updates (aggregate_states.cpp). Internal to engine/aggregate.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "engine/aggregate/collected_values.h"
#include "engine/aggregate/distinct_sketch.h"
#include "engine/aggregate/moments.h"
#include "engine/aggregate/ordered_set_values.h"
#include "engine/aggregate/quantile_sketch.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/string_heap.h"
#include "engine/vector/vector.h"

namespace shoal::engine::aggregation {

/// Every group row starts with its hash.
inline constexpr size_t kGroupHashOffset = 0;

/// The running state of one aggregate in one group row.
struct AggregateState {
  union {
    __int128 integer;  // sum (at the argument's scale), or extreme, of integers, decimals, dates and booleans
    double real;       // sum or extreme of doubles
    unsigned char text[sizeof(StringRef)];  // extreme of strings (a StringRef, copied with memcpy)
  };
  int64_t count;       // non-NULL values seen
  uint32_t sideIndex;  // 1-based index of the table's side state (DISTINCT: its set of seen values;
                       // array_agg, string_agg: its CollectedValues; ordered-set aggregates: its
                       // OrderedSetValues; moments; sketches); 0: none yet
  uint8_t hasValue;    // an extreme has been seen
  uint8_t overflow;    // the integer sum overflowed 128 bits
};
static_assert(sizeof(AggregateState) == 32);

inline StringRef loadText(const AggregateState& state) {
  StringRef ref;
  std::memcpy(&ref, state.text, sizeof(ref));
  return ref;
}

inline void storeText(AggregateState& state, const StringRef& ref) {
  std::memcpy(state.text, &ref, sizeof(ref));
}

/// NaN sorts above every number, as in PostgreSQL.
inline bool doubleLess(double a, double b) {
  return std::isnan(b) ? !std::isnan(a) : a < b;
}

inline double normalizedDouble(double value) {
  if (value == 0) return 0;  // -0.0 groups with 0.0
  if (std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

inline AggregateState& stateAt(uint8_t* row, size_t offset) {
  return *reinterpret_cast<AggregateState*>(row + offset);
}

inline uint64_t hashOf(const uint8_t* row) {
  uint64_t hash;
  std::memcpy(&hash, row + kGroupHashOffset, sizeof(hash));
  return hash;
}

/// The groups of one partition of one thread's table (or of the merged result):
/// fixed-width rows in insertion order, found through an open-addressing index.
class GroupTable {
 public:
  explicit GroupTable(size_t rowWidth) : rowWidth_(rowWidth) {}

  size_t size() const { return count_; }
  uint8_t* row(size_t group) { return rows_.data() + group * rowWidth_; }

  /// The group whose row `equals` accepts, or a new one that `init` fills (hash first).
  template <class Equals, class Init>
  uint32_t findOrInsert(uint64_t hash, Equals&& equals, Init&& init) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const uint64_t tag = hash & kTagMask;
    for (size_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
      uint64_t entry = slots_[slot];
      if (entry == 0) {
        auto group = static_cast<uint32_t>(count_);
        size_t capacity = rows_.capacity();
        rows_.resize(rows_.size() + rowWidth_);
        if (rows_.capacity() != capacity) reserveQueryMemory(rows_.capacity() - capacity);
        uint8_t* fresh = row(group);
        std::memset(fresh, 0, rowWidth_);
        std::memcpy(fresh + kGroupHashOffset, &hash, sizeof(hash));
        init(fresh);
        slots_[slot] = tag | (count_ + 1);
        ++count_;
        return group;
      }
      if ((entry & kTagMask) == tag) {
        auto group = static_cast<uint32_t>((entry & ~kTagMask) - 1);
        if (equals(row(group))) return group;
      }
    }
  }

  size_t memoryBytes() const { return rows_.capacity() + slots_.capacity() * sizeof(uint64_t); }

  /// Makes room for `groups` groups in all, so that inserting them never rehashes or moves rows.
  void reserve(size_t groups) {
    const size_t rowBytes = groups * rowWidth_;
    if (rowBytes > rows_.capacity()) {
      reserveQueryMemory(rowBytes - rows_.capacity());
      rows_.reserve(rowBytes);
    }
    if (groups * 2 > slots_.size()) grow(std::bit_ceil(groups * 2));
  }

  /// Starts loading the slot a lookup of `hash` reads first.
  void prefetchSlot(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  /// Starts loading the group that slot points to, when its tag matches `hash`.
  void prefetchGroup(uint64_t hash) const {
    if (slots_.empty()) return;
    uint64_t entry = slots_[hash & mask_];
    if (entry != 0 && (entry & kTagMask) == (hash & kTagMask)) {
      __builtin_prefetch(rows_.data() + ((entry & ~kTagMask) - 1) * rowWidth_);
    }
  }

 private:
  // The hash's upper 24 bits beside the group number + 1 (0: empty slot).
  static constexpr uint64_t kTagMask = 0xffffff0000000000ULL;

  void grow(size_t capacity = 0) {
    capacity = std::max<size_t>({64, slots_.size() * 2, capacity});
    reserveQueryMemory((capacity - slots_.size()) * sizeof(uint64_t));
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (size_t group = 0; group < count_; ++group) {
      uint64_t hash = hashOf(row(group));
      size_t slot = hash & mask_;
      while (slots_[slot] != 0) slot = (slot + 1) & mask_;
      slots_[slot] = (hash & kTagMask) | (group + 1);
    }
  }

  size_t rowWidth_;
  std::vector<uint8_t> rows_;
  size_t count_ = 0;
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

/// One thread's groups, or the merged groups of one partition.
struct GroupStore {
  GroupStore(size_t numPartitions, size_t rowWidth) {
    for (size_t p = 0; p < numPartitions; ++p) partitions.emplace_back(rowWidth);
  }
  std::vector<GroupTable> partitions;
  /// Key strings and string extremes that do not fit inline.
  StringHeap heap;
  /// DISTINCT aggregates' seen values (key bytes), by AggregateState::sideIndex - 1.
  std::vector<std::set<std::string>> distinctSets;
  /// Collecting aggregates' rows, by AggregateState::sideIndex - 1.
  std::vector<CollectedValues> collections;
  /// Ordered-set aggregates' values, by AggregateState::sideIndex - 1.
  std::vector<OrderedSetValues> orderedSets;
  /// Statistical aggregates' moments, by AggregateState::sideIndex - 1.
  std::vector<Moments> moments;
  /// approx_count_distinct's and approx_percentile's sketches, by AggregateState::sideIndex - 1.
  std::vector<DistinctSketch> distinctSketches;
  std::vector<QuantileSketch> quantileSketches;
};

/// The rows [first, first + count) of a chunk that one pass of the sink works on
/// (chunks may hold more than kVectorSize rows); groups[i] is row first + i's group.
struct Window {
  size_t first;
  size_t count;
  uint8_t* const* groups;
};

/// Calls `body(row, group)` for each row of the window where `argument` is not NULL.
template <class Body>
void forValidRows(const Vector& argument, const Window& window, Body&& body) {
  // Only the window's rows: a window function folds rows deep into a long chunk, a few at a time.
  const bool allValid = argument.validity().allValidIn(window.first, window.count);
  for (size_t i = 0; i < window.count; ++i) {
    size_t row = window.first + i;
    if (allValid || !argument.isNull(row)) body(row, window.groups[i]);
  }
}

}  // namespace shoal::engine::aggregation
