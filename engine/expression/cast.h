#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

class TimeZone;

/// True when a value of `from` can be cast to `to` (explicitly; the binder
/// decides which casts may also happen implicitly).
bool isCastSupported(const LogicalType& from, const LogicalType& to);

/// Casts every row of `input` to `target`, failing on the first row that does
/// not convert (22P02 bad text, 22003 out of range) as PostgreSQL does.
/// Casts to VARCHAR(n) truncate to n characters, as an explicit SQL cast does.
/// `zone` is the TimeZone setting of casts to or from timestamptz (nullptr: UTC).
Vector castVector(const Vector& input, const LogicalType& target, const TimeZone* zone = nullptr);

}  // namespace shoal::engine
