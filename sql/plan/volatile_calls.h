#pragma once

#include "engine/expression/expression.h"

namespace shoal::sql {

/// Whether `expression` calls a volatile function (random(), gen_random_uuid()): such a column is computed once
/// per row where it is made, so the optimizer must not copy its expression into what reads it (PostgreSQL
/// neither flattens nor pushes quals into a subquery whose select list is volatile).
bool callsVolatile(const engine::Expression& expression);

}  // namespace shoal::sql
