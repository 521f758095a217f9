#include "engine/expression/bitwise_functions.h"

#include <cstdint>

#include "common/check.h"
#include "engine/expression/vector_loops.h"

namespace shoal::engine {
namespace {

/// `Value` is the storage (int32_t for smallint and integer, int64_t for bigint); `bits` the SQL type's width.
template <class Value>
Vector evaluateTyped(ScalarFunction function, std::span<const Vector* const> arguments, const LogicalType& resultType,
                     int bits) {
  using Unsigned = std::make_unsigned_t<Value>;
  const Vector& left = *arguments[0];
  Vector out(resultType, left.size());
  // The C shift's count on x86: modulo 32 for int2 and int4 (both shift an int), 64 for int8.
  const int32_t countMask = bits == 64 ? 63 : 31;
  auto narrow = [bits](Value value) -> Value {
    return bits == 16 ? static_cast<Value>(static_cast<int16_t>(value)) : value;
  };
  switch (function) {
    case ScalarFunction::kBitNot:
      unaryLoop<Value, Value>(left, out, [&](Value v) { return narrow(static_cast<Value>(~v)); });
      return out;
    case ScalarFunction::kBitAnd:
      binaryLoop<Value, Value, Value>(left, *arguments[1], out, [](Value a, Value b) { return a & b; });
      return out;
    case ScalarFunction::kBitOr:
      binaryLoop<Value, Value, Value>(left, *arguments[1], out, [](Value a, Value b) { return a | b; });
      return out;
    case ScalarFunction::kBitXor:
      binaryLoop<Value, Value, Value>(left, *arguments[1], out, [](Value a, Value b) { return a ^ b; });
      return out;
    case ScalarFunction::kShiftLeft:
      binaryLoop<Value, int32_t, Value>(left, *arguments[1], out, [&](Value a, int32_t count) {
        return narrow(static_cast<Value>(static_cast<Unsigned>(a) << (count & countMask)));
      });
      return out;
    case ScalarFunction::kShiftRight:
      binaryLoop<Value, int32_t, Value>(left, *arguments[1], out, [&](Value a, int32_t count) {
        return narrow(static_cast<Value>(a >> (count & countMask)));  // arithmetic, as for signed C integers
      });
      return out;
    default:
      SHOAL_UNREACHABLE("not a bit operator");
  }
}

}  // namespace

Vector evaluateBitwise(ScalarFunction function, std::span<const Vector* const> arguments,
                       const LogicalType& resultType) {
  switch (resultType.id()) {
    case TypeId::kSmallInt:
      return evaluateTyped<int32_t>(function, arguments, resultType, 16);
    case TypeId::kInteger:
      return evaluateTyped<int32_t>(function, arguments, resultType, 32);
    case TypeId::kBigInt:
      return evaluateTyped<int64_t>(function, arguments, resultType, 64);
    default:
      SHOAL_UNREACHABLE("bit operators apply to integers only");
  }
}

}  // namespace shoal::engine
