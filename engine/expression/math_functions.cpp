#include "engine/expression/math_functions.h"

#include <cmath>
#include <limits>

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/decimal.h"

namespace shoal::engine {
namespace {

[[noreturn]] void failOverflow() {
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: overflow");
}

/// A double result as PostgreSQL's float8 functions check it: infinite from finite input is an overflow,
/// zero from non-zero input an underflow.
double checkedDouble(double result, double input, bool zeroAllowed) {
  if (std::isinf(result) && !std::isinf(input)) failOverflow();
  if (result == 0.0 && input != 0.0 && !zeroAllowed) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: underflow");
  }
  return result;
}

double logarithm(double value, bool base10) {
  if (value == 0.0) SHOAL_USER_FAIL(SqlState::kInvalidArgumentForLogarithm, "cannot take logarithm of zero");
  if (value < 0.0) {
    SHOAL_USER_FAIL(SqlState::kInvalidArgumentForLogarithm, "cannot take logarithm of a negative number");
  }
  return base10 ? std::log10(value) : std::log(value);
}

/// value / 10^dropped, rounded half away from zero, toward zero, up or down; 0 past 38 digits.
int128_t divideByPowerOfTen(int128_t value, int dropped, ScalarFunction mode) {
  if (dropped <= 0) return value;
  if (dropped > 38) {
    if (mode == ScalarFunction::kCeil && value > 0) return 1;
    if (mode == ScalarFunction::kFloor && value < 0) return -1;
    return 0;
  }
  const int128_t divisor = powerOfTen(dropped);
  int128_t quotient = value / divisor;
  const int128_t remainder = value % divisor;
  switch (mode) {
    case ScalarFunction::kRound:
      if (remainder * 2 >= divisor) ++quotient;
      if (remainder * 2 <= -divisor) --quotient;
      break;
    case ScalarFunction::kCeil:
      if (remainder > 0) ++quotient;
      break;
    case ScalarFunction::kFloor:
      if (remainder < 0) --quotient;
      break;
    default:  // trunc
      break;
  }
  return quotient;
}

template <class Int>
void integerAbs(const Vector& value, Vector& out, const LogicalType& type) {
  unaryLoop<Int, Int>(value, out, [&](Int x) {
    const bool smallInt = type.id() == TypeId::kSmallInt;
    if (x == std::numeric_limits<Int>::min() || (smallInt && x == -32768)) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "{} out of range", type.toString());
    }
    return x < 0 ? -x : x;
  });
}

/// Reads a decimal vector's rows as int128, calls `op` and stores into `out`'s decimal storage.
template <class Op>
void decimalLoop(const Vector& value, Vector& out, Op&& op) {
  withDecimalStorage(value.type(), [&](auto in) {
    using In = decltype(in);
    withDecimalStorage(out.type(), [&](auto result) {
      using Out = decltype(result);
      unaryLoop<In, Out>(value, out, [&](In x) {
        const int128_t computed = op(static_cast<int128_t>(x));
        if (!fitsPrecision(computed, out.type().precision())) {
          SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "numeric field overflow");
        }
        return static_cast<Out>(computed);
      });
    });
  });
}

}  // namespace

Vector evaluateMathFunction(ScalarFunction function, const Vector& value, const LogicalType& resultType) {
  Vector out(resultType, value.size());
  const LogicalType& type = value.type();
  if (type.id() == TypeId::kDecimal) {
    const int scale = type.scale();
    switch (function) {
      case ScalarFunction::kAbs:
        decimalLoop(value, out, [](int128_t x) { return x < 0 ? -x : x; });
        return out;
      case ScalarFunction::kSign:
        decimalLoop(value, out, [](int128_t x) -> int128_t { return (x > 0) - (x < 0); });
        return out;
      case ScalarFunction::kCeil:
      case ScalarFunction::kFloor:
        decimalLoop(value, out, [&](int128_t x) { return divideByPowerOfTen(x, scale, function); });
        return out;
      default:
        SHOAL_UNREACHABLE("{} of numeric", scalarFunctionName(function));
    }
  }
  if (type.isIntegral()) {
    SHOAL_CHECK(function == ScalarFunction::kAbs, "{} of an integer", scalarFunctionName(function));
    if (type.id() == TypeId::kBigInt) {
      integerAbs<int64_t>(value, out, type);
    } else {
      integerAbs<int32_t>(value, out, type);
    }
    return out;
  }
  auto doubles = [&](auto op) { unaryLoop<double, double>(value, out, op); };
  switch (function) {
    case ScalarFunction::kAbs:
      doubles([](double x) { return std::fabs(x); });
      break;
    case ScalarFunction::kSign:
      doubles([](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; });
      break;
    case ScalarFunction::kCeil:
      doubles([](double x) { return std::ceil(x); });
      break;
    case ScalarFunction::kFloor:
      doubles([](double x) { return std::floor(x); });
      break;
    case ScalarFunction::kSqrt:
      doubles([](double x) {
        if (x < 0)
          SHOAL_USER_FAIL(SqlState::kInvalidArgumentForPowerFunction, "cannot take square root of a negative number");
        return std::sqrt(x);
      });
      break;
    case ScalarFunction::kCbrt:
      doubles([](double x) { return std::cbrt(x); });
      break;
    case ScalarFunction::kExp:
      doubles([](double x) { return std::isnan(x) ? x : checkedDouble(std::exp(x), x, std::isinf(x)); });
      break;
    case ScalarFunction::kLn:
      doubles([](double x) { return std::isnan(x) ? x : logarithm(x, false); });
      break;
    case ScalarFunction::kLog10:
      doubles([](double x) { return std::isnan(x) ? x : logarithm(x, true); });
      break;
    default:
      SHOAL_UNREACHABLE("{} of a double", scalarFunctionName(function));
  }
  return out;
}

Vector evaluateRounding(ScalarFunction function, const Vector& value, int digits, const LogicalType& resultType) {
  Vector out(resultType, value.size());
  if (value.type().id() == TypeId::kDouble) {
    if (function == ScalarFunction::kRound) {
      unaryLoop<double, double>(value, out, [](double x) { return std::nearbyint(x); });
    } else {
      unaryLoop<double, double>(value, out, [](double x) { return std::trunc(x); });
    }
    return out;
  }
  const int scale = value.type().scale();
  decimalLoop(value, out, [&](int128_t x) {
    const int128_t kept = divideByPowerOfTen(x, scale - digits, function);
    if (digits >= scale) return x * powerOfTen(std::min(digits - scale, 38));  // padded with zeros
    // Rounded to tens, hundreds...: back to scale 0.
    return digits < 0 ? (-digits > 38 ? 0 : kept * powerOfTen(-digits)) : kept;
  });
  return out;
}

Vector evaluatePower(const Vector& base, const Vector& exponent) {
  Vector out(LogicalType::doublePrecision(), base.size());
  binaryLoop<double, double, double>(base, exponent, out, [](double x, double y) {
    if (x == 0.0 && y < 0.0) {
      SHOAL_USER_FAIL(SqlState::kInvalidArgumentForPowerFunction, "zero raised to a negative power is undefined");
    }
    if (x < 0.0 && std::floor(y) != y && std::isfinite(y)) {
      SHOAL_USER_FAIL(SqlState::kInvalidArgumentForPowerFunction,
                      "a negative number raised to a non-integer power yields a complex result");
    }
    const double result = std::pow(x, y);
    if (std::isinf(result) && std::isfinite(x) && std::isfinite(y)) failOverflow();
    if (result == 0.0 && x != 0.0 && std::isfinite(x) && std::isfinite(y)) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: underflow");
    }
    return result;
  });
  return out;
}

}  // namespace shoal::engine
