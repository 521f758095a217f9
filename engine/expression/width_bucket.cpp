#include "engine/expression/width_bucket.h"

#include <cmath>
#include <limits>

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/uint256.h"

namespace shoal::engine {
namespace {

[[noreturn]] void failBucket(std::string_view message) {
  SHOAL_USER_FAIL(SqlState::kInvalidArgumentForWidthBucket, "{}", message);
}

int32_t aboveTheLast(int32_t count) {
  if (count == std::numeric_limits<int32_t>::max()) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "integer out of range");
  }
  return count + 1;
}

/// width_bucket_float8.
int32_t doubleBucket(double operand, double low, double high, int32_t count) {
  if (count <= 0) failBucket("count must be greater than zero");
  if (std::isnan(operand) || std::isnan(low) || std::isnan(high)) {
    failBucket("operand, lower bound, and upper bound cannot be NaN");
  }
  if (std::isinf(low) || std::isinf(high)) failBucket("lower and upper bounds must be finite");
  if (low == high) failBucket("lower bound cannot equal upper bound");
  const bool ascending = low < high;
  if (ascending ? operand < low : operand > low) return 0;
  if (ascending ? operand >= high : operand <= high) return aboveTheLast(count);
  // PostgreSQL 15's arithmetic, multiplication first and no guard: a span beyond the double range gives
  // inf / inf, which its cast to integer turns into INT_MIN (PostgreSQL 16 halves the values first).
  const double bucket = ascending ? static_cast<double>(count) * (operand - low) / (high - low) + 1
                                  : static_cast<double>(count) * (low - operand) / (low - high) + 1;
  if (!(bucket >= std::numeric_limits<int32_t>::min() && bucket < 2147483648.0)) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(bucket);
}

/// width_bucket_numeric: operand, low and high are unscaled values of one scale, so their differences are
/// exact; (operand - low) * count / (high - low) is truncated in 256 bits when it outgrows 128.
int32_t decimalBucket(int128_t operand, int128_t low, int128_t high, int32_t count) {
  if (count <= 0) failBucket("count must be greater than zero");
  if (low == high) failBucket("lower bound cannot equal upper bound");
  const bool ascending = low < high;
  if (ascending ? operand < low : operand > low) return 0;
  if (ascending ? operand >= high : operand <= high) return aboveTheLast(count);
  // Both differences are positive and below 2 * 10^38, which fits an unsigned 128-bit integer.
  using u128 = unsigned __int128;
  const u128 offset = ascending ? static_cast<u128>(operand) - static_cast<u128>(low)
                                : static_cast<u128>(low) - static_cast<u128>(operand);
  const u128 span =
      ascending ? static_cast<u128>(high) - static_cast<u128>(low) : static_cast<u128>(low) - static_cast<u128>(high);
  u128 product = 0;
  u128 bucket = 0;
  if (!__builtin_mul_overflow(offset, static_cast<u128>(count), &product)) {
    bucket = product / span;
  } else {
    UInt256 quotient;
    UInt256 remainder;
    UInt256::product(offset, static_cast<u128>(count)).divide(UInt256::of(span), quotient, remainder);
    bucket = quotient.low;
  }
  return static_cast<int32_t>(bucket) + 1;  // offset < span, so bucket < count
}

}  // namespace

Vector evaluateWidthBucket(const Vector& operands, const Vector& lows, const Vector& highs, const Vector& counts) {
  const size_t numRows = operands.size();
  Vector out(LogicalType::integer(), numRows);
  const LogicalType& type = operands.type();
  auto valueAt = [&](const Vector& values, size_t row) -> int128_t {
    return withDecimalStorage(type, [&](auto tag) { return int128_t{values.data<decltype(tag)>()[row]}; });
  };
  for (size_t row = 0; row < numRows; ++row) {
    if (operands.isNull(row) || lows.isNull(row) || highs.isNull(row) || counts.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const int32_t count = counts.data<int32_t>()[row];
    out.data<int32_t>()[row] =
        type.id() == TypeId::kDouble
            ? doubleBucket(operands.data<double>()[row], lows.data<double>()[row], highs.data<double>()[row], count)
            : decimalBucket(valueAt(operands, row), valueAt(lows, row), valueAt(highs, row), count);
  }
  return out;
}

}  // namespace shoal::engine
