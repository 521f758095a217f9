#pragma once

#include <string>

#include "engine/vector/vector.h"

namespace shoal::engine {

/// Appends the bytes of the non-NULL value at `row`, such that equal SQL values give equal bytes: -0.0 is 0.0,
/// every NaN alike, strings length-prefixed, and INTEGER widened to 64 bits so that INTEGER and BIGINT keys meet.
/// Hash tables (joins, aggregation, DISTINCT) key on these bytes.
void appendKeyBytes(const Vector& vector, size_t row, std::string& out);

}  // namespace shoal::engine
