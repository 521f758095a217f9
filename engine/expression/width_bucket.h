#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

// width_bucket(operand, low, high, count): which of `count` equal-width buckets between low and high the
// operand falls in, 0 below them and count + 1 above (the buckets run the other way when low > high), as
// PostgreSQL 15 computes it: over double precision in its order of operations, or over numeric exactly (the
// truncated quotient of (operand - low) * count and high - low).

/// The three value vectors are all double precision or all of one DECIMAL type; `counts` is INTEGER.
/// Fails with 2201G for count <= 0, equal bounds, NaN or infinite bounds, and 22003 for count + 1 past
/// the integer range.
Vector evaluateWidthBucket(const Vector& operands, const Vector& lows, const Vector& highs, const Vector& counts);

}  // namespace shoal::engine
