#pragma once

#include <string_view>

#include "engine/expression/expression.h"

namespace shoal::sql {

/// Whether `name` is one of the functions that describe a routine by OID (each takes one oid):
/// pg_get_function_arguments, pg_get_function_identity_arguments and pg_get_function_result (PostgreSQL 15's
/// text for the routines Shoal has, NULL for another OID), and pg_function_is_visible (TRUE for them, as all
/// live in pg_catalog; NULL for another OID).
bool isRoutineFunction(std::string_view name);

/// Binds routine function `name` over `oid` (BIGINT).
engine::ExpressionPtr bindRoutineFunction(std::string_view name, engine::ExpressionPtr oid);

/// The OID 'name'::regproc finds: the one routine Shoal has of that name, optionally qualified with
/// pg_catalog. Fails as PostgreSQL does: 42883 for no routine, 42725 for several.
int64_t routineOidFromName(std::string_view text);

}  // namespace shoal::sql
