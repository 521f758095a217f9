#pragma once

#include "engine/types/logical_type.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// Which statistic kNumericVariance finishes (its last, constant argument).
enum class VarianceKind : int32_t { kVarPop = 0, kVarSamp = 1, kStddevPop = 2, kStddevSamp = 3 };

/// The variance or standard deviation of integers or decimals, exactly, from the count, the sum (at the
/// argument's scale s) and the sum of squares (at scale 2s) of their values: PostgreSQL computes these over
/// numeric sums too (numeric_stddev_internal), so the result is (N Sxx - Sx^2) / (N (N - 1)), or / N^2 for
/// the population, rounded half away from zero at `resultType`'s scale, and its square root correctly
/// rounded. NULL for fewer than two values (one for the population ones). Fails with 22003 when the result
/// does not fit `resultType`.
Vector evaluateNumericVariance(const Vector& counts, const Vector& sums, const Vector& squares, VarianceKind kind,
                               const LogicalType& resultType);

}  // namespace shoal::engine
