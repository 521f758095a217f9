#pragma once

#include <span>

#include "engine/vector/vector.h"

namespace shoal::engine {

/// json_build_object(key, value, ...) -> json, as PostgreSQL 15 builds it: {"k" : v, "k2" : v2}. Keys are
/// their values' text (22023 for a NULL key); values become JSON by type: NULL null, booleans true/false,
/// numbers as they print (NaN and infinities as strings), json as it is, arrays as [..], everything else
/// as a JSON string of its text (dates in ISO form). The caller checked that the arguments pair up.
Vector evaluateJsonBuildObject(std::span<const Vector* const> arguments, size_t numRows);

}  // namespace shoal::engine
