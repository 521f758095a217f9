#pragma once

#include <cstdint>
#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/types/value.h"
#include "engine/vector/chunk.h"

namespace shoal::engine {

/// The values one group of an ordered-set aggregate (percentile_cont, percentile_disc, mode) has seen,
/// NULLs skipped, kept until the group is finished. Numbers stay unboxed: a median over millions of rows
/// is a selection over a flat array of doubles or integers (O(n), not a sort of boxed Values); other types
/// (text, wide decimals, uuids, intervals) are kept as Values and sorted.
class OrderedSetValues {
 public:
  /// Keeps the argument of `chunk`'s rows [firstRow, firstRow + count), all of this group, and the group's
  /// fraction from its first non-NULL row.
  void add(const GroupedAggregate& spec, const Chunk& chunk, size_t firstRow, size_t count);
  /// Takes over the values of `other` (another thread's values of the same group).
  void append(OrderedSetValues&& other);
  /// The aggregate's value, as PostgreSQL's orderedsetaggs.c computes it; NULL when no value was kept.
  /// Fails with 22003 for a fraction outside [0, 1].
  Value finish(const GroupedAggregate& spec);

 private:
  enum class Storage : uint8_t { kUnset, kDoubles, kIntegers, kValues };

  size_t size() const { return doubles_.size() + integers_.size() + values_.size(); }
  /// The value at `index` of the ascending order, after `select(index)` or a full sort placed it there.
  Value valueAt(const GroupedAggregate& spec, size_t index) const;
  /// Moves the value of ascending rank `index` to that index (nth_element): everything before it is not
  /// greater, everything after it not less.
  void select(size_t index);
  void sortAll();
  Value mode(const GroupedAggregate& spec, bool ascending);

  Storage storage_ = Storage::kUnset;
  std::vector<double> doubles_;
  std::vector<int64_t> integers_;  // integers, dates, timestamps and 64-bit decimals, unscaled
  std::vector<Value> values_;
  Value fraction_;  // percentile_cont/disc's direct argument, as the group's first row gave it
  size_t reservedBytes_ = 0;
};

}  // namespace shoal::engine
