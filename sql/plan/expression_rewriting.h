#pragma once

#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

// Tree surgery on the engine's immutable expressions, for the binder and the
// optimizer: every function returns a new tree and leaves its input alone.

engine::ExpressionPtr copyExpression(const engine::Expression& expression);

/// The literal under any casts ('t'::text, NULL::oid), as written: for arguments that must be constants
/// (names, privileges); nullopt for any other expression.
std::optional<engine::Value> literalBeneathCasts(const engine::Expression& expression);

/// A reference to column `id` of the logical plan.
engine::ExpressionPtr columnRef(const PlanColumn& column);

/// Copies `expression`, replacing each subtree for which `replace` returns non-null.
engine::ExpressionPtr rewriteExpression(const engine::Expression& expression,
                                        const std::function<engine::ExpressionPtr(const engine::Expression&)>& replace);

/// Copies `expression` with column references renamed by `mapping` (ids not in it stay).
engine::ExpressionPtr remapColumns(const engine::Expression& expression,
                                   const std::function<engine::ExpressionPtr(ColumnId)>& mapping);

/// Adds the ids of every column `expression` reads.
void collectColumns(const engine::Expression& expression, std::set<ColumnId>& ids);
std::set<ColumnId> columnsOf(const engine::Expression& expression);
/// Whether `expression` reads any of `ids` (without collecting its columns).
bool readsAnyOf(const engine::Expression& expression, const std::set<ColumnId>& ids);

/// True when every column `expression` reads is in `available`.
bool readsOnly(const engine::Expression& expression, const std::set<ColumnId>& available);

/// Structural equality: same functions, casts, constants and column ids.
bool sameExpression(const engine::Expression& left, const engine::Expression& right);

/// Splits nested ANDs into their conjuncts (moves the pieces out of `expression`).
void splitConjunction(engine::ExpressionPtr expression, std::vector<engine::ExpressionPtr>& conjuncts);
/// The AND of `conjuncts` (TRUE when there are none).
engine::ExpressionPtr makeConjunction(std::vector<engine::ExpressionPtr> conjuncts);

/// True when a NULL in any of `columns` makes `expression` NULL or FALSE, so
/// that a filter on it drops the NULL-extended rows of an outer join.
bool rejectsNulls(const engine::Expression& expression, const std::set<ColumnId>& columns);

/// The ids an operator outputs.
std::set<ColumnId> outputIds(const LogicalOperator& op);

}  // namespace shoal::sql
