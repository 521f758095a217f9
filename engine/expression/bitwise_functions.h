#pragma once

#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// The integer bit operators &, |, # (xor), ~ (not), << and >> over SMALLINT, INTEGER or BIGINT, as
/// PostgreSQL's int2and ... int8shr compute them: the operands share the result's type, except a shift's
/// count, an INTEGER taken modulo the type's width in bits as the C shifts PostgreSQL uses do on x86
/// (1 << 33 is 2 for integers). A smallint is shifted as an integer and truncated to 16 bits.
Vector evaluateBitwise(ScalarFunction function, std::span<const Vector* const> arguments,
                       const LogicalType& resultType);

}  // namespace shoal::engine
