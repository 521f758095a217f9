#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/expression/expression.h"
#include "engine/pipeline/table_function_source.h"

namespace shoal::sql {

class ExpressionBinder;

/// What a call of a set-returning function resolves to: the function and the type of its values.
struct ResolvedSetFunction {
  engine::TableFunction function;
  engine::LogicalType valueType;
};

/// Whether `name` is a set-returning function Shoal has (generate_series, unnest, generate_subscripts).
bool isSetFunctionName(std::string_view name);

/// Resolves `name(arguments)` as PostgreSQL 15 does, coercing the arguments in place; 42883 when no signature
/// matches, 0A000 for the signatures Shoal lacks. Used in FROM and in the select list alike.
ResolvedSetFunction resolveSetFunction(ExpressionBinder& binder, const std::string& name,
                                       std::vector<engine::ExpressionPtr>& arguments, int location);

}  // namespace shoal::sql
