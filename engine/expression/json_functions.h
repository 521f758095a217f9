#pragma once

#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// json_build_object(key, value, ...) -> json, as PostgreSQL 15 builds it: {"k" : v, "k2" : v2}. Keys are
/// their values' text (22023 for a NULL key); values become JSON by type: NULL null, booleans true/false,
/// numbers as they print (NaN and infinities as strings), json as it is, arrays as [..], everything else
/// as a JSON string of its text (dates in ISO form). The caller checked that the arguments pair up.
Vector evaluateJsonBuildObject(std::span<const Vector* const> arguments, size_t numRows);

/// ->, ->>, #>, #>> and json_typeof over json or jsonb text, as PostgreSQL 15 answers them: a missing key, an
/// index outside the array (negative ones count from the end) or a step into a scalar gives NULL; ->> and #>>
/// give a string's decoded text and NULL for JSON null; an empty #> path gives the value itself. The result
/// of -> and #> is the value's own text: as written for json, as jsonb prints it for jsonb. jsonb_cmp orders
/// two jsonb values (compareJsonb); jsonb_sort_key gives jsonbSortKey's bytes.
Vector evaluateJsonAccess(ScalarFunction function, const LogicalType& resultType,
                          std::span<const Vector* const> arguments, size_t numRows);

}  // namespace shoal::engine
