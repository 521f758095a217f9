#include "engine/expression/comparison.h"

#include <cmath>

#include "engine/expression/vector_loops.h"
#include "engine/vector/interval_spans.h"

namespace shoal::engine {
namespace {

/// Three-way comparison for each physical type.
template <class T>
int compareValues(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <>
int compareValues<double>(const double& a, const double& b) {
  bool aNan = std::isnan(a);
  bool bNan = std::isnan(b);
  if (aNan || bNan) {
    return aNan == bNan ? 0 : (aNan ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <>
int compareValues<StringRef>(const StringRef& a, const StringRef& b) {
  return compare(a, b);
}

/// Calls body(predicate) with the predicate that turns a three-way comparison into `function`'s answer.
template <class Body>
void withPredicate(ScalarFunction function, Body&& body) {
  switch (function) {
    case ScalarFunction::kEqual:
      return body([](int c) { return c == 0; });
    case ScalarFunction::kNotEqual:
      return body([](int c) { return c != 0; });
    case ScalarFunction::kLess:
      return body([](int c) { return c < 0; });
    case ScalarFunction::kLessEqual:
      return body([](int c) { return c <= 0; });
    case ScalarFunction::kGreater:
      return body([](int c) { return c > 0; });
    case ScalarFunction::kGreaterEqual:
      return body([](int c) { return c >= 0; });
    default:
      SHOAL_UNREACHABLE("not a comparison: {}", scalarFunctionName(function));
  }
}

template <class Left, class Right>
void compareLoop(ScalarFunction function, const Vector& left, const Vector& right, Vector& out) {
  auto run = [&](auto predicate) {
    binaryLoop<Left, Right, uint8_t>(left, right, out, [&](const Left& a, const Right& b) {
      using Common = std::common_type_t<Left, Right>;
      return predicate(compareValues<Common>(Common(a), Common(b)));
    });
  };
  if constexpr (std::is_same_v<Left, StringRef>) {
    // Equality needs no order: length and the inline prefix reject most pairs without the heap.
    if (function == ScalarFunction::kEqual || function == ScalarFunction::kNotEqual) {
      bool wantEqual = function == ScalarFunction::kEqual;
      binaryLoop<StringRef, StringRef, uint8_t>(
          left, right, out, [&](const StringRef& a, const StringRef& b) { return (a == b) == wantEqual; });
      return;
    }
  }
  withPredicate(function, run);
}

}  // namespace

Vector evaluateComparison(ScalarFunction function, const Vector& left, const Vector& right) {
  SHOAL_CHECK_EQ(left.size(), right.size());
  SHOAL_CHECK(left.type().id() == right.type().id(), "comparison of {} with {}", left.type().toString(),
              right.type().toString());
  SHOAL_CHECK(left.type().id() != TypeId::kDecimal || left.type().scale() == right.type().scale(),
              "decimal comparison across scales {} and {}", left.type().scale(), right.type().scale());
  if (left.type().id() == TypeId::kInterval) {
    return evaluateComparison(function, intervalSpans(left), intervalSpans(right));
  }
  Vector out(LogicalType::boolean(), left.size());
  switch (left.type().physicalType()) {
    case PhysicalType::kBool:
      compareLoop<uint8_t, uint8_t>(function, left, right, out);
      break;
    case PhysicalType::kInt32:
      compareLoop<int32_t, int32_t>(function, left, right, out);
      break;
    case PhysicalType::kInt64:
    case PhysicalType::kInt128:
      // DECIMALs of one scale may still differ in width (numeric(10,2) vs numeric(30,2)).
      withDecimalStorage(left.type(), [&](auto leftTag) {
        withDecimalStorage(right.type(), [&](auto rightTag) {
          if (left.type().id() == TypeId::kBigInt) {
            compareLoop<int64_t, int64_t>(function, left, right, out);
          } else {
            compareLoop<decltype(leftTag), decltype(rightTag)>(function, left, right, out);
          }
        });
      });
      break;
    case PhysicalType::kDouble:
      compareLoop<double, double>(function, left, right, out);
      break;
    case PhysicalType::kString:
      compareLoop<StringRef, StringRef>(function, left, right, out);
      break;
  }
  return out;
}

namespace {

/// out[row] = predicate(compareValues(column[row], constant)) for every row; NULL rows get some value.
template <class T, class Predicate>
void compareWithConstantLoop(const Vector& column, const T& constant, Vector& out, Predicate predicate) {
  const T* values = column.data<T>();
  uint8_t* result = out.data<uint8_t>();
  const size_t numRows = column.size();
  for (size_t row = 0; row < numRows; ++row) result[row] = predicate(compareValues<T>(values[row], constant));
}

template <class T>
void compareWithConstant(ScalarFunction function, const Vector& column, const T& constant, Vector& out) {
  if constexpr (std::is_same_v<T, StringRef>) {
    // Equality needs no order: length and the inline prefix reject most rows without the heap.
    if (function == ScalarFunction::kEqual || function == ScalarFunction::kNotEqual) {
      const StringRef* values = column.data<StringRef>();
      uint8_t* result = out.data<uint8_t>();
      const uint8_t wantEqual = function == ScalarFunction::kEqual;
      for (size_t row = 0; row < column.size(); ++row) result[row] = (values[row] == constant) == wantEqual;
      return;
    }
  }
  withPredicate(function, [&](auto predicate) { compareWithConstantLoop(column, constant, out, predicate); });
}

}  // namespace

Vector evaluateComparisonWithConstant(ScalarFunction function, const Vector& column, const Vector& constant) {
  SHOAL_CHECK(column.type().physicalType() == constant.type().physicalType(), "comparison of {} with {}",
              column.type().toString(), constant.type().toString());
  SHOAL_CHECK(column.type().id() != TypeId::kDecimal || column.type().scale() == constant.type().scale(),
              "decimal comparison across scales {} and {}", column.type().scale(), constant.type().scale());
  if (column.type().id() == TypeId::kInterval) {
    return evaluateComparisonWithConstant(function, intervalSpans(column), intervalSpans(constant));
  }
  const size_t numRows = column.size();
  Vector out(LogicalType::boolean(), numRows);
  if (constant.isNull(0)) {
    std::fill(out.validity().words(), out.validity().words() + out.validity().numWords(), uint64_t{0});
    return out;
  }
  out.validity() = column.validity();
  switch (column.type().physicalType()) {
    case PhysicalType::kBool:
      compareWithConstant<uint8_t>(function, column, constant.data<uint8_t>()[0], out);
      break;
    case PhysicalType::kInt32:
      compareWithConstant<int32_t>(function, column, constant.data<int32_t>()[0], out);
      break;
    case PhysicalType::kInt64:
      compareWithConstant<int64_t>(function, column, constant.data<int64_t>()[0], out);
      break;
    case PhysicalType::kInt128:
      compareWithConstant<int128_t>(function, column, constant.data<int128_t>()[0], out);
      break;
    case PhysicalType::kDouble:
      compareWithConstant<double>(function, column, constant.data<double>()[0], out);
      break;
    case PhysicalType::kString:
      compareWithConstant<StringRef>(function, column, constant.data<StringRef>()[0], out);
      break;
  }
  return out;
}

}  // namespace shoal::engine
