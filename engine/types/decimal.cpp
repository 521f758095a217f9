#include "engine/types/decimal.h"

#include "common/check.h"

namespace shoal::engine {

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
