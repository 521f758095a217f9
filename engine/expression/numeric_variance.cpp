#include "engine/expression/numeric_variance.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/status.h"
#include "engine/types/decimal.h"
#include "engine/types/uint256.h"

namespace shoal::engine {
namespace {

[[noreturn]] void outOfRange(const LogicalType& resultType) {
  // PostgreSQL's numeric result would carry fewer fraction digits; Shoal's numeric types have a fixed scale.
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange,
                  "the variance or standard deviation does not fit {}: cast the argument to double precision",
                  resultType.toString());
}

/// floor(numerator * 10^exponent / denominator), as long division so that the scaling never multiplies the
/// whole numerator first; nullopt when it outgrows 256 bits.
std::optional<UInt256> scaledQuotient(const UInt256& numerator, const UInt256& denominator, int exponent) {
  UInt256 whole;
  UInt256 remainder;
  numerator.divide(denominator, whole, remainder);
  std::optional<UInt256> wholeScaled = whole.timesPowerOfTen(exponent);
  std::optional<UInt256> remainderScaled = remainder.timesPowerOfTen(exponent);
  if (!wholeScaled || !remainderScaled) return std::nullopt;
  UInt256 fraction;
  UInt256 unused;
  remainderScaled->divide(denominator, fraction, unused);
  UInt256 sum = *wholeScaled + fraction;
  if (sum < *wholeScaled) return std::nullopt;
  return sum;
}

/// PostgreSQL's numeric digits are base 10000: a positive value's weight (the power of 10000 of its first
/// non-zero digit) and that digit, for the value `unscaled` / 10^scale.
struct BaseTenThousandLead {
  int weight;
  int firstDigit;
};

BaseTenThousandLead leadOf(const UInt256& unscaled, int scale) {
  const std::string digits = unscaled.toDecimalString();
  const int topPower = static_cast<int>(digits.size()) - 1 - scale;  // the value is in [10^top, 10^(top + 1))
  const int weight = topPower >= 0 ? topPower / 4 : -((-topPower + 3) / 4);
  const int leadingDigits = topPower - 4 * weight + 1;  // decimal digits in the first base-10000 digit
  return {weight, std::stoi(digits.substr(0, static_cast<size_t>(leadingDigits)))};
}

/// select_div_scale: the scale PostgreSQL gives a quotient, at least 16 significant digits.
int divisionScale(const UInt256& numerator, int numeratorScale, const UInt256& denominator) {
  const BaseTenThousandLead a = leadOf(numerator, numeratorScale);
  const BaseTenThousandLead b = leadOf(denominator, 0);
  int quotientWeight = a.weight - b.weight;
  if (a.firstDigit <= b.firstDigit) --quotientWeight;
  constexpr int kMinSignificantDigits = 16;
  return std::clamp(kMinSignificantDigits - quotientWeight * 4, numeratorScale, 1000);
}

/// Rounds half up a non-negative value that carries one digit too many.
UInt256 roundLastDigit(const UInt256& tenfold) {
  UInt256 rounded;
  UInt256 unused;
  (tenfold + UInt256::of(5)).divide(UInt256::of(10), rounded, unused);
  return rounded;
}

/// The statistic for one group, unscaled at `scale` (the result type's), or nullopt when it overflows. As
/// numeric_stddev_internal: the variance (N Sxx - Sx^2) / (N (N - 1)) is rounded at PostgreSQL's division
/// scale r, and the standard deviation is the root of that rounded variance, rounded at r too. The value is
/// then written at `scale`: exactly PostgreSQL's when r <= scale (spreads of about 1 and more), else
/// PostgreSQL's value rounded to `scale` digits (Shoal's numerics have a fixed scale).
std::optional<UInt256> statistic(int64_t count, __int128 sum, __int128 squares, int argumentScale, VarianceKind kind,
                                 int scale) {
  auto magnitude = [](__int128 value) {
    return value < 0 ? static_cast<unsigned __int128>(-(value + 1)) + 1 : static_cast<unsigned __int128>(value);
  };
  // N Sxx >= Sx^2 (Cauchy-Schwarz) holds exactly for these exact sums.
  const UInt256 numerator = UInt256::product(static_cast<unsigned __int128>(count), magnitude(squares)) -
                            UInt256::product(magnitude(sum), magnitude(sum));
  if (numerator.isZero()) return UInt256{};
  const bool sample = kind == VarianceKind::kVarSamp || kind == VarianceKind::kStddevSamp;
  const auto n = static_cast<unsigned __int128>(count);
  const UInt256 denominator = UInt256::product(n, sample ? n - 1 : n);
  const int numeratorScale = 2 * argumentScale;
  const int roundingScale = divisionScale(numerator, numeratorScale, denominator);
  // The variance at the rounding scale, one digit more to round with.
  std::optional<UInt256> tenfold = scaledQuotient(numerator, denominator, roundingScale + 1 - numeratorScale);
  if (!tenfold) return std::nullopt;
  UInt256 result = roundLastDigit(*tenfold);
  if (kind == VarianceKind::kStddevPop || kind == VarianceKind::kStddevSamp) {
    // sqrt(variance / 10^r) at scale r is sqrt(variance * 10^r); two more digits inside the root give the
    // rounding digit, and the floor of the root of the floor is the floor of the root.
    std::optional<UInt256> radicand = result.timesPowerOfTen(roundingScale + 2);
    if (!radicand) return std::nullopt;
    result = roundLastDigit(radicand->squareRoot());
  }
  if (roundingScale <= scale) return result.timesPowerOfTen(scale - roundingScale);
  // Fewer digits than PostgreSQL's: round half up at `scale`.
  std::optional<UInt256> divisor = UInt256::of(1).timesPowerOfTen(roundingScale - scale - 1);
  if (!divisor) return UInt256{};  // below 10^-scale by far
  UInt256 tenfoldResult;
  UInt256 unused;
  result.divide(*divisor, tenfoldResult, unused);
  return roundLastDigit(tenfoldResult);
}

}  // namespace

Vector evaluateNumericVariance(const Vector& counts, const Vector& sums, const Vector& squares, VarianceKind kind,
                               const LogicalType& resultType) {
  const int argumentScale = sums.type().id() == TypeId::kDecimal ? sums.type().scale() : 0;
  const bool sample = kind == VarianceKind::kVarSamp || kind == VarianceKind::kStddevSamp;
  Vector out(resultType, counts.size());
  for (size_t row = 0; row < counts.size(); ++row) {
    const Value count = counts.getValue(row);
    const Value sum = sums.getValue(row);
    const Value square = squares.getValue(row);
    if (count.isNull() || sum.isNull() || square.isNull() || count.asInt64() < (sample ? 2 : 1)) {
      out.setValue(row, Value::null(resultType));
      continue;
    }
    std::optional<UInt256> result =
        statistic(count.asInt64(), sum.asDecimal(), square.asDecimal(), argumentScale, kind, resultType.scale());
    if (!result || !result->fits128() ||
        result->low > static_cast<unsigned __int128>(std::numeric_limits<__int128>::max()) ||
        !fitsPrecision(static_cast<__int128>(result->low), resultType.precision())) {
      outOfRange(resultType);
    }
    out.setValue(row, Value::decimal(resultType, static_cast<__int128>(result->low)));
  }
  return out;
}

}  // namespace shoal::engine
