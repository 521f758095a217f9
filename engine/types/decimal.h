#pragma once

#include <cstdint>

#include "engine/types/value.h"

namespace shoal::engine {

/// 10^exponent for exponent in [0, 38], as an int128.
int128_t powerOfTen(int exponent);

/// True when |unscaled| fits in `precision` decimal digits.
bool fitsPrecision(int128_t unscaled, int precision);

/// Changes the scale of an unscaled decimal, rounding half away from zero when
/// digits are dropped (as PostgreSQL's numeric does). Sets `overflow` when the
/// result does not fit in an int128.
int128_t rescaleDecimal(int128_t unscaled, int fromScale, int toScale, bool& overflow);

}  // namespace shoal::engine
