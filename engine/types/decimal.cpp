#include "engine/types/decimal.h"

#include <array>

#include "common/check.h"

namespace shoal::engine {
namespace {

constexpr int kMaxPowerOfTen = 38;

constexpr std::array<int128_t, kMaxPowerOfTen + 1> makePowersOfTen() {
  std::array<int128_t, kMaxPowerOfTen + 1> powers{};
  powers[0] = 1;
  for (int i = 1; i <= kMaxPowerOfTen; ++i) {
    powers[i] = powers[i - 1] * 10;
  }
  return powers;
}

constexpr auto kPowersOfTen = makePowersOfTen();

}  // namespace

int128_t powerOfTen(int exponent) {
  SHOAL_CHECK(exponent >= 0 && exponent <= kMaxPowerOfTen, "exponent {}", exponent);
  return kPowersOfTen[exponent];
}

bool fitsPrecision(int128_t unscaled, int precision) {
  int128_t limit = powerOfTen(precision);
  return unscaled < limit && unscaled > -limit;
}

int128_t rescaleDecimal(int128_t unscaled, int fromScale, int toScale, bool& overflow) {
  overflow = false;
  if (toScale == fromScale) {
    return unscaled;
  }
  if (toScale > fromScale) {
    int128_t result;
    overflow = __builtin_mul_overflow(unscaled, powerOfTen(toScale - fromScale), &result);
    return result;
  }
  int128_t divisor = powerOfTen(fromScale - toScale);
  int128_t quotient = unscaled / divisor;
  int128_t remainder = unscaled % divisor;
  // Round half away from zero.
  if (remainder * 2 >= divisor) {
    ++quotient;
  } else if (remainder * 2 <= -divisor) {
    --quotient;
  }
  return quotient;
}

}  // namespace shoal::engine
