#pragma once

#include <array>
#include <cstdint>

#include "common/check.h"
#include "engine/types/value.h"

namespace shoal::engine {

namespace detail {
inline constexpr int kMaxPowerOfTen = 38;
constexpr std::array<int128_t, kMaxPowerOfTen + 1> makePowersOfTen() {
  std::array<int128_t, kMaxPowerOfTen + 1> powers{};
  powers[0] = 1;
  for (int i = 1; i <= kMaxPowerOfTen; ++i) powers[i] = powers[i - 1] * 10;
  return powers;
}
inline constexpr auto kPowersOfTen = makePowersOfTen();
}  // namespace detail

/// 10^exponent for exponent in [0, 38], as an int128. Inline: decimal loops call it per value.
inline int128_t powerOfTen(int exponent) {
  SHOAL_DCHECK(exponent >= 0 && exponent <= detail::kMaxPowerOfTen);
  return detail::kPowersOfTen[static_cast<size_t>(exponent)];
}

/// True when |unscaled| fits in `precision` decimal digits.
inline bool fitsPrecision(int128_t unscaled, int precision) {
  int128_t limit = powerOfTen(precision);
  return unscaled < limit && unscaled > -limit;
}

/// Changes the scale of an unscaled decimal, rounding half away from zero when
/// digits are dropped (as PostgreSQL's numeric does). Sets `overflow` when the
/// result does not fit in an int128.
int128_t rescaleDecimal(int128_t unscaled, int fromScale, int toScale, bool& overflow);

}  // namespace shoal::engine
