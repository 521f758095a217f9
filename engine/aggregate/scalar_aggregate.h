#pragma once

#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/vector/chunk.h"

namespace shoal::engine {

/// The running state of one aggregate over all the rows of a query without
/// GROUP BY. Each worker keeps one per aggregate and sends it as a partial
/// state (one row of kPartialColumns columns); the coordinator merges the
/// partial states and finalizes.
class ScalarAggregate {
 public:
  /// Columns of the partial state: row count, sum, min, max.
  static constexpr size_t kPartialColumns = 4;

  ScalarAggregate(AggregateFunction function, LogicalType argumentType, LogicalType resultType);

  /// The types of the partial-state columns.
  std::vector<LogicalType> partialTypes() const;

  /// Adds `numRows` rows: the argument's values (ignored, may be null, for COUNT(*)).
  void update(const Vector* argument, size_t numRows);
  /// Appends the partial state to `out` as kPartialColumns one-row columns.
  void writePartial(Chunk& out) const;
  /// Merges a partial state read from row `row` of columns [firstColumn, firstColumn + kPartialColumns) of `in`.
  void mergePartial(const Chunk& in, size_t row, size_t firstColumn);
  /// Folds in the state of other rows given by its parts: non-NULL row count, integer (or decimal) sum at the
  /// argument's scale, whether that sum overflowed, double sum, and the extremes (NULL values when none).
  void mergeState(int64_t count, __int128 integerSum, bool sumOverflow, double doubleSum, const Value& min,
                  const Value& max);
  /// The aggregate's value. Fails with 22003 when a sum overflows its result type.
  Value finalize() const;

 private:
  void mergeMinMax(const Value& candidateMin, const Value& candidateMax);
  /// Two partial double sums added: rounded to float for sum(real), as float4pl does.
  double addDoubles(double a, double b) const;
  LogicalType sumType() const;

  AggregateFunction function_;
  LogicalType argumentType_;
  LogicalType resultType_;
  int64_t count_ = 0;
  __int128 integerSum_ = 0;  // integers and decimals, at the argument's scale
  bool sumOverflow_ = false;
  double doubleSum_ = 0;
  Value min_;
  Value max_;
};

/// Three-way comparison of two non-NULL values of one type (strings byte-wise, NaN above all numbers).
int compareValues(const Value& a, const Value& b);

}  // namespace shoal::engine
