#pragma once

#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/types/value.h"
#include "engine/vector/chunk.h"

namespace shoal::engine {

/// The rows one group of array_agg or string_agg has seen: each row's argument, delimiter and ORDER BY
/// keys. Such aggregates cannot be folded into a fixed-size state: their result depends on every value
/// and on the values' order, so the rows are kept until the group is finished, then sorted by the
/// aggregate's ORDER BY (stably: rows tied on it keep their input order, as PostgreSQL's sort does for
/// small inputs) and turned into the result.
class CollectedValues {
 public:
  /// Keeps row `row` of `chunk`. string_agg skips NULL values; array_agg keeps them as elements.
  void add(const GroupedAggregate& spec, const Chunk& chunk, size_t row);
  /// Takes over the rows of `other` (another thread's rows of the same group), after this one's.
  void append(CollectedValues&& other);
  /// The aggregate's value: an array of `resultType`, or the values joined by their delimiters. NULL
  /// when no row (string_agg: no non-NULL value) was kept. Under DISTINCT, equal values count once.
  Value finish(const GroupedAggregate& spec);

 private:
  /// The ORDER BY keys (and, under DISTINCT, the argument) decide the order of rows a and b.
  bool rowLess(const GroupedAggregate& spec, size_t a, size_t b) const;
  const Value& argument(size_t row) const { return values_[row * stride_]; }
  /// string_agg keeps each row's delimiter beside its value; array_agg's second argument is its FILTER, which
  /// decides whether a row is kept at all.
  static bool hasDelimiter(const GroupedAggregate& spec) {
    return spec.function == AggregateFunction::kStringAgg && spec.secondArgumentColumn.has_value();
  }
  const Value* delimiter(const GroupedAggregate& spec, size_t row) const {
    return hasDelimiter(spec) ? &values_[row * stride_ + 1] : nullptr;
  }

  // Every row's values side by side, `stride_` per row: the argument, string_agg's delimiter, then the
  // ORDER BY keys. One allocation per group, not one per row: string_agg over 1.5M small groups spent
  // most of its time in malloc and free.
  size_t stride_ = 0;
  std::vector<Value> values_;
};

}  // namespace shoal::engine
