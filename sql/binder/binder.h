#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sql/binder/bound_statement.h"
#include "sql/binder/catalog_reader.h"
#include "sql/parser/parsed_script.h"

namespace pg_query {
class Node;
class SelectStmt;
}  // namespace pg_query

namespace shoal::sql {

/// Resolves one parsed statement against the catalog into a BoundStatement.
/// Statements that Shoal does not run yet fail with 0A000 naming the clause.
class Binder {
 public:
  explicit Binder(const CatalogReader& catalog) : catalog_(catalog) {}

  /// `declaredParameterTypes` are the types the client declared for $1..$n
  /// (kUnknown for "let the server decide"); the result holds them resolved.
  /// `parameterValues`, when given, are the values of $1..$n, for a LIMIT $1 or OFFSET $2 to take.
  BoundStatement bind(const ParsedScript& script, size_t statementIndex,
                      std::vector<engine::LogicalType> declaredParameterTypes = {},
                      std::span<const engine::Value> parameterValues = {}) const;

  /// The statement that statement `statementIndex` of `script`, PREPARE name AS statement, prepares.
  BoundStatement bindPrepared(const ParsedScript& script, size_t statementIndex,
                              std::vector<engine::LogicalType> declaredParameterTypes,
                              std::span<const engine::Value> parameterValues) const;

 private:
  /// A query (SELECT, VALUES, UNION ...) into a logical plan.
  LogicalPlan bindQuery(std::string_view text, const pg_query::SelectStmt& select,
                        std::vector<engine::LogicalType>& parameterTypes,
                        std::span<const engine::Value> parameterValues) const;
  /// PREPARE's statement (a query or an INSERT), from `text`'s parse tree.
  BoundStatement bindPreparable(std::string_view text, const pg_query::Node& query,
                                std::vector<engine::LogicalType> declaredParameterTypes,
                                std::span<const engine::Value> parameterValues = {}) const;

  const CatalogReader& catalog_;
};

}  // namespace shoal::sql
