#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

// The row loops every kernel shares: NULL in, NULL out, and the operation is
// never called on a NULL row (so a division by a NULL zero never fails).

/// out[i] = op(left[i], right[i]) for every row where both inputs are valid.
template <class Left, class Right, class Out, class Op>
void binaryLoop(const Vector& left, const Vector& right, Vector& out, Op&& op) {
  size_t numRows = left.size();
  const Left* leftData = left.data<Left>();
  const Right* rightData = right.data<Right>();
  Out* outData = out.data<Out>();
  ValidityMask& validity = out.validity();
  validity = left.validity();
  validity.intersect(right.validity());
  if (validity.allValid(numRows)) {
    // The common case: no NULLs, one branch-free loop the compiler can vectorize.
    for (size_t row = 0; row < numRows; ++row) outData[row] = static_cast<Out>(op(leftData[row], rightData[row]));
    return;
  }
  for (size_t row = 0; row < numRows; ++row) {
    if (validity.isValid(row)) {
      outData[row] = static_cast<Out>(op(leftData[row], rightData[row]));
    }
  }
}

/// out[i] = op(input[i]) for every valid row.
template <class In, class Out, class Op>
void unaryLoop(const Vector& input, Vector& out, Op&& op) {
  size_t numRows = input.size();
  const In* inData = input.data<In>();
  Out* outData = out.data<Out>();
  out.validity() = input.validity();
  if (input.validity().allValid(numRows)) {
    for (size_t row = 0; row < numRows; ++row) outData[row] = static_cast<Out>(op(inData[row]));
    return;
  }
  for (size_t row = 0; row < numRows; ++row) {
    if (input.validity().isValid(row)) {
      outData[row] = static_cast<Out>(op(inData[row]));
    }
  }
}

/// Calls `body(T{})` with T the C++ type of a DECIMAL vector's storage.
template <class Body>
decltype(auto) withDecimalStorage(const LogicalType& type, Body&& body) {
  if (type.physicalType() == PhysicalType::kInt64) {
    return body(int64_t{});
  }
  return body(int128_t{});
}

}  // namespace shoal::engine
