#pragma once

#include "engine/types/interval.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// The spans of a vector of intervals (interval.h's intervalSpan), NULLs kept: what intervals compare, hash
/// and partition by, so that '1 mon' = '30 days' and '25 hours' > '1 day'.
inline Vector intervalSpans(const Vector& intervals) {
  Vector spans(LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 0), intervals.size());
  spans.validity() = intervals.validity();
  const int128_t* packed = intervals.data<int128_t>();
  int128_t* out = spans.data<int128_t>();
  for (size_t row = 0; row < intervals.size(); ++row) out[row] = intervalSpan(packed[row]);
  return spans;
}

}  // namespace shoal::engine
