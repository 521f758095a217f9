#include "engine/expression/arithmetic.h"

#include "engine/aggregate/scalar_aggregate.h"

#include <cmath>
#include <limits>

#include "engine/aggregate/scalar_aggregate.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/decimal.h"

namespace shoal::engine {
namespace {

[[noreturn]] void failDivisionByZero() {
  SHOAL_USER_FAIL(SqlState::kDivisionByZero, "division by zero");
}

[[noreturn]] void failOutOfRange(const LogicalType& type) {
  if (type.id() == TypeId::kDecimal) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "numeric field overflow");
  }
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "{} out of range", type.toString());
}

/// Integer arithmetic in `Int`'s range, over values stored as `Stored` (SMALLINT lives in an int32).
template <class Int, class Stored = Int>
void integerArithmetic(ScalarFunction function, const Vector& left, const Vector& right, Vector& out) {
  const LogicalType& type = out.type();
  auto checked = [&](auto operation) {
    binaryLoop<Stored, Stored, Stored>(left, right, out, [&](Stored a, Stored b) {
      Int result;
      if (operation(static_cast<Int>(a), static_cast<Int>(b), &result)) failOutOfRange(type);
      return static_cast<Stored>(result);
    });
  };
  switch (function) {
    case ScalarFunction::kAdd:
      checked([](Int a, Int b, Int* result) { return __builtin_add_overflow(a, b, result); });
      break;
    case ScalarFunction::kSubtract:
      checked([](Int a, Int b, Int* result) { return __builtin_sub_overflow(a, b, result); });
      break;
    case ScalarFunction::kMultiply:
      checked([](Int a, Int b, Int* result) { return __builtin_mul_overflow(a, b, result); });
      break;
    case ScalarFunction::kDivide:
      checked([](Int a, Int b, Int* result) {
        if (b == 0) failDivisionByZero();
        if (b == -1 && a == std::numeric_limits<Int>::min()) return true;  // the one quotient that overflows
        *result = static_cast<Int>(a / b);
        return false;
      });
      break;
    case ScalarFunction::kModulo:
      checked([](Int a, Int b, Int* result) {
        if (b == 0) failDivisionByZero();
        *result = b == -1 ? Int{0} : static_cast<Int>(a % b);
        return false;
      });
      break;
    default:
      SHOAL_UNREACHABLE("not an arithmetic function: {}", scalarFunctionName(function));
  }
}

void doubleArithmetic(ScalarFunction function, const Vector& left, const Vector& right, Vector& out) {
  // PostgreSQL reports a finite computation that overflows to infinity, or underflows to zero.
  auto checked = [](double a, double b, double result) {
    if (std::isinf(result) && !std::isinf(a) && !std::isinf(b)) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: overflow");
    }
    return result;
  };
  switch (function) {
    case ScalarFunction::kAdd:
      binaryLoop<double, double, double>(left, right, out, [&](double a, double b) { return checked(a, b, a + b); });
      break;
    case ScalarFunction::kSubtract:
      binaryLoop<double, double, double>(left, right, out, [&](double a, double b) { return checked(a, b, a - b); });
      break;
    case ScalarFunction::kMultiply:
      binaryLoop<double, double, double>(left, right, out, [&](double a, double b) { return checked(a, b, a * b); });
      break;
    case ScalarFunction::kDivide:
      binaryLoop<double, double, double>(left, right, out, [&](double a, double b) {
        if (b == 0) failDivisionByZero();
        return checked(a, b, a / b);
      });
      break;
    case ScalarFunction::kModulo:
      binaryLoop<double, double, double>(left, right, out, [&](double a, double b) {
        if (b == 0) failDivisionByZero();
        return std::fmod(a, b);
      });
      break;
    default:
      SHOAL_UNREACHABLE("not an arithmetic function: {}", scalarFunctionName(function));
  }
}

/// Divides two unscaled decimals, giving the quotient at `resultScale` rounded half away from zero.
int128_t divideDecimal(int128_t dividend, int dividendScale, int128_t divisor, int divisorScale, int resultScale,
                       const LogicalType& resultType) {
  if (divisor == 0) failDivisionByZero();
  // dividend / 10^ds1  ÷  divisor / 10^ds2  =  (dividend * 10^(rs + ds2 - ds1) / divisor) / 10^rs
  int shift = resultScale + divisorScale - dividendScale;
  bool overflow = false;
  if (shift >= 0) {
    dividend = rescaleDecimal(dividend, 0, shift, overflow);
  } else {
    divisor = rescaleDecimal(divisor, 0, -shift, overflow);
  }
  if (overflow) failOutOfRange(resultType);
  int128_t quotient = dividend / divisor;
  int128_t remainder = dividend % divisor;
  bool negative = (dividend < 0) != (divisor < 0);
  int128_t twiceRemainder = remainder < 0 ? -remainder * 2 : remainder * 2;
  int128_t absDivisor = divisor < 0 ? -divisor : divisor;
  if (twiceRemainder >= absDivisor) {
    quotient += negative ? -1 : 1;
  }
  return quotient;
}

template <class Left, class Right, class Out>
void decimalArithmetic(ScalarFunction function, const Vector& left, const Vector& right, Vector& out) {
  const LogicalType& type = out.type();
  int precision = type.precision();
  auto fit = [&](int128_t result) {
    if (!fitsPrecision(result, precision)) failOutOfRange(type);
    return result;
  };
  switch (function) {
    case ScalarFunction::kAdd:
      binaryLoop<Left, Right, Out>(left, right, out, [&](int128_t a, int128_t b) { return fit(a + b); });
      break;
    case ScalarFunction::kSubtract:
      binaryLoop<Left, Right, Out>(left, right, out, [&](int128_t a, int128_t b) { return fit(a - b); });
      break;
    case ScalarFunction::kMultiply:
      binaryLoop<Left, Right, Out>(left, right, out, [&](int128_t a, int128_t b) {
        int128_t result;
        if (__builtin_mul_overflow(a, b, &result)) failOutOfRange(type);
        return fit(result);
      });
      break;
    case ScalarFunction::kDivide: {
      int leftScale = left.type().scale();
      int rightScale = right.type().scale();
      int resultScale = type.scale();
      binaryLoop<Left, Right, Out>(left, right, out, [&](int128_t a, int128_t b) {
        return fit(divideDecimal(a, leftScale, b, rightScale, resultScale, type));
      });
      break;
    }
    case ScalarFunction::kModulo:
      binaryLoop<Left, Right, Out>(left, right, out, [&](int128_t a, int128_t b) {
        if (b == 0) failDivisionByZero();
        return a % b;
      });
      break;
    default:
      SHOAL_UNREACHABLE("not an arithmetic function: {}", scalarFunctionName(function));
  }
}

}  // namespace

Vector evaluateArithmetic(ScalarFunction function, const Vector& left, const Vector& right,
                          const LogicalType& resultType) {
  SHOAL_CHECK_EQ(left.size(), right.size());
  Vector out(resultType, left.size());
  switch (resultType.id()) {
    case TypeId::kSmallInt:
      integerArithmetic<int16_t, int32_t>(function, left, right, out);
      break;
    case TypeId::kInteger:
      integerArithmetic<int32_t>(function, left, right, out);
      break;
    case TypeId::kBigInt:
      integerArithmetic<int64_t>(function, left, right, out);
      break;
    case TypeId::kDouble:
      doubleArithmetic(function, left, right, out);
      break;
    case TypeId::kDecimal:
      withDecimalStorage(left.type(), [&](auto leftTag) {
        withDecimalStorage(right.type(), [&](auto rightTag) {
          withDecimalStorage(resultType, [&](auto outTag) {
            decimalArithmetic<decltype(leftTag), decltype(rightTag), decltype(outTag)>(function, left, right, out);
          });
        });
      });
      break;
    default:
      SHOAL_UNREACHABLE("arithmetic on type {}", resultType.toString());
  }
  return out;
}

Vector evaluateNegate(const Vector& input) {
  const LogicalType& type = input.type();
  Vector out(type, input.size());
  switch (type.id()) {
    case TypeId::kSmallInt:
    case TypeId::kInteger: {
      const int32_t min =
          type.id() == TypeId::kSmallInt ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int32_t>::min();
      unaryLoop<int32_t, int32_t>(input, out, [&](int32_t a) {
        if (a == min) failOutOfRange(type);
        return -a;
      });
      break;
    }
    case TypeId::kBigInt:
      unaryLoop<int64_t, int64_t>(input, out, [&](int64_t a) {
        if (a == std::numeric_limits<int64_t>::min()) failOutOfRange(type);
        return -a;
      });
      break;
    case TypeId::kDouble:
      unaryLoop<double, double>(input, out, [](double a) { return -a; });
      break;
    case TypeId::kDecimal:
      withDecimalStorage(type, [&](auto tag) {
        using T = decltype(tag);
        unaryLoop<T, T>(input, out, [](T a) { return -a; });
      });
      break;
    default:
      SHOAL_UNREACHABLE("negation of type {}", type.toString());
  }
  return out;
}

Vector evaluateAverageOfSum(const Vector& sums, const Vector& counts, const LogicalType& resultType) {
  Vector out(resultType, sums.size());
  for (size_t row = 0; row < sums.size(); ++row) {
    const Value sum = sums.getValue(row);
    const Value count = counts.getValue(row);
    if (sum.isNull() || count.isNull() || count.asInt64() == 0) {
      out.setValue(row, Value::null(resultType));
      continue;
    }
    // The partial sums are at the argument's scale, so AVG's own finishing step applies unchanged.
    ScalarAggregate finisher(AggregateFunction::kAvg, sums.type(), resultType);
    const bool isDouble = sums.type().id() == TypeId::kDouble;
    const __int128 integerSum = isDouble                               ? 0
                                : sums.type().id() == TypeId::kDecimal ? sum.asDecimal()
                                                                       : __int128{sum.asInt64()};
    finisher.mergeState(count.asInt64(), integerSum, false, isDouble ? sum.asDouble() : 0.0, Value::null(resultType),
                        Value::null(resultType));
    out.setValue(row, finisher.finalize());
  }
  return out;
}

}  // namespace shoal::engine
