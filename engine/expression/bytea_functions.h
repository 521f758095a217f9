#pragma once

#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// PostgreSQL 15's byte-string functions, over the bytes of a string column (bytea, or text for octet_length):
/// - octet_length(x) -> INTEGER;
/// - encode(bytea, format) -> TEXT and decode(text, format) -> BYTEA for the formats 'hex', 'base64' (lines of
///   76 characters, whitespace skipped when decoding) and 'escape' (a zero byte, a high byte and a backslash
///   escaped), the format's name in any case;
/// - substring(bytea, start [, count]) -> BYTEA, by bytes.
/// Fails as PostgreSQL does: 22023 for an unknown format or bad hex/base64 input, 22P02 for bad escape input,
/// 22011 for a negative count.
Vector evaluateByteaFunction(ScalarFunction function, std::span<const Vector* const> arguments, size_t rows);

}  // namespace shoal::engine
